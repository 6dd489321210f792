"""A ball dropped from 10 m onto a rigid floor with restitution 0.9.
=================================================================

Each impact reverses and scales the ball's velocity (Newton's law, applied by energy-
minimizing projection); the bounces shorten geometrically and accumulate near 27.13 s, after
which the ball rests on the floor. Run: python examples/bouncing_ball.py (saves bouncing_ball.png).
"""
import sys

from physlib import Model
from physlib.components.translational import Fixed, Force, HardStop, Mass

G = 9.81


def build(h0: float = 10.0, e: float = 0.9, m: float = 1.0) -> Model:
    model = Model("bouncing_ball")
    floor = model.add(Fixed("floor"))
    ball = model.add(Mass("ball", m=m, s0=h0))
    gravity = model.add(Force("gravity", f=-m * G))
    stop = model.add(HardStop("floor_contact", e=e, s_rel_start=h0, v_rest=1e-4))
    model.connect(floor.flange, stop.flange_a)
    model.connect(stop.flange_b, ball.flange_a)
    model.connect(ball.flange_b, gravity.flange)
    return model


def main(quick: bool = False, plot_path: str | None = "bouncing_ball.png"):
    sim = build().compile()
    res = sim.simulate(5.0 if quick else 30.0, rtol=1e-10, atol=1e-12)
    impacts = [ev.t for ev in res.events if ev.after == {"contact": 2}]
    print(f"{len(impacts)} bounces; first two at {impacts[0]:.7f} s and {impacts[1]:.7f} s")
    print(f"height at the end: {res['ball.s'][-1]:.3e} m, mode {res['floor_contact.contact'][-1]:.0f}")
    if plot_path:
        fig = res.plot("ball.s", "ball.v")
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
