#!/usr/bin/env python3
"""Whole-run benchmarks of the simulator core (not part of `make test`).

Runs each scenario of ``docs/bench/`` in a fresh process of the release ``run`` example (so peak
memory is that run's alone), ``--repeat`` times, and writes a markdown table and JSON to ``--out``:
wall time (best of the repeats), data packets per wall second, hop departures (data + ACK packets
crossing a hop) per wall second, events per wall second, and peak resident memory (the child's
own ``VmHWM``; ``getrusage``'s ``ru_maxrss`` of a child would include this Python process, because
Linux carries the pre-``execve`` high-water mark over).

    python3 scripts/bench.py                 # the five scenarios, 3 repeats each
    python3 scripts/bench.py --long          # also 10 vs 60 simulated minutes at 100 Mbit/s

Needs only Python 3.10+ and cargo (it builds the example itself unless ``--no-build``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "examples" / "run"

# (key = docs/bench/KEY.json, description)
SCENARIOS = [
    ("cubic-24mbps", "1 Cubic flow, 24 Mbit/s dumbbell, 100 ms RTT, 250 pkts, 60 s"),
    ("cubic-96mbps", "1 Cubic flow, 96 Mbit/s dumbbell, 100 ms RTT, 250 pkts, 60 s"),
    ("cubic16-24mbps", "16 Cubic flows, 24 Mbit/s dumbbell, 100 ms RTT, 250 pkts, 60 s"),
    ("abc-verizon", "ABC, Verizon-LTE-short.up, 100 ms RTT, 250 pkts, 140 s"),
    ("cubic10-1gbps", "10 Cubic flows, 1 Gbit/s dumbbell, 100 ms RTT, 8333 pkts (BDP), 60 s"),
]
LONG = "docs/bench/cubic-100mbps-long.json"


def vmhwm_kib() -> float:
    """Peak resident memory of this process (Linux ``VmHWM``), KiB; NaN elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1])
    except OSError:
        pass
    return float("nan")


def build() -> None:
    cmd = ["cargo", "build", "--release", "--quiet", "--example", "run", "-p", "accelbrake-sim"]
    subprocess.run(cmd, cwd=ROOT, check=True)


def run_one(path: str, duration_ms: float | None = None, sample_ms: float | None = None) -> dict:
    """One run in a fresh process: the example's statistics plus the child's peak RSS."""
    cmd = [str(BIN), "--bench", path]
    if duration_ms is not None:
        cmd += ["--duration-ms", str(duration_ms)]
    if sample_ms is not None:
        cmd += ["--sample-ms", str(sample_ms)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{path}: exit {proc.returncode}: {proc.stderr.strip()}")
    stats = json.loads(proc.stdout)
    stats["maxrss_mb"] = (stats.pop("peak_rss_kib") or float("nan")) / 1024
    return stats


def best_of(path: str, repeat: int, duration_ms: float | None = None) -> dict:
    runs = [run_one(path, duration_ms) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["wall_s"])
    best["wall_s_all"] = [r["wall_s"] for r in runs]
    best["maxrss_mb"] = max(r["maxrss_mb"] for r in runs)
    w = best["wall_s"]
    best["data_packets_per_s"] = best["data_packets"] / w
    best["hop_departures_per_s"] = best["hop_departures"] / w
    best["events_per_s"] = best["events"] / w
    return best


def markdown(rows: list[dict], long: dict | None) -> str:
    lines = [
        "| scenario | simulated s | data packets | events | wall s (best; all) | data packets / s | "
        "hop departures / s | events / s | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        walls = ", ".join(f"{x:.3f}" for x in r["wall_s_all"])
        per_s = ("data_packets_per_s", "hop_departures_per_s", "events_per_s")
        rates = " | ".join(f"{r[k] / 1e6:.2f} M" for k in per_s)
        lines.append(
            f"| {r['description']} | {r['simulated_s']:.0f} | {r['data_packets']:,} | {r['events']:,} | "
            f"{r['wall_s']:.3f} ({walls}) | {rates} | {r['maxrss_mb']:.1f} |"
        )
    if long:
        lines += [
            "",
            "Bounded memory, 1 Cubic flow on 100 Mbit/s, 100 ms RTT, 250 packets, per-packet records off:",
            "",
            "| simulated | time-series bin | data packets | wall s | peak RSS MB |",
            "|---|---|---|---|---|",
        ]
        for k, r in long.items():
            mins, sample = k.split(" / ")
            lines.append(
                f"| {mins} | {sample} | {r['data_packets']:,} | {r['wall_s']:.2f} | {r['maxrss_mb']:.1f} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--long", action="store_true", help="also 10 vs 60 simulated minutes at 100 Mbit/s")
    ap.add_argument("--only", help="comma-separated scenario keys")
    ap.add_argument("--out", default="docs/bench", help="directory for results.md / results.json")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not args.no_build:
        build()
    keys = set(args.only.split(",")) if args.only else None
    rows = []
    for key, desc in SCENARIOS:
        if keys and key not in keys:
            continue
        path = f"docs/bench/{key}.json"
        r = best_of(path, args.repeat)
        r.update(key=key, scenario=path, description=desc)
        rows.append(r)
        print(
            f"{key:16s} wall {r['wall_s']:.3f} s  {r['data_packets_per_s'] / 1e6:.2f} M data pkts/s  "
            f"{r['events_per_s'] / 1e6:.2f} M events/s  {r['maxrss_mb']:.1f} MB",
            flush=True,
        )
    long = None
    if args.long:
        long = {
            f"{m} min / {'60 s' if b else '100 ms'}": run_one(LONG, m * 60_000, b)
            for b in (60_000, None)
            for m in (10, 60)
        }
        for k, r in long.items():
            print(f"long run {k}: wall {r['wall_s']:.2f} s, {r['maxrss_mb']:.1f} MB", flush=True)
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()}
    (out / "results.json").write_text(json.dumps({"meta": meta, "runs": rows, "long": long}, indent=1) + "\n")
    (out / "results.md").write_text(markdown(rows, long))
    print(f"wrote {out / 'results.md'} and {out / 'results.json'}")


if __name__ == "__main__":
    main()
