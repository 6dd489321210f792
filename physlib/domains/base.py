"""The :class:`Domain` type shared by all physical domains."""
_FIELDS = ("name", "across", "across_unit", "through", "through_unit", "needs_reference", "across_start",
           "free_end")


class Domain:
    """A physical domain: the names and units of its across and through variables.

    ``through`` is ``None`` for the causal signal domain, whose ports carry one value.
    ``across_start`` is the initial guess of unknown potentials (a temperature guess of 0 K
    would make Newton start far from any physical solution).
    ``free_end``: an unconnected port of this domain is a free end (zero force or torque), as
    in the Modelica Standard Library; in other domains an unconnected port is an error.
    ``needs_reference`` marks domains whose potentials are only defined relative to a
    reference component (an electrical circuit needs a Ground).

    Immutable, equal and hashed by its fields, as a frozen dataclass, written out: the
    dataclass machinery cost every process the better part of a millisecond for six domains,
    and this package imports nothing of physlib's (its record classes)."""

    def __init__(self, name: str, across: str, across_unit: str, through: str | None = None,
                 through_unit: str | None = None, needs_reference: bool = False, across_start: float = 0.0,
                 free_end: bool = False):
        # across_start: the initial guess for across variables that are not states;
        # free_end: an unconnected port carries no through variable (a free shaft end)
        self.__dict__.update(zip(_FIELDS, (name, across, across_unit, through, through_unit, needs_reference,
                                           across_start, free_end)))

    def __setattr__(self, name, value):
        raise AttributeError(f"a Domain is immutable: cannot assign to {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a Domain is immutable: cannot delete {name!r}")

    def _values(self) -> tuple:
        return tuple(self.__dict__[name] for name in _FIELDS)

    def __eq__(self, other):
        return self._values() == other._values() if type(other) is Domain else NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    @property
    def is_signal(self) -> bool:
        return self.through is None

    def __repr__(self) -> str:
        return f"<domain {self.name}>"
