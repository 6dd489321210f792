"""Heat transfer against the MSL TwoMasses reference and closed forms."""
from functools import lru_cache

import numpy as np
import pytest

from physlib import Model, ParameterError
from physlib.components.signals import Step
from physlib.components.thermal import (STEFAN_BOLTZMANN, BodyRadiation, Convection,
                                        FixedTemperature, HeatCapacitor, HeatFlowSensor,
                                        HeatFlowSource, TemperatureSensor, ThermalConductor)

from msl_corpus import two_masses
from reference import assert_in_tube, load_msl


@lru_cache(maxsize=None)
def _two_masses_sim():
    return two_masses().compile()


def test_two_masses_stays_in_msl_tube():
    ref = load_msl("TwoMasses")
    t_ref = ref["time"]
    res = _two_masses_sim().simulate(1.0, t_eval=np.unique(t_ref), rtol=1e-8, atol=1e-8)
    for name in ("mass1.T", "mass2.T"):
        assert_in_tube(name, t_ref, ref[name], np.interp(t_ref, res.t, res[name]))


def test_two_masses_tend_to_the_capacity_weighted_mean_temperature():
    # Energy is conserved, so C1·T1 + C2·T2 stays constant and both approach
    # (C1·T1 + C2·T2)/(C1 + C2) = 323.15 K; the difference decays at G·(1/C1 + 1/C2) = 4/3 1/s,
    # e.g. to 100 K·exp(−40) ≈ 4e-16 K after 30 s. 1e-6 K bounds the solver error.
    res = _two_masses_sim().simulate(30.0, rtol=1e-10, atol=1e-10)
    mean = (15.0 * 373.15 + 15.0 * 273.15) / 30.0
    np.testing.assert_allclose(15.0 * res["mass1.T"] + 15.0 * res["mass2.T"], 30.0 * mean, rtol=1e-12)
    assert res["mass1.T"][-1] == pytest.approx(mean, abs=1e-6)
    assert res["mass2.T"][-1] == pytest.approx(mean, abs=1e-6)
    np.testing.assert_allclose(res["mass1.T"] - res["mass2.T"],
                               100.0 * np.exp(-10.0 * (2 / 15.0) * res.t), atol=1e-6)


def test_heat_capacitor_stores_its_internal_energy():
    # Declared stored energy is C·T (internal energy from 0 K; see physlib.components.thermal).
    res = _two_masses_sim().simulate(1.0)
    np.testing.assert_allclose(res.stored_energy("mass1"), 15.0 * res["mass1.T"], rtol=1e-14)
    np.testing.assert_allclose(res.stored_energy(), 15.0 * (res["mass1.T"] + res["mass2.T"]),
                               rtol=1e-14)


def test_body_cools_by_convection_exponentially():
    # C·T' = −Gc·(T − T_amb): T = T_amb + (T0 − T_amb)·exp(−Gc·t/C). At rtol 1e-10 on ~300 K
    # the local error is a few 1e-8 K per step and the global one ~1e-7 K; bound 1e-6 K.
    C, Gc, T0, T_amb = 200.0, 4.0, 350.0, 290.0
    m = Model("cooling")
    body = m.add(HeatCapacitor("body", C=C, T0=T0))
    air = m.add(Convection("air", Gc=Gc))
    ambient = m.add(FixedTemperature("ambient", T=T_amb))
    thermometer = m.add(TemperatureSensor("thermometer"))
    m.connect(body.port, air.port_a, thermometer.port)
    m.connect(air.port_b, ambient.port)
    res = m.compile().simulate(100.0, rtol=1e-10, atol=1e-10)
    expected = T_amb + (T0 - T_amb) * np.exp(-Gc * res.t / C)
    assert np.max(np.abs(res["thermometer.T"] - expected)) < 1e-6


def test_body_radiation_follows_stefan_boltzmann():
    # Between two fixed temperatures the radiative flow is sigma·Gr·(Ta⁴ − Tb⁴), read by a
    # heat flow sensor in series. Algebraic: 1e-12 relative.
    Gr, Ta, Tb = 0.3, 800.0, 300.0
    m = Model("radiation")
    hot = m.add(FixedTemperature("hot", T=Ta))
    cold = m.add(FixedTemperature("cold", T=Tb))
    gap = m.add(BodyRadiation("gap", Gr=Gr))
    meter = m.add(HeatFlowSensor("meter"))
    m.connect(hot.port, gap.port_a)
    m.connect(gap.port_b, meter.port_a)
    m.connect(meter.port_b, cold.port)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    assert res["meter.Q"][0] == pytest.approx(STEFAN_BOLTZMANN * Gr * (Ta**4 - Tb**4), rel=1e-12)


def test_heat_flow_source_warms_a_capacitor_linearly():
    # A 50 W step at t = 1 s into C = 25 J/K: T = T0 + 2 K/s·(t − 1) afterwards.
    m = Model("heater")
    heater = m.add(HeatFlowSource("heater", Q=Step(height=50.0, t0=1.0)))
    block = m.add(HeatCapacitor("block", C=25.0, T0=300.0))
    m.connect(heater.port, block.port)
    res = m.compile().simulate(3.0, t_eval=[0.5, 1.0, 2.0, 3.0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res["block.T"], [300.0, 300.0, 302.0, 304.0], rtol=1e-10)


@pytest.mark.parametrize("cls, values, bad", [
    (HeatCapacitor, {"C": 0.0}, "C"), (HeatCapacitor, {"C": 1.0, "T0": -5.0}, "T0"),
    (ThermalConductor, {"G": -1.0}, "G"), (Convection, {"Gc": 0.0}, "Gc"),
    (BodyRadiation, {"Gr": -0.1}, "Gr"), (FixedTemperature, {"T": 0.0}, "T"),
])
def test_non_physical_thermal_parameters_are_rejected(cls, values, bad):
    with pytest.raises(ParameterError, match=f"parameter {bad} of X1"):
        cls("X1", **values)
