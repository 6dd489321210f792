"""The MOSFET's noise sources as ngspice-39's mos1noi.c (mos2noi.c, mos3noi.c): the thermal
noise of RD and RS, the channel's thermal and flicker noise (:class:`MOSFETNoise`, a part of
:class:`~.device.MOSFET`)."""
from .....constants import Constant
from ..fet_noise import FETNoiseParts
from ...interfaces import constant_set

__all__ = ["MOSFETNoise", "EPS_OX", "TOX_ABSENT"]

EPS_OX = Constant(3.9 * 8.854214871e-12, "F/m", "EPS_OX")   # ngspice's oxide permittivity (3.9·ε0)
TOX_ABSENT = 1e-7                # m: the oxide thickness ngspice's noise assumes without TOX


class MOSFETNoise(FETNoiseParts):
    """The noise sources inside a MOSFET, for the noise analyses: ``internal_noise`` as
    mos1noi.c, mos2noi.c and mos3noi.c, on the parts FETNoiseParts names."""

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient [A²]) of ``part`` at an operating point
        (``values``: the MOSFET's variables by local name, ``params``: its parameters), as
        ngspice-39's mos1noi.c, mos2noi.c and mos3noi.c (levels 1, 2, 3)."""
        kt4 = 4 * constant_set(self).k_B * params["T"]
        if part in ("rd", "rs"):
            return kt4 * params["M"] / params[part.upper()], 0.0
        if part == "id":
            gm = values["gm"] if self.level == 1 else self.staged_transconductance(values, params)
            return kt4 * 2 / 3 * abs(gm), 0.0
        cox = EPS_OX / (params["TOX"] if params["TOX"] > 0 else TOX_ABSENT)
        current = abs(values["ids"] - values["ibd"])
        # mos3noi.c leaves the multiplier out of the area (mos1noi.c and mos2noi.c have it)
        area = params["W"] * (params["M"] if self.level != 3 else 1) * (params["L"] - 2 * params["LD"])
        return 0.0, params["KF"] * current ** params["AF"] / (area * cox**2)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant`'s class that is the noise current of ``part``."""
        return "noise_" + {"1overf": "flicker"}.get(part, part)
