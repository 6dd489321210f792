"""Linear models: x' = A x + B u, y = C x + D u (or E x' = A x + B u), with named signals.

A :class:`LinearModel` is what :meth:`CompiledModel.linearize` returns. It holds plain NumPy
matrices and the names of its states, inputs and outputs, and converts to the Python control
ecosystem (:meth:`LinearModel.to_control`, :meth:`LinearModel.to_scipy`).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sps

from ...core.errors import InputRateError, PhyslibError
from ...core.units import divided
from .frequency_response import frequency_response
from .linear_sensitivity import linear_sensitivities
from .minimal_realization import minimal_basis, named_basis


class DescriptorError(PhyslibError, ValueError):
    """An operation needs an explicit model (x' = A x + B u) but the descriptor model's E is
    singular (it has algebraic variables): linearize with ``descriptor=False``."""


class LinearModel:
    """A linear time-invariant model with named states, inputs and outputs.

    ``A`` (n×n), ``B`` (n×m), ``C`` (p×n), ``D`` (p×m); ``E`` (n×n) for a descriptor model
    (``E x' = A x + B u``), ``None`` otherwise: NumPy arrays. A model made with SciPy sparse
    matrices (a large circuit's linearization) keeps them sparse — :meth:`sparse` gives them,
    :meth:`frequency_response` works on them — and makes each NumPy array the first time it
    is read (n² numbers for A). ``states``, ``inputs``, ``outputs`` are the signal names (also
    as ``state_names``, ``input_names``, ``output_names``). ``at`` is the
    :class:`~physlib.analysis.linear.operating_point.OperatingPoint` it was linearized at, if any;
    ``origin`` how :func:`~physlib.analysis.linear.linearize.linearize` made it (the inputs'
    and outputs' places in the compiled model, for :meth:`sensitivity`), None otherwise.
    ``units`` and ``input_units``: the unit of each state and output, and of each input, mappings
    by name (Modelica unit strings, :mod:`physlib.units`; apart because an analysis point can be
    both an input, a current injected, and an output, the voltage there): :meth:`unit`, and
    :meth:`response_unit` for a transfer function's (``"V/A"``). ``rate_inputs``: the inputs
    whose response needs their rate ({input: why}, :class:`~physlib.core.errors.InputRateError`):
    of those the model gives the gain at zero frequency alone, and B, D and responses at other
    frequencies are that error.
    """

    def __init__(self, A, B, C, D, *, states, inputs, outputs, E=None, at=None, origin=None, units=None,
                 input_units=None, rate_inputs=None):
        n, m, p = len(states), len(inputs), len(outputs)
        shapes = {"A": (n, n), "B": (n, m), "C": (p, n), "D": (p, m), "E": (n, n)}
        given = {"A": A, "B": B, "C": C, "D": D, "E": E}
        self._given = {k: _matrix(v, shapes[k]) for k, v in given.items() if v is not None}
        self._arrays = {}
        self.states = list(states)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.at = at
        self.units = {} if units is None else units
        self.input_units = {} if input_units is None else input_units
        self.origin = origin
        self.rate_inputs = dict(rate_inputs or {})

    def _check_rates(self, inputs=None) -> None:
        """The :class:`InputRateError` of the first of ``inputs`` (default: all) whose response
        needs its rate."""
        for name in self.inputs if inputs is None else inputs:
            if name in self.rate_inputs:
                raise InputRateError(f"LinearModel: {self.rate_inputs[name]}")

    def _array(self, name, rates: bool = True):
        """The matrix ``name`` as a NumPy array; B and D of a model with inputs that need their
        rate are an :class:`InputRateError` unless ``rates`` is False (a reduction that keeps
        the flag)."""
        if name not in self._given:
            return None
        if rates and name in ("B", "D"):
            self._check_rates()
        if name not in self._arrays:
            value = self._given[name]
            self._arrays[name] = value.toarray() if sps.issparse(value) else value
        return self._arrays[name]

    A = property(lambda self: self._array("A"), doc="State matrix (n×n), a NumPy array.")
    B = property(lambda self: self._array("B"), doc="Input matrix (n×m), a NumPy array.")
    C = property(lambda self: self._array("C"), doc="Output matrix (p×n), a NumPy array.")
    D = property(lambda self: self._array("D"), doc="Feedthrough matrix (p×m), a NumPy array.")
    E = property(lambda self: self._array("E"), doc="Descriptor matrix (n×n) or None.")

    def sparse(self, name: str):
        """The matrix ``name`` ("A", "B", "C", "D" or "E") as a SciPy CSR matrix (None for E of
        an explicit model), without making its dense array."""
        if name not in ("A", "B", "C", "D", "E"):
            raise PhyslibError(f"LinearModel.sparse: name is one of A, B, C, D, E; got {name!r}")
        if name in ("B", "D"):
            self._check_rates()
        value = self._given.get(name)
        return None if value is None else sps.csr_matrix(value)

    # --- names ----------------------------------------------------------------------------

    @property
    def state_names(self) -> list[str]:
        return self.states

    @property
    def input_names(self) -> list[str]:
        return self.inputs

    @property
    def output_names(self) -> list[str]:
        return self.outputs

    def unit(self, name: str) -> str:
        """The unit of a state, output or input: ``"V"`` for ``"C1.v"``, ``"A"`` for the input
        ``"src.I"``, ``"Ohm"`` for a parameter taken as input (a name that is both an output
        and an input, an analysis point, gives its output's unit)."""
        for units in (self.units, self.input_units):
            if name in units:
                return units[name]
        if name in self.states or name in self.inputs or name in self.outputs:
            raise PhyslibError(f"LinearModel: {name} has no unit (a combination of states of a minimal "
                               "realization, or a model made without units)")
        raise PhyslibError(f"LinearModel has no state, input or output {name!r}; states: "
                           f"{', '.join(self.states[:10])}; inputs: {', '.join(self.inputs)}; outputs: "
                           f"{', '.join(self.outputs)}")

    def response_unit(self, output: str, input: str) -> str:
        """The unit of the frequency response (and of the DC gain) from ``input`` to ``output``:
        the output's unit per the input's, ``"V/A"`` from a current source to a voltage."""
        self._positions(output, self.outputs, "output")
        self._positions(input, self.inputs, "input")
        return divided(self.unit(output), self.input_units.get(input) or self.unit(input))

    @property
    def descriptor(self) -> bool:
        return "E" in self._given

    # --- analysis -------------------------------------------------------------------------

    def poles(self) -> np.ndarray:
        """Eigenvalues of A (finite generalized eigenvalues of (A, E) for a descriptor model),
        sorted by real part, then imaginary part (a descriptor pencil is first balanced by
        diagonal scaling of its rows and columns, so that widely spread element magnitudes
        do not cost the eigenvalues their accuracy)."""
        import scipy.linalg
        if self.E is None:
            values = np.linalg.eigvals(self.A) if self.A.size else np.empty(0, complex)
        elif not self.A.size:
            values = np.empty(0, complex)
        else:
            values = scipy.linalg.eigvals(*balanced_pencil(self.A, self.E))
            values = values[np.isfinite(values)]
        return values[np.lexsort((values.imag, values.real))]

    def frequency_response(self, f, *, inputs=None, outputs=None) -> np.ndarray:
        """Complex frequency response C (s E − A)⁻¹ B + D at s = 2πj·f, f in Hz.

        Returns an array of shape (outputs, inputs, len(f)); ``inputs``/``outputs``: names to
        restrict it to (only those are computed), in that order. One LU factorization per
        frequency, dense for small models, sparse (banded or SuperLU) for large ones
        (:mod:`physlib.analysis.linear.frequency_response`)."""
        ins = self._positions(inputs, self.inputs, "input")
        outs = self._positions(outputs, self.outputs, "output")
        if self.rate_inputs and np.any(np.asarray(f, dtype=float) != 0):
            self._check_rates([self.inputs[k] for k in ins])
        given = self._given
        B, C, D = given["B"][:, ins], given["C"][outs], given["D"][outs][:, ins]
        return frequency_response(given["A"], B, C, D, f, given.get("E"))

    @staticmethod
    def _positions(names, known, what):
        if names is None:
            return np.arange(len(known))
        names = [names] if isinstance(names, str) else list(names)
        index = {n: k for k, n in enumerate(known)}
        missing = [n for n in names if n not in index]     # a dict: linear in the names
        if missing:
            raise PhyslibError(f"LinearModel has no {what} {', '.join(map(repr, missing))}; its "
                               f"{what}s: {', '.join(known)}")
        return np.array([index[n] for n in names], dtype=int)

    def sensitivity(self, param, f=None, *, params: dict | None = None, hold_point: bool = False):
        """The derivatives of this model's matrices by the parameter ``param`` (a parameter path
        such as ``"R1.R"`` or a model parameter): a
        :class:`~physlib.analysis.linear.linear_sensitivity.LinearSensitivity` with ``A``, ``B``,
        ``C``, ``D`` (∂A/∂θ ... as dense arrays) and, with frequencies ``f`` [Hz], ``H`` =
        ∂H(j2πf)/∂θ (outputs × inputs × len(f)). A list of names gives a list of them.

        Exact: the second derivatives of the model's equations at the operating point
        (:mod:`physlib.analysis.linear.linear_sensitivity`). The point is a steady state, which
        moves with the parameter (a diode's bias current with its series resistor), and that
        motion is included; ``hold_point=True`` holds the point's states fixed instead (needed
        for a point of a transient, ``res.at(t)``, whose motion is the run's sensitivity).
        ``params``: the parameter values the point was found with, needed when ``param`` is a
        model parameter (its computed entries are checked against the point's). The model must
        come from ``linearize``; a model whose states a locked clutch reduced has no sensitivity
        here (linearize with ``descriptor=True``)."""
        names = [param] if isinstance(param, str) else list(param)
        found = linear_sensitivities(self, names, f, params=params, hold_point=hold_point)
        return found[0] if isinstance(param, str) else found

    def dcgain(self) -> np.ndarray:
        """Steady-state gain (outputs × inputs): −C A⁻¹ B + D (C (−A)⁻¹ B + D with E).

        A state at s = 0 that the inputs do not drive or the outputs do not see (a motor's
        angle, when the output is its speed) makes A singular but not the gain: the gain is
        then that of the minimal realization (:meth:`minimal`), and only a pole at s = 0 of
        the transfer function itself (an angle as the output) is an error."""
        try:
            return self.frequency_response([0.0])[:, :, 0].real
        except PhyslibError:
            return self.minimal().frequency_response([0.0])[:, :, 0].real

    def bode(self, f, ax=None, *, inputs=None, outputs=None):
        """Bode plot (magnitude in dB, phase in degrees) of every input/output pair, f in Hz.

        ``ax``: a pair of matplotlib axes (magnitude, phase) to draw into; default: a new
        figure. ``inputs``/``outputs``: names to restrict the plot to. Returns the Figure."""
        import matplotlib.pyplot as plt

        f = np.atleast_1d(np.asarray(f, dtype=float))
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or self.inputs)
        outputs = [outputs] if isinstance(outputs, str) else list(outputs or self.outputs)
        H = self.frequency_response(f, inputs=inputs, outputs=outputs)
        if ax is None:
            fig, (ax_mag, ax_phase) = plt.subplots(2, 1, sharex=True, figsize=(7, 5.5))
        else:
            ax_mag, ax_phase = ax
            fig = ax_mag.figure
        for i, output in enumerate(outputs):
            for j, input_ in enumerate(inputs):
                h = H[i, j]
                label = f"{input_} → {output}"
                with np.errstate(divide="ignore"):
                    ax_mag.semilogx(f, 20 * np.log10(np.abs(h)), label=label)
                ax_phase.semilogx(f, np.degrees(np.unwrap(np.angle(h))), label=label)
        ax_mag.set_ylabel("magnitude [dB]")
        ax_phase.set_ylabel("phase [deg]")
        ax_phase.set_xlabel("frequency [Hz]")
        for axis in (ax_mag, ax_phase):
            axis.grid(True, which="both", alpha=0.3)
        ax_mag.legend(loc="best")
        fig.tight_layout()
        return fig

    def minimal(self, tol: float = 1e-10) -> "LinearModel":
        """A minimal realization: the same transfer function from ``inputs`` to ``outputs``
        with the uncontrollable and unobservable states removed.

        Orthogonal staircase reductions (:mod:`physlib.analysis.linear.minimal_realization`);
        ``tol`` is the relative rank tolerance (a direction whose singular value is below
        ``tol`` times the norm of A and B, or of Aᵀ and Cᵀ, counts as absent). A state that
        survives unchanged (its coordinate lies in the kept subspace, e.g. when the removed
        states do not couple to it) keeps its name; the other states are orthonormal
        combinations of the original ones named ``"minimal[0]"``, ``"minimal[1]"``, ….
        A descriptor model with an invertible E is reduced in explicit form (E⁻¹A, E⁻¹B; the
        result has no E); with a singular E it is a :class:`DescriptorError`. ``D``, the
        signal names, their units and ``at`` are kept.
        """
        A, B = self._explicit("minimal()", rates=False)     # the inputs' flags go with it
        T = minimal_basis(A, B, self.C, tol)
        T, names = named_basis(T, self.states, tol)
        kept = {n: self.units[n] for n in [*names, *self.outputs] if n in self.units}
        return LinearModel(T.T @ A @ T, T.T @ B, self.C @ T, self._array("D", rates=False), states=names,
                           inputs=self.inputs, outputs=self.outputs, at=self.at, units=kept,
                           input_units=self.input_units, rate_inputs=self.rate_inputs)

    # --- conversions ----------------------------------------------------------------------

    def _explicit(self, what: str, rates: bool = True):
        B = self._array("B", rates)
        if self.E is None:
            return self.A, B
        try:
            return np.linalg.solve(self.E, self.A), np.linalg.solve(self.E, B)
        except np.linalg.LinAlgError:
            raise DescriptorError(f"{what} needs an explicit state-space model but E is singular; "
                               "linearize with descriptor=False to eliminate the algebraic "
                               "variables") from None

    def to_scipy(self):
        """The model as :class:`scipy.signal.StateSpace` (continuous time)."""
        import scipy.linalg
        import scipy.signal

        A, B = self._explicit("to_scipy()")
        return scipy.signal.StateSpace(A, B, self.C, self.D)

    def to_control(self):
        """The model as a python-control ``StateSpace`` with the signal names (python-control
        does not allow dots in names: ``"rotor.w"`` becomes ``"rotor_w"``).

        python-control is optional: ``pip install control`` (or ``physlib[control]``)."""
        try:
            import control
        except ImportError:
            raise PhyslibError("LinearModel.to_control() needs the python-control package: "
                               "pip install control (or pip install physlib[control])") from None
        A, B = self._explicit("to_control()")
        return control.ss(A, B, self.C, self.D, states=_unique(self.states),
                          inputs=_unique(self.inputs), outputs=_unique(self.outputs))

    def __repr__(self):
        kind = "descriptor " if self.descriptor else ""
        return (f"<LinearModel {kind}{len(self.states)} states, inputs {self.inputs}, "
                f"outputs {self.outputs}>")


def _matrix(value, shape):
    """``value`` as a float matrix of ``shape``: a CSR matrix if it is sparse, else an array."""
    if sps.issparse(value):
        if value.shape != shape:
            raise PhyslibError(f"LinearModel: a matrix of shape {value.shape} where {shape} is needed")
        return sps.csr_matrix(value, dtype=float)
    return np.asarray(value, dtype=float).reshape(shape)


def _unique(names):
    """Signal names for python-control, which needs them distinct and without dots (it reads
    a dot as a subsystem separator): ``"rotor.w"`` becomes ``"rotor_w"``."""
    seen, out = set(), []
    for name in names:
        base = name = name.replace(".", "_")
        k = 1
        while name in seen:
            k += 1
            name = f"{base}#{k}"
        seen.add(name)
        out.append(name)
    return out


def balanced_pencil(A: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(D⁻¹·A·D, D⁻¹·E·D) with a diagonal D that evens out the pencil's rows and columns: the
    same generalized eigenvalues, which LAPACK's solver, which does not balance, finds far
    better (a transistor's charges beside node voltages span twenty decades in A: unbalanced,
    a common-emitter stage's slow poles came out unstable)."""
    import scipy.linalg
    _, (d, _) = scipy.linalg.matrix_balance(np.abs(A) + np.abs(E), permute=False, separate=True)
    scale = d[None, :] / d[:, None]
    return A * scale, E * scale
