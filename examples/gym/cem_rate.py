"""Learn a rate controller with the cross-entropy method (numpy only) on the vectorised
Aurora-style environment, then compare it with Cubic, BBR and ABC on cellular traces it never saw.

    python examples/gym/cem_rate.py [--generations 30] [--population 48] [--seeds 2] [--traces DIR]

The policy is linear in the latest monitor interval's features, squashed into the action range:
``a = tanh(w · [latency_gradient, latency_ratio − 1, sending_ratio − 1] + b)`` (4 numbers). The
cross-entropy method (Rubinstein & Kroese, *The Cross-Entropy Method*, 2004) keeps a Gaussian over
those numbers, draws a population, scores each candidate by its mean reward per step over
``--seeds`` episodes, and refits the Gaussian to the best fifth. One generation is one call to
``reset`` and one ``step`` per monitor interval of a single vector environment with
``population × seeds`` simulations (each simulation runs its own candidate), so training costs
Python work per step, not per simulation.

Training links are constant-rate and randomised per episode (2-24 Mbit/s, 10-60 ms one way,
20-300 packet buffers); the evaluation uses the bundled cellular traces (Verizon, T-Mobile, AT&T
LTE), which training never sees. The starting policy (all zeros: the rate stays at its initial
1 Mbit/s) is scored on the same held-out episodes as the learned one.

Why not PPO here: the cross-entropy method needs nothing beyond numpy and learns this 4-parameter
policy in seconds; ``train_ppo.py`` shows Stable-Baselines3 (which pulls in PyTorch, a download
of several hundred MB).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import accelbrake.gym  # noqa: F401  (registers the environment ids)
import gymnasium
import numpy as np

#: Training distribution: constant links drawn per episode.
TRAIN = dict(
    trace="const:12",
    delay_ms=30.0,
    buffer_packets=100,
    episode_s=5.0,
    randomize={"mbps": (2.0, 24.0), "delay_ms": (10.0, 60.0), "buffer_packets": (20, 300)},
)
#: Held-out cellular traces (uplink and downlink of drives and walks in three US networks).
HELD_OUT = ("Verizon-LTE-short.up", "TMobile-LTE-short.up", "ATT-LTE-driving.up", "Verizon-LTE-short.down")
N_PARAMS = 4


def features(obs: np.ndarray) -> np.ndarray:
    """The policy's inputs from Aurora observations (rows of 10 MIs × 3 features, oldest first)."""
    last = obs[:, -3:].astype(np.float64)
    return np.stack([last[:, 0], last[:, 1] - 1.0, last[:, 2] - 1.0], axis=1)


