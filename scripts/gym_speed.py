"""Environment steps per second of ``accelbrake.gym`` on a 12 Mbit/s link with 100 ms RTT and
50 ms monitor intervals: one environment, and ``gymnasium.vector.SyncVectorEnv`` of N.

    .venv/bin/python scripts/gym_speed.py [--preset aurora] [--steps 2000] [--vec 8]

Random actions (seeded). Episodes of 30 s simulated (600 steps) reset as they end. Not a test.

Side by side with Aurora's own environment (PCC-RL's ``SimulatedNetworkEnv``, not part of this
repository; point ``--aurora-src`` at a checkout's ``src/``):

    .venv/bin/python scripts/gym_speed.py --aurora-src PCC-RL/src \\
        --aurora-python PCC-VENV/bin/python --repeats 3

PCC-RL runs in a subprocess of ``--aurora-python`` (an interpreter with its old ``gym`` API and
numpy; it needs no accelbrake), started once per measurement and interleaved with ours so both
see the same machine load. Its link is set to ours: two ``Link``s of 1000 packets/s (12 Mbit/s
of 1500 B packets), 50 ms each (data over the first, ACKs over the second: RTT 100 ms plus the
first link's queueing), a 100-packet queue, no random loss, latency noise as the revision's
module constant has it; the monitor interval (``run_dur``, which its ``step`` sets to half the
last MI's mean RTT) is forced to 50 ms before every step; episodes of 600 steps (30 s) as ours;
start rate 500 packets/s (6 Mbit/s) as ours. Actions: ours ``a`` in [-1, 1] is
``x = action_scale · a``; PCC-RL is given ``x`` itself, so that with its ``DELTA_SCALE`` 0.025
both change the rate by the same factor. PCC-RL has no vector environment: N independent
environments are stepped one after another in a loop.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

LINK_PPS = 1000.0  # 12 Mbit/s in 1500-byte packets (PCC-RL's units)
ONE_WAY_S = 0.05  # per PCC-RL link; data over one, ACKs over the other: RTT 100 ms
BUFFER_PACKETS = 100
MI_S = 0.05
EPISODE_STEPS = 600  # 30 s of 50 ms MIs
START_PPS = 500.0  # 6 Mbit/s, as initial_rate_mbps below
ACTION_SCALE = 10.0  # accelbrake.gym's aurora preset: x = 10·a


def _policy(name: str):
    if name == "zero":
        return lambda rng, n: np.zeros((n, 1), np.float32)
    return lambda rng, n: rng.uniform(-1, 1, size=(n, 1)).astype(np.float32)


POLICIES = {
    "zero": "zero action (rate held at 6 Mbit/s, half the link)",
    "random": "random actions in [-1, 1]",
}
# With --aurora-src only: random actions with our rate kept within PCC-RL's own rate bounds
# (network_sim.py's MIN_RATE/MAX_RATE, 40..1000 packets/s = 0.48..12 Mbit/s), so that both
# simulate the same range of packets per step (ours otherwise lets the rate reach 1000 Mbit/s).
BOUNDED = "random-bounded"
BOUNDED_MBPS = (0.48, 12.0)
SIDE_BY_SIDE = {**POLICIES, BOUNDED: "random actions, rate bounded to 0.48-12 Mbit/s as PCC-RL's"}


# -- ours ------------------------------------------------------------------------------------------


def _our_kwargs(a: argparse.Namespace, policy: str) -> dict:
    bounds = {"rate_bounds_mbps": BOUNDED_MBPS} if policy == BOUNDED else {}
    return dict(
        **bounds,
        preset=a.preset,
        trace="const:12",
        delay_ms=50.0,
        buffer_packets=BUFFER_PACKETS,
        mi_ms=MI_S * 1e3,
        episode_s=30.0,
        initial_rate_mbps=6.0,
        competing=[(a.competing, 1)] if a.competing else [],
    )


def ours_single(a: argparse.Namespace, policy: str) -> tuple[float, float]:
    """(steps/s, mean packets sent per step) of one environment."""
    from accelbrake.gym import MSS, CongestionEnv

    pol, rng = _policy(policy), np.random.default_rng(0)
    env = CongestionEnv(**_our_kwargs(a, policy))
    env.reset(seed=0)
    sent_bytes = 0.0
    t0 = time.perf_counter()
    for _ in range(a.steps):
        _, _, term, trunc, info = env.step(pol(rng, 1)[0])
        sent_bytes += info["send_mbps"] * 1e6 / 8 * MI_S
        if term or trunc:
            env.reset()
    dt = time.perf_counter() - t0
    return a.steps / dt, sent_bytes / MSS / a.steps


def ours_vec(a: argparse.Namespace, policy: str) -> float:
    """Env-steps/s of ``SyncVectorEnv`` × ``a.vec``."""
    from accelbrake.gym import make_vec

    pol, rng = _policy(policy), np.random.default_rng(0)
    venv = make_vec(a.vec, **_our_kwargs(a, policy))
    venv.reset(seed=0)
    n = max(a.steps // a.vec, 1)
    t0 = time.perf_counter()
    for _ in range(n):
        venv.step(pol(rng, a.vec))
    vec = n * a.vec / (time.perf_counter() - t0)
    venv.close()
    return vec


# -- PCC-RL (runs under --aurora-python; imports nothing of accelbrake) ----------------------------


def aurora_worker(a: argparse.Namespace) -> None:
    """Time PCC-RL's ``SimulatedNetworkEnv`` on our link; print one JSON line."""
    import contextlib
    import io
    import os
    import tempfile

    sys.argv = sys.argv[:1]  # PCC-RL reads its options from sys.argv at import
    sys.path.insert(0, os.path.join(a.aurora_src, "gym"))
    sys.path.insert(0, a.aurora_src)
    os.chdir(tempfile.mkdtemp(prefix="pcc-rl-"))  # its reset() dumps event logs into the cwd
    quiet = io.StringIO()  # its constructor and reset() print
    with contextlib.redirect_stdout(quiet):
        import network_sim as ns

    def our_link(env):
        def create():
            env.links = [ns.Link(LINK_PPS, ONE_WAY_S, BUFFER_PACKETS, 0.0) for _ in range(2)]
            path = [env.links[0], env.links[1]]
            env.senders = [ns.Sender(START_PPS, path, 0, env.features, history_len=env.history_len)]
            env.run_dur = MI_S

        env.create_new_links_and_senders = create
        env.max_steps = EPISODE_STEPS
        return env

    def make():
        with contextlib.redirect_stdout(quiet):
            env = our_link(ns.SimulatedNetworkEnv())
            env.reset()
        return env

    def step(env, x):
        env.run_dur = MI_S  # its step() sets run_dur to half the MI's mean RTT; forced to 50 ms
        _, _, done, _ = env.step(x)
        sent = env.senders[0].sent
        if done:
            with contextlib.redirect_stdout(quiet):
                env.reset()
        quiet.seek(0)
        quiet.truncate()
        return sent

    pol, rng = _policy(a.policy), np.random.default_rng(0)
    n_env = a.vec if a.mode == "vec" else 1
    envs = [make() for _ in range(n_env)]
    n = max(a.steps // n_env, 1)
    sent = 0
    t0 = time.perf_counter()
    for _ in range(n):
        acts = pol(rng, n_env) * ACTION_SCALE
        for i, env in enumerate(envs):
            sent += step(env, [float(acts[i, 0])])
    dt = time.perf_counter() - t0
    info = {
        "steps_per_s": n * n_env / dt,
        "packets_per_step": sent / (n * n_env),
        "delta_scale": ns.config.DELTA_SCALE,
        "latency_noise": ns.USE_LATENCY_NOISE,
        "rate_bounds_pps": [ns.MIN_RATE, ns.MAX_RATE],
    }
    print(json.dumps(info))


def aurora_run(a: argparse.Namespace, policy: str, mode: str) -> dict:
    cmd = [a.aurora_python or sys.executable, __file__, "--aurora-worker", "--aurora-src", a.aurora_src]
    cmd += ["--policy", policy, "--mode", mode, "--steps", str(a.steps), "--vec", str(a.vec)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"--aurora-src {a.aurora_src}: the PCC-RL worker failed ({' '.join(cmd)}):\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="aurora")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--vec", type=int, default=8)
    ap.add_argument("--competing", default="", help="e.g. cubic: one competing flow of that scheme")
    ap.add_argument("--aurora-src", default="", help="a PCC-RL checkout's src/: time its environment too")
    ap.add_argument("--aurora-python", default="", help="the interpreter for PCC-RL (default: this one)")
    ap.add_argument("--repeats", type=int, default=1, help="with --aurora-src: rounds, median reported")
    ap.add_argument("--aurora-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--policy", choices=list(SIDE_BY_SIDE), default="zero", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=["single", "vec"], default="single", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.aurora_worker:
        aurora_worker(a)
        return
    if a.aurora_src:
        side_by_side(a)
        return
    print(f"{a.preset}, 12 Mbit/s, RTT 100 ms, MI 50 ms{', + one ' + a.competing if a.competing else ''}")
    for key, name in POLICIES.items():
        single, _ = ours_single(a, key)
        vec = ours_vec(a, key)
        print(f"{name}:")
        print(f"  single env:          {single:8.0f} steps/s")
        print(f"  SyncVectorEnv x{a.vec:<3d}   {vec:8.0f} env-steps/s ({vec / a.vec:.0f} vector steps/s)")


def side_by_side(a: argparse.Namespace) -> None:
    """Both environments, interleaved measurement by measurement, ``a.repeats`` rounds."""
    rows: dict[tuple[str, str], list[float]] = {}
    pkts: dict[tuple[str, str], list[float]] = {}
    meta: dict = {}
    for r in range(a.repeats):
        for key in SIDE_BY_SIDE:
            s, p = ours_single(a, key)
            rows.setdefault((key, "ours single"), []).append(s)
            pkts.setdefault((key, "ours"), []).append(p)
            m = aurora_run(a, key, "single")
            rows.setdefault((key, "pcc single"), []).append(m["steps_per_s"])
            pkts.setdefault((key, "pcc"), []).append(m["packets_per_step"])
            meta = m
            rows.setdefault((key, "ours vec"), []).append(ours_vec(a, key))
            rows.setdefault((key, "pcc vec"), []).append(aurora_run(a, key, "vec")["steps_per_s"])
        print(f"round {r + 1}/{a.repeats} done", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rows.items()}
    mp = {k: statistics.median(v) for k, v in pkts.items()}
    print(
        f"{a.preset} vs PCC-RL SimulatedNetworkEnv: 12 Mbit/s, RTT 100 ms, MI 50 ms, 100-packet buffer; "
        f"{a.steps} steps per measurement, median of {a.repeats} interleaved rounds"
    )
    print(
        f"PCC-RL: DELTA_SCALE {meta['delta_scale']}, latency noise {meta['latency_noise']}, "
        f"rate bounds {meta['rate_bounds_pps']} packets/s"
    )
    print()
    print(
        f"| policy | accelbrake single | PCC-RL single | accelbrake SyncVectorEnv x{a.vec} | "
        f"PCC-RL {a.vec} envs in a loop | packets sent per step (accelbrake / PCC-RL) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for key, name in SIDE_BY_SIDE.items():
        print(
            f"| {name} | {med[(key, 'ours single')]:.0f} | {med[(key, 'pcc single')]:.0f} | "
            f"{med[(key, 'ours vec')]:.0f} | {med[(key, 'pcc vec')]:.0f} | "
            f"{mp[(key, 'ours')]:.0f} / {mp[(key, 'pcc')]:.0f} |"
        )


if __name__ == "__main__":
    main()
