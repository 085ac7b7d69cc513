"""A hand-written rule agent on the Aurora-style environment (rate control): raise the rate while
the latency ratio stays near 1 and nothing is lost, cut it when the queue builds (latency
gradient > 0 or latency ratio > 1.25) — a tiny delay-based controller written as a policy over the
observation. Compare its return with the random agent's.

    python examples/gym/rule_agent.py [--seconds 10] [--trace const:12]
"""

from __future__ import annotations

import argparse

import numpy as np
from accelbrake.gym import CongestionEnv


def policy(obs: np.ndarray, n_features: int) -> np.ndarray:
    gradient, ratio, _sending = obs[-n_features:]  # the latest MI (aurora features)
    if ratio > 1.25 or gradient > 0.1:
        return np.array([-1.0], dtype=np.float32)  # rate ÷ 1.25
    return np.array([0.4], dtype=np.float32)  # rate × 1.1


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--trace", default="const:12")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    env = CongestionEnv("aurora", trace=a.trace, delay_ms=50, episode_s=a.seconds)
    obs, info = env.reset(seed=a.seed)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs, len(env.features)))
        total += reward
        done = terminated or truncated
    print(f"rule agent: return {total:.1f} over {a.seconds:g} s")
    flow = env.result().summary["flows"][0]
    print(
        f"  throughput {flow['throughput_mbps']:.2f} Mbit/s, per-packet delay p95 "
        f"{flow['per_packet_delay_ms']['p95']:.1f} ms, drops {flow['drops']}"
    )
    return total


if __name__ == "__main__":
    main()
