"""Environment steps per second of the vectorised environment (``accelbrake.gym_vector``, built
with ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``) at several N, on one
thread and split over threads inside each call.

    .venv/bin/python scripts/gym_vector_speed.py [--preset aurora] [--n 1 8 64 256] [--threads 1 2]
        [--seconds 10] [--mbps 3.6] [--delay-ms 15] [--out docs/bench]

Default link: 300 packets/s (3.6 Mbit/s of 1500-byte packets) with 30 ms RTT (15 ms each way), a
100-packet drop-tail buffer, 50 ms monitor intervals and 10 s episodes (200 steps, autoreset as
they end); random actions in [-1, 1] (seeded, drawn in the timed loop). Each point steps for at
least ``--seconds`` of wall time after one warm-up episode and reports env-steps/s (N × vector
steps / wall time), the simulated data packets per env-step, and the 1-minute load average at its
end (the machine may be shared: figures taken under load are lower bounds). ``--single`` adds the
one-environment ``CongestionEnv`` (Python per step) for comparison; ``--out`` writes ``gym.json``
and ``gym.md`` there (the performance page includes the table). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import accelbrake.gym as abgym
import gymnasium
import numpy as np


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def measure(preset: str, n: int, threads: int, seconds: float, kw: dict) -> dict:
    env = gymnasium.make_vec(
        abgym.ENV_IDS[preset], num_envs=n, vectorization_mode="vector_entry_point", threads=threads, **kw
    )
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps_per_episode = int(round(kw["episode_s"] * 1e3 / kw["mi_ms"]))
    for _ in range(steps_per_episode):  # warm-up: one episode
        env.step(rng.uniform(-1, 1, size=(n, 1)))
    steps = 0
    sent = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(50):
            _, _, _, _, info = env.step(rng.uniform(-1, 1, size=(n, 1)))
            sent += float(np.sum(info["send_mbps"])) * 1e6 / 8 * kw["mi_ms"] / 1e3 / 1448
        steps += 50
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
    env.close()
    return {
        "n": n,
        "threads": threads,
        "wall_s": dt,
        "env_steps_per_s": steps * n / dt,
        "packets_per_step": sent / (steps * n),
        "load": _load(),
    }


def measure_single(preset: str, seconds: float, kw: dict) -> dict:
    env = abgym.CongestionEnv(preset, **kw)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _, _, term, trunc, _ = env.step(rng.uniform(-1, 1, size=1))
        steps += 1
        if term or trunc:
            env.reset()
    dt = time.perf_counter() - t0
    return {"steps_per_s": steps / dt, "wall_s": dt, "load": _load()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="aurora", choices=list(abgym.PRESETS))
    ap.add_argument("--n", type=int, nargs="+", default=[1, 8, 64, 256])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--mbps", type=float, default=3.6, help="link rate (default 300 packets/s)")
    ap.add_argument("--delay-ms", type=float, default=15.0, help="one-way delay (default: 30 ms RTT)")
    ap.add_argument("--single", action="store_true", help="also time one CongestionEnv")
    ap.add_argument("--out", type=Path, help="write gym.json and gym.md to this folder (docs/bench)")
    a = ap.parse_args()
    kw = dict(trace=f"const:{a.mbps:g}", delay_ms=a.delay_ms, buffer_packets=100, mi_ms=50.0, episode_s=10.0)
    print(
        f"preset {a.preset}; link {a.mbps:g} Mbit/s, RTT {2 * a.delay_ms:g} ms; 50 ms MIs, 10 s episodes; "
        f"cores {os.cpu_count()}; load before: {_load()}"
    )
    single = None
    rows = []
    if a.single:
        r = single = measure_single(a.preset, a.seconds, kw)
        print(
            f"single CongestionEnv: {r['steps_per_s']:,.0f} steps/s over {r['wall_s']:.1f} s "
            f"(load {r['load']})"
        )
    print(f"{'N':>5} {'threads':>7} {'env-steps/s':>12} {'pkts/step':>9} {'wall s':>7}  load (1/5/15 min)")
    for n in a.n:
        for t in a.threads:
            r = measure(a.preset, n, t, a.seconds, kw)
            rows.append(r)
            print(
                f"{n:>5} {t:>7} {r['env_steps_per_s']:>12,.0f} {r['packets_per_step']:>9.1f} "
                f"{r['wall_s']:>7.1f}  {r['load']}",
                flush=True,
            )
    if a.out:
        write(a.out, a, kw, single, rows)


def write(out: Path, a: argparse.Namespace, kw: dict, single: dict | None, rows: list[dict]) -> None:
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()}
    clean = [{k: v for k, v in r.items() if k != "load"} for r in rows]
    one = {k: v for k, v in single.items() if k != "load"} if single else None
    out.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta, "preset": a.preset, "setup": kw, "seconds": a.seconds, "single": one, "rows": clean}
    (out / "gym.json").write_text(json.dumps(data, indent=1) + "\n")
    lines = [
        f"Preset `{a.preset}`; {a.mbps:g} Mbit/s, {2 * a.delay_ms:g} ms RTT, {kw['buffer_packets']}-packet "
        f"buffer, {kw['mi_ms']:g} ms monitor intervals, {kw['episode_s']:g} s episodes, random actions; each "
        f"point steps for at least {a.seconds:g} s of wall time.",
        "",
        "| N | threads | env-steps/s | simulated packets per step |",
        "| --- | --- | --- | --- |",
    ]
    if one:
        lines.append(f"| 1 (`CongestionEnv`, Python per step) | — | {one['steps_per_s']:,.0f} | — |")
    for r in clean:
        lines.append(
            f"| {r['n']} | {r['threads']} | {r['env_steps_per_s']:,.0f} | {r['packets_per_step']:.1f} |"
        )
    (out / "gym.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'gym.json'} and {out / 'gym.md'}")


if __name__ == "__main__":
    main()
