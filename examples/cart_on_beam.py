"""Cart on a beam: a custom component, linearized at rest and trimmed.
===================================================================

A beam of inertia J turns about a horizontal pivot, driven by a torque; a cart of mass m rolls
without friction along it. The cart's centre of mass moves on a line at distance h below the
pivot axis; z is its position along the beam from the point under the pivot, theta the beam
angle. With the cart at (z·cos θ + h·sin θ, z·sin θ − h·cos θ), Lagrange's equations are

    m·(z'' + h·θ'') − m·z·θ'² + m·g·sin θ = 0
    m·h·z'' + (J + m·(z² + h²))·θ'' + 2·m·z·z'·θ' + m·g·(z·cos θ + h·sin θ) = τ

The parameters are those of the cart-on-beam example of the Altair Activate 2022.1 manual
("Extended Definitions", §7.1.2). Linearized at rest (m = 2, J = 10, g = 9.81, h = 1) the
poles are ±2.3402 and ±1.8747j: one unstable mode (cart runs off, beam tips) and one
oscillation. Holding the cart at z = 1 needs the torque m·g·z = 19.62 N·m.

Run: python examples/cart_on_beam.py   (saves cart_on_beam.png: Bode plot and a transient)
"""
import sys

import numpy as np
import sympy as sp

from physlib import Component, Model, Parameter, Port, Variable, der
from physlib.components.rotational import Torque
from physlib.domains import rotational

M, J, G, H = 2.0, 10.0, 9.81, 1.0


class CartOnBeam(Component):
    """A cart rolling on a beam that is driven at its pivot through ``flange``.

    Parameters: m [kg] cart mass; J [kg.m2] beam inertia; g [m/s2] gravity; h [m] distance of
    the cart's line of travel below the pivot; z0 [m] initial cart position.
    States: z [m], v [m/s] cart position and speed along the beam; theta [rad], w [rad/s]
    beam angle and speed.
    """

    flange = Port(rotational, "beam pivot")
    m = Parameter(M, unit="kg", description="cart mass", positive=True)
    J = Parameter(J, unit="kg.m2", description="beam inertia", positive=True)
    g = Parameter(G, unit="m/s2", description="gravity")
    h = Parameter(H, unit="m", description="distance of the cart's track below the pivot")
    z0 = Parameter(0.0, unit="m", description="initial cart position")
    z = Variable("m", "cart position along the beam")
    v = Variable("m/s", "cart speed along the beam")
    theta = Variable("rad", "beam angle")
    w = Variable("rad/s", "beam angular speed")

    def equations(self):
        m, J, g, h = self.m, self.J, self.g, self.h
        z, v, th, w = self.z, self.v, self.theta, self.w
        return [
            sp.Eq(der(z), v),
            sp.Eq(der(th), w),
            sp.Eq(self.flange.w, w),
            sp.Eq(m * (der(v) + h * der(w)) - m * z * w**2 + m * g * sp.sin(th), 0),
            sp.Eq(m * h * der(v) + (J + m * (z**2 + h**2)) * der(w) + 2 * m * z * v * w
                  + m * g * (z * sp.cos(th) + h * sp.sin(th)), self.flange.tau),
        ]

    def initial(self):
        return {self.z: self.z0}

    def energy(self):
        m, h, z, v, w, th = self.m, self.h, self.z, self.v, self.w, self.theta
        kinetic = m * (v**2 + 2 * h * v * w + (z**2 + h**2) * w**2) / 2 + self.J * w**2 / 2
        return kinetic + m * self.g * (z * sp.sin(th) - h * sp.cos(th))


def build() -> Model:
    model = Model("cart_on_beam")
    cart = model.add(CartOnBeam("cart"))
    tau1 = model.add(Torque("tau1", tau=0.0))
    model.connect(tau1.flange, cart.flange)
    return model


def main(quick: bool = False, plot_path: str | None = "cart_on_beam.png"):
    import matplotlib.pyplot as plt

    sim = build().compile()
    rest = sim.operating_point()
    lin = sim.linearize(["tau1.tau"], ["cart.z", "cart.theta"], at=rest)
    print("poles at rest:", np.array2string(lin.poles(), precision=4))

    trimmed = sim.trim(targets={"cart.z": 1.0}, free=["tau1.tau"])
    print(f"torque holding the cart at z = 1 m: {trimmed['tau1.tau']:.6f} N·m (m·g·z = {M * G:.2f})")
    lin_trim = sim.linearize(["tau1.tau"], ["cart.z"], at=trimmed)
    print("poles at z = 1:", np.array2string(lin_trim.poles(), precision=4))

    # Released from rest at z = 1 with the torque switched off: the beam tips, the cart runs.
    t_end = 0.5 if quick else 1.5
    res = sim.simulate(t_end, x0={"cart.z": 1.0})
    fig, axes = plt.subplots(3, 1, figsize=(7, 8))
    lin.bode(np.logspace(-2, 1, 200), ax=axes[:2])
    axes[2].plot(res.t, res["cart.z"], label="cart.z [m]")
    axes[2].plot(res.t, res["cart.theta"], label="cart.theta [rad]")
    axes[2].set_xlabel("time [s]")
    axes[2].legend(loc="best")
    axes[2].grid(True, alpha=0.3)
    fig.tight_layout()
    if plot_path:
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return lin, trimmed, res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
