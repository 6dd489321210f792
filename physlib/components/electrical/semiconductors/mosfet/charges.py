"""The MOSFET's charges as ngspice-39's loads integrate them: the bulk junctions' depletion
charges, the overlap and Meyer's gate capacitances, their currents and stored energy
(:class:`MOSFETCharges`, a part of :class:`~.device.MOSFET`; the functions they use are in
:mod:`.capacitances`)."""
from .....core import Parameter
from .....core.lazy import lazy_module
from .capacitances import (BRANCHES, ORDER, branch_rates, junction_capacitance, junction_charge,
                           meyer_capacitances, state_branches)
from .channel import effective_length
from .level3 import oxide_capacitance

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["MOSFETCharges"]


class MOSFETCharges:
    """The charge equations of a MOSFET: cgs, cgd, cgb (overlaps and Meyer's), cbd, cbs (the
    junctions' dQ/dv), the charge currents of the present branches and their stored energy;
    the start of the branch voltages that are states (:meth:`initial`)."""

    vds0 = Parameter(0.0, unit="V", description="d - s voltage the capacitances start from")
    vgs0 = Parameter(0.0, unit="V", description="g - s voltage the capacitances start from")
    vbs0 = Parameter(0.0, unit="V", description="b - s voltage the capacitances start from")

    OVERLAPS = {"gs": "CGSO", "gd": "CGDO", "gb": "CGBO"}
    JUNCTIONS = {"bd": ("CBD", "AD", "PD"), "bs": ("CBS", "AS", "PS")}

    def _junction_capacitances(self, branch):
        """(bottom, sidewall) zero-bias capacitances [F] of junction ``branch`` ("bd", "bs")."""
        cap, area, perimeter = (getattr(self, n) for n in self.JUNCTIONS[branch])
        bottom = self.M * sp.Piecewise((cap, cap > 0), (self.CJ * area, True))
        return bottom, (self.M * self.CJSW * perimeter if "sidewalls" in self.present() else 0)

    def _overlaps(self):
        """{gate branch: its overlap capacitance [F]}."""
        return {"gs": self.CGSO * self.M * self.W, "gd": self.CGDO * self.M * self.W,
                "gb": self.CGBO * self.M * effective_length(self)}

    def _gate_capacitance_equations(self, temp):
        """cgs, cgd, cgb = the overlaps plus, with TOX, Meyer's capacitances of the conducting
        direction (gate–source and gate–drain exchanged in reverse, as ngspice's loads call
        DEVqmeyer), of the overdrive vg − von, PHI(T) and Cox = 3.9·ε0/TOX·M·W·(L − 2·LD)
        (TOX = 1e-7 m where 0 at level 3, as ngspice's default)."""
        meyer = {"gs": 0, "gd": 0, "gb": 0}
        if "meyer" in self.present():
            vg, vx, _ = self._conducting()
            cox = oxide_capacitance(self) * self.M * self.W * effective_length(self)
            share, inner, outer, bulk = meyer_capacitances(vg - self.von, vx, self.vdsat, temp.phi)
            forward = self.vds >= 0
            meyer = {"gs": cox * share * sp.Piecewise((inner, forward), (outer, True)),
                     "gd": cox * share * sp.Piecewise((outer, forward), (inner, True)), "gb": cox * bulk}
        overlaps = self._overlaps()
        return [sp.Eq(getattr(self, "c" + name), overlaps[name] + meyer[name]) for name in ("gs", "gd", "gb")]

    def _rates(self):
        """{present branch: d(its voltage)/dt}, see :func:`~.capacitances.branch_rates`."""
        return branch_rates(self.present(), {n: getattr(self, n) for n in ("vgs", "vbs", "vgd", "vbd", "vgb")})

    def initial(self):
        """The branch voltages that are states start (without an operating point) from the
        pin voltages vds0, vgs0, vbs0 (physical; ngspice's IC=vds,vgs,vbs), as ngspice-39 starts
        a ``uic`` transient (mos1load.c, MODEINITJCT with MODEUIC)."""
        tp = self._polarity()
        vgs, vds, vbs = tp * self.vgs0, tp * self.vds0, tp * self.vbs0
        starts = {"vgs": vgs, "vbs": vbs, "vgd": vgs - vds, "vbd": vbs - vds, "vgb": vgs - vbs}
        voltages = (BRANCHES[name][2] for name in state_branches(self.present()))
        return {getattr(self, v): starts[v] for v in voltages}

    def _charge_currents(self):
        """{branch: its charge current [A] (channel polarity)} of the present branches: their
        capacitances (cgs, cgd, cgb, cbs, cbd) times the rates of their voltages."""
        return {name: getattr(self, "c" + name) * rate for name, rate in self._rates().items()}

    def _junction_capacitance_equations(self):
        """cbd, cbs = dQbd/dvbd, dQbs/dvbs of the junctions with a charge (else 0)."""
        equations = []
        for name in ("bd", "bs"):
            v = getattr(self, BRANCHES[name][2])
            cap = junction_capacitance(v, *self._junction_capacitances(name), self) \
                if name in self.present() else 0
            equations.append(sp.Eq(getattr(self, "c" + name), cap))
        return equations

    def energy(self):
        """The energy the junction charges and the overlap capacitances store [J]:
        W(v) = v·Q(v) − ∫₀^v Q dv for each junction, C·v²/2 for each overlap, so dW/dt = v·dQ/dt
        (None without them). Meyer's capacitances store none (see :meth:`dissipation`)."""
        stored, present = 0, self.present()
        for name in (n for n in ORDER if n in present):
            v = getattr(self, BRANCHES[name][2])
            if name in self.OVERLAPS:
                length = effective_length(self) if name == "gb" else self.W
                stored += getattr(self, self.OVERLAPS[name]) * self.M * length * v**2 / 2
            else:
                caps = self._junction_capacitances(name)
                stored += v * junction_charge(v, *caps, self) - junction_charge(v, *caps, self, integral=True)
        return stored if stored != 0 else None