def act(params: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Actions of one parameter vector per row of ``obs`` (``params``: (N, 4))."""
    x = features(obs)
    return np.tanh(np.sum(params[:, :3] * x, axis=1) + params[:, 3])[:, None]


def train(
    generations: int = 30,
    population: int = 48,
    seeds: int = 2,
    elite_frac: float = 0.2,
    kw: dict | None = None,
    seed: int = 0,
    log=print,
) -> tuple[np.ndarray, list[float], int]:
    """Cross-entropy method from a zero mean; returns the final mean, the elite mean score of
    each generation, and the environment steps taken."""
    kw = dict(TRAIN if kw is None else kw)
    rng = np.random.default_rng(seed)
    mean, std = np.zeros(N_PARAMS), np.ones(N_PARAMS)
    n_elite = max(2, int(round(elite_frac * population)))
    history: list[float] = []
    env_steps = 0
    steps_per_episode = int(round(kw["episode_s"] / 0.05)) - 1
    for g in range(generations):
        cand = mean + std * rng.standard_normal((population, N_PARAMS))
        # Each candidate on `seeds` episodes: the same episodes for every candidate this generation.
        batch = np.repeat(cand, seeds, axis=0)
        base = int(rng.integers(0, 2**31 - 1))
        ep_seeds = [base + (i % seeds) for i in range(population * seeds)]
        scores = episode_rewards_seeded(batch, kw, ep_seeds).reshape(population, seeds).mean(axis=1)
        env_steps += population * seeds * steps_per_episode
        elite = cand[np.argsort(scores)[-n_elite:]]
        mean = elite.mean(axis=0)
        # A floor on the spread keeps the search from collapsing early (a common CEM safeguard).
        std = elite.std(axis=0) + 0.05
        history.append(float(np.sort(scores)[-n_elite:].mean()))
        log(f"generation {g + 1:>3}: elite mean reward/step {history[-1]:9.1f}  params {np.round(mean, 2)}")
    return mean, history, env_steps


def episode_rewards_seeded(params: np.ndarray, kw: dict, seeds: list[int]) -> np.ndarray:
    """Mean reward per step of one episode for each row of ``params`` (one vector environment,
    environment i seeded with ``seeds[i]``)."""
    n = len(params)
    env = gymnasium.make_vec(
        "accelbrake/Aurora-v0",
        num_envs=n,
        vectorization_mode="vector_entry_point",
        autoreset_mode="disabled",
        **kw,
    )
    obs, _ = env.reset(seed=seeds)
    total = np.zeros(n)
    steps = 0
    while True:
        obs, rew, _, trunc, _ = env.step(act(params, obs))
        total += rew
        steps += 1
        if trunc.all():
            break
    env.close()
    return total / steps


def score(params: np.ndarray, kw: dict, seeds: list[int]) -> float:
    """Mean reward per step of one policy over the episodes of ``seeds``."""
    return float(episode_rewards_seeded(np.tile(params, (len(seeds), 1)), kw, seeds).mean())


def compare_on_trace(
    params: np.ndarray, trace: str, delay_ms: float, buffer_packets: int, seconds: float
) -> list:
    """The learned policy and Cubic, BBR, ABC on one trace, each over the same stretch of it (the
    trace from its start: ``offset_ms`` 0, where a run's seed would otherwise draw the offset):
    throughput, the link's mean capacity over the run and p95 per-packet delay."""
    import accelbrake
    from accelbrake.gym import AGENT, CongestionEnv

    def pinned(scheme: str) -> dict:
        sc = accelbrake.build_scenario(
            scheme, trace=trace, delay_ms=delay_ms, buffer_packets=buffer_packets, duration_s=seconds, seed=1
        )
        for hop in sc["hops"]:
            if hop["link"].get("type") == "trace":
                hop["link"]["offset_ms"] = 0
        return sc

    rows = []
    sc = pinned("cubic")
    sc["flows"][0] = {k: v for k, v in sc["flows"][0].items() if k != "params"} | {"scheme": AGENT}
    env = CongestionEnv("aurora", scenario=sc, episode_s=seconds)
    obs, _ = env.reset(seed=1)
    done = False
    while not done:
        obs, _, term, trunc, _ = env.step(act(params[None, :], obs[None, :])[0])
        done = term or trunc
    summary = env.result().summary
    runs = [("learned (CEM)", summary)]
    for scheme in ("cubic", "bbr", "abc"):
        runs.append((scheme, accelbrake.simulate(pinned(scheme)).summary))
    for who, s in runs:
        f = s["flows"][0]
        rows.append(
            (who, f["throughput_mbps"], s["hops"][0]["capacity_mbps"], f["per_packet_delay_ms"]["p95"])
        )
    return rows


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int, default=30)
    ap.add_argument("--population", type=int, default=48)
    ap.add_argument("--seeds", type=int, default=2, help="episodes per candidate per generation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--traces", default="traces", help="folder with the bundled cellular traces")
    ap.add_argument("--eval-seconds", type=float, default=30.0)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    params, history, steps = train(a.generations, a.population, a.seeds, seed=a.seed)
    wall = time.perf_counter() - t0
    print(f"trained in {wall:.1f} s wall, {steps:,} environment steps ({steps / wall:,.0f} steps/s)")
    held = list(range(10_000, 10_016))
    start, learned = score(np.zeros(N_PARAMS), TRAIN, held), score(params, TRAIN, held)
    print(f"held-out constant links (16 episodes): start {start:.1f}, learned {learned:.1f} reward/step")
    folder = Path(a.traces)
    print(f"\n{'trace':<26} {'controller':<14} {'Mbit/s':>7} {'capacity':>8} {'p95 delay ms':>13}")
    for name in HELD_OUT:
        path = folder / name
        if not path.is_file():
            print(f"{name}: not found in {folder} (give --traces, the folder of the bundled traces)")
            continue
        for who, thr, cap, p95 in compare_on_trace(params, str(path), 20.0, 250, a.eval_seconds):
            print(f"{name:<26} {who:<14} {thr:>7.2f} {cap:>8.2f} {p95:>13.1f}")
    return {"params": params, "start": start, "learned": learned, "steps": steps, "wall_s": wall}


if __name__ == "__main__":
    main()
