"""A random agent on the Aurora-style environment: one episode, its return and the episode's
summary table (the same tables as `accelbrake run`).

    python examples/gym/random_agent.py [--preset aurora|orca] [--seconds 10] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np
from accelbrake.gym import CongestionEnv


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="aurora")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    env = CongestionEnv(a.preset, trace="const:12", delay_ms=50, episode_s=a.seconds)
    env.action_space.seed(a.seed)
    obs, info = env.reset(seed=a.seed)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total += reward
        done = terminated or truncated
    print(f"random agent ({a.preset}): return {total:.1f} over {a.seconds:g} s")
    flow = env.result().summary["flows"][0]
    print(
        f"  throughput {flow['throughput_mbps']:.2f} Mbit/s, per-packet delay p95 "
        f"{flow['per_packet_delay_ms']['p95']:.1f} ms, drops {flow['drops']}"
    )
    return total


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
