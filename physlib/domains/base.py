"""The :class:`Domain` type shared by all physical domains."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Domain:
    """A physical domain: the names and units of its across and through variables.

    ``through`` is ``None`` for the causal signal domain, whose ports carry one value.
    ``across_start`` is the initial guess of unknown potentials (a temperature guess of 0 K
    would make Newton start far from any physical solution).
    ``free_end``: an unconnected port of this domain is a free end (zero force or torque), as
    in the Modelica Standard Library; in other domains an unconnected port is an error.
    ``needs_reference`` marks domains whose potentials are only defined relative to a
    reference component (an electrical circuit needs a Ground).
    """

    name: str
    across: str
    across_unit: str
    through: str | None = None
    through_unit: str | None = None
    needs_reference: bool = False
    across_start: float = 0.0  # initial guess for across variables that are not states
    free_end: bool = False     # an unconnected port carries no through variable (a free shaft end)

    @property
    def is_signal(self) -> bool:
        return self.through is None

    def __repr__(self) -> str:
        return f"<domain {self.name}>"
