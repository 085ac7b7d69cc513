#!/usr/bin/env python3
"""Share of a process's CPU samples that fall on vector move instructions.

    python3 scripts/perf_moves.py -- target/release/examples/run --bench docs/bench/newreno-96mbps.json
    python3 scripts/perf_moves.py -- target/htsim/dumbbell 96 250 1 600 --ssthresh-pkts 1050

Records the command with ``perf record`` (cpu-clock, 15 kHz: this machine's virtual CPUs have no
hardware counters), annotates every sampled function with ``perf annotate --stdio``, and prints the
share of all annotated samples whose instruction is a 16/32/64-byte move (``movups``, ``movaps``,
``movdqu``, ``movdqa`` and their ``v`` forms): the copies of packets and event entries, and the
store-forwarding stalls that follow them (a sample lands on the instruction that waits), then the
functions with most such samples. A sampling profile with skid: a pointer to where copying costs,
not an exact count. Needs ``perf`` (linux-perf) and permission to record (root or
``perf_event_paranoid`` ≤ 1).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MOVE = re.compile(r"v?mov(ups|aps|dqu|dqa)\b")
LINE = re.compile(r"\s+([\d.]+) :\s+([0-9a-f]+):\s+(\S+)")
HEADER = re.compile(r"Percent \|\s*Source code & Disassembly of (\S+) for \S+ \((\d+) samples")


def shares(annotate: str) -> tuple[int, float, list[tuple[float, str]]]:
    """Total annotated samples, samples on vector moves, and (samples on moves, function) rows."""
    total, rows = 0, []
    name, n, on_moves = None, 0, 0.0
    for line in annotate.splitlines():
        h = HEADER.search(line)
        if h:
            if name is not None:
                rows.append((n * on_moves / 100, name))
            name, n, on_moves = None, int(h.group(2)), 0.0
            total += n
            continue
        m = LINE.match(line)
        if m:
            if MOVE.match(m.group(3)):
                on_moves += float(m.group(1))
            continue
        if name is None and line.strip().endswith(">:"):  # the function's first address line
            name = line.strip().split("<", 1)[-1].rstrip(">:")
    if n:
        rows.append((n * on_moves / 100, name or "?"))
    moves = sum(r[0] for r in rows)
    return total, moves, sorted(rows, reverse=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--freq", type=int, default=15000, help="samples per second (default 15000)")
    ap.add_argument("--top", type=int, default=8, help="functions listed (default 8)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARG ...]")
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("give the command to profile after --")
    if shutil.which("perf") is None:
        sys.exit("perf_moves: perf is not installed (Debian: linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        rec = ["perf", "record", "-F", str(args.freq), "-o", str(data), "--", *cmd]
        r = subprocess.run(rec, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"perf_moves: {' '.join(rec)} failed: {r.stderr.strip()[-400:]}")
        ann = subprocess.run(
            ["perf", "annotate", "-i", str(data), "--stdio"], capture_output=True, text=True, check=True
        ).stdout
    total, moves, rows = shares(ann)
    if not total:
        sys.exit("perf_moves: no annotated samples (a run too short, or no symbols)")
    print(f"{total} annotated samples; on vector moves: {moves:.0f} ({100 * moves / total:.1f} %)")
    for v, name in rows[: args.top]:
        print(f"  {100 * v / total:5.1f} %  {name[:110]}")


if __name__ == "__main__":
    main()
