"""Environment steps per second of ``accelbrake.gym`` on a 12 Mbit/s link with 100 ms RTT and
50 ms monitor intervals: one environment, and ``gymnasium.vector.SyncVectorEnv`` of N.

    .venv/bin/python scripts/gym_speed.py [--preset aurora] [--steps 2000] [--vec 8]

Random actions (seeded). Episodes of 30 s simulated (600 steps) reset as they end. Not a test.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from accelbrake.gym import CongestionEnv, make_vec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="aurora")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--vec", type=int, default=8)
    ap.add_argument("--competing", default="", help="e.g. cubic: one competing flow of that scheme")
    a = ap.parse_args()
    kw = dict(
        preset=a.preset,
        trace="const:12",
        delay_ms=50.0,
        buffer_packets=100,
        mi_ms=50.0,
        episode_s=30.0,
        initial_rate_mbps=6.0,
        competing=[(a.competing, 1)] if a.competing else [],
    )
    policies = {
        "zero action (rate held at 6 Mbit/s, half the link)": lambda rng, n: np.zeros((n, 1), np.float32),
        "random actions in [-1, 1]": lambda rng, n: rng.uniform(-1, 1, size=(n, 1)).astype(np.float32),
    }
    print(f"{a.preset}, 12 Mbit/s, RTT 100 ms, MI 50 ms{', + one ' + a.competing if a.competing else ''}")
    for name, policy in policies.items():
        rng = np.random.default_rng(0)
        env = CongestionEnv(**kw)
        env.reset(seed=0)
        t0 = time.perf_counter()
        for _ in range(a.steps):
            _, _, term, trunc, _ = env.step(policy(rng, 1)[0])
            if term or trunc:
                env.reset()
        single = a.steps / (time.perf_counter() - t0)
        venv = make_vec(a.vec, **kw)
        venv.reset(seed=0)
        n = max(a.steps // a.vec, 1)
        t0 = time.perf_counter()
        for _ in range(n):
            venv.step(policy(rng, a.vec))
        vec = n * a.vec / (time.perf_counter() - t0)
        venv.close()
        print(f"{name}:")
        print(f"  single env:          {single:8.0f} steps/s")
        print(f"  SyncVectorEnv x{a.vec:<3d}   {vec:8.0f} env-steps/s ({vec / a.vec:.0f} vector steps/s)")


if __name__ == "__main__":
    main()
