#!/usr/bin/env python3
"""What a user waits for, side by side: the core alone, ``accelbrake.simulate()``, the whole
``accelbrake run`` process (without outputs, and with ``--out``), against ns-3's ``Simulator::Run()``
on the same dumbbell (96 Mbit/s, one Cubic flow, 60 s, 250-packet drop-tail buffer:
``docs/bench/cubic-96mbps.json``); optionally ``reproduce abc-table`` against its runs' own wall time.

    make bench-cli                                   # = python scripts/cli_speed.py
    python scripts/cli_speed.py --repeat 7 --reproduce
    python scripts/cli_speed.py --repeat 5 --reproduce-only   # only the reproduce ratio
    python scripts/cli_speed.py --repeat 1 --all              # only the `reproduce all` time

Each figure is the median wall time of ``--repeat`` runs (whole processes from outside, start-up
included, except ``simulate()``, timed inside one process, and ns-3, whose ``Simulator::Run()`` is
timed alone). ns-3 runs when its Python bindings are installed (``pip install ns3``, see
``scripts/ns3_compare.py``); otherwise its time recorded in ``docs/bench/ns3.json`` is shown and
marked as recorded. Goals: ``run`` with default outputs >= 50x ns-3, ``simulate()`` >= 100x,
``reproduce abc-table`` <= 1.5x its runs' wall time; the full ``reproduce all`` under 2
minutes on 2 cores. Each reproduce figure is printed with the load average: quote it. Not part of
``make test``: speed is measured, not asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
SCENARIO = ROOT / "docs" / "bench" / "cubic-96mbps.json"
KEY = "cubic-96mbps"


def _accelbrake() -> list[str]:
    exe = Path(sys.executable).parent / "accelbrake"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "accelbrake"]


def median_wall(cmd: list[str], repeat: int, cwd: Path | None = None) -> float:
    """Median wall seconds of ``cmd`` as a whole process (one warm-up run first)."""
    times = []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        if i:
            times.append(dt)
    return statistics.median(times)


def simulate_wall(repeat: int) -> float:
    """Median seconds of ``accelbrake.simulate()`` on the scenario, inside one process."""
    code = (
        "import json, statistics, sys, time, accelbrake\n"
        f"sc = json.load(open({str(SCENARIO)!r}))\n"
        "accelbrake.simulate(sc)\n"
        "t = []\n"
        f"for _ in range({repeat}):\n"
        "    t0 = time.perf_counter(); accelbrake.simulate(sc); t.append(time.perf_counter() - t0)\n"
        "print(statistics.median(t))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(r.stdout.strip().splitlines()[-1])


def core_wall(repeat: int) -> float | None:
    """Median wall seconds of the Rust ``run`` example (the core alone), or ``None`` without cargo."""
    if shutil.which("cargo") is None:
        return None
    import bench  # scripts/bench.py

    bench.build()
    exe = ROOT / "target" / "release" / "examples" / "run"
    return median_wall([str(exe), str(SCENARIO)], repeat)


def ns3_wall() -> tuple[float, str]:
    """ns-3's ``Simulator::Run()`` seconds: measured now if ns-3 is installed, else recorded."""
    try:
        import ns  # noqa: F401
    except ImportError:
        rows = json.loads((ROOT / "docs" / "bench" / "ns3.json").read_text(encoding="utf-8"))
        row = next(r for r in rows if r.get("key") == KEY)
        return float(row["ns3"]["wall_s"]), "recorded in docs/bench/ns3.json (ns-3 not installed here)"
    import ns3_compare

    return float(ns3_compare.run_ns3(KEY, 60.0)["wall_s"]), "measured now"


def reproduce_ratio(report: bool = True) -> tuple[float, float]:
    """``reproduce abc-table`` from scratch: (runs' wall s, whole command wall s); without its
    report with ``report=False`` (then nothing else runs beside the runs: their own wall time)."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        r = subprocess.run(
            [*_accelbrake(), "reproduce", "abc-table", "--out", tmp, "--no-progress"]
            + ["--no-report"] * (not report),
            capture_output=True,
            text=True,
            check=False,
        )
        total = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"reproduce failed:\n{r.stderr[-2000:]}")
    m = re.search(r"in ([0-9.]+) s wall", r.stdout + r.stderr)
    if not m:
        raise SystemExit("reproduce did not print its runs' wall time")
    return float(m.group(1)), total


#: The simulations of `reproduce abc-table` alone: its distinct scenarios on two worker processes
#: (started inside the timing), each returning only its summary; no files, tables or plots.
BARE_RUNS = """
import json, sys, time
from accelbrake._pool import run_tasks
from accelbrake._worker import run_summary
from accelbrake.papers import reproduction
from accelbrake.experiments.spec import parse_experiment

if __name__ == "__main__":
    exp = parse_experiment(reproduction("abc-table").document(False, None), source="cli_speed")
    scenarios = {}
    for p in exp.points():
        sc = exp.scenario(p)
        scenarios.setdefault(json.dumps(sc, sort_keys=True), sc)
    tasks = [(i, json.dumps(sc)) for i, sc in enumerate(scenarios.values())]
    t0 = time.perf_counter()
    run_tasks(tasks, run_summary, jobs=2, progress=False)
    print(len(tasks), time.perf_counter() - t0)
"""


def bare_runs_wall() -> tuple[int, float]:
    """(runs, wall s) of abc-table's simulations alone (:data:`BARE_RUNS`): the floor under both
    the sweep's own "runs" figure (which includes writing each run's files) and the command."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bare.py"
        script.write_text(BARE_RUNS)
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"bare runs failed:\n{r.stderr[-2000:]}")
    n, wall = r.stdout.split()
    return int(n), float(wall)


def reproduce_all_time(quick: bool = False, report: bool = True) -> tuple[float, str]:
    """``reproduce all`` (full unless ``quick``) from scratch in a temporary folder: (whole command
    wall s, its closing per-paper lines). Goal: under 2 minutes on 2 cores, full."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [*_accelbrake(), "reproduce", "all", "--out", tmp, "--no-progress"]
        cmd += ["--quick"] * quick + ["--no-report"] * (not report)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        total = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"reproduce all failed:\n{r.stderr[-2000:]}")
    papers = [line for line in r.stdout.splitlines() if re.match(r"^(abc|abe|c2tcp|proprate): ", line)]
    return total, "\n".join(papers)


def _load() -> str:
    """The load average (1, 5, 15 min) and CPUs, to print beside every figure."""
    import os

    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load unknown"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure (median; default 5)")
    ap.add_argument("--reproduce", action="store_true", help="also time reproduce abc-table (about a minute)")
    ap.add_argument(
        "--reproduce-only",
        action="store_true",
        help="only time reproduce abc-table, --repeat times (ratio per repeat, then the median)",
    )
    ap.add_argument(
        "--all",
        dest="all_",
        action="store_true",
        help="only time the full 'reproduce all' (2-4 minutes on 2 cores), --repeat times",
    )
    args = ap.parse_args()
    if args.reproduce_only:
        # Three denominators, from the most to the least inclusive: the runs as the command itself
        # reports them (the report's run plots are drawn meanwhile, on the same cores), the runs of
        # the same command without its report (each run simulated and its files written, nothing
        # else beside them), and the simulations alone (summaries only, no files).
        ratios, own_ratios, bare_ratios = [], [], []
        for i in range(args.repeat):
            n, bare = bare_runs_wall()
            own, _ = reproduce_ratio(report=False)
            runs, total = reproduce_ratio()
            ratios.append(total / runs)
            own_ratios.append(total / own)
            bare_ratios.append(total / bare)
            print(
                f"reproduce abc-table #{i + 1}: whole command {total:.2f} s; its runs {runs:.2f} s "
                f"({total / runs:.2f}×); the runs without the report {own:.2f} s ({total / own:.2f}×); "
                f"the {n} simulations alone {bare:.2f} s ({total / bare:.2f}×); goal <= 1.5×; {_load()}"
            )
        print(
            f"median over {len(ratios)}: {statistics.median(ratios):.2f}× the command's runs, "
            f"{statistics.median(own_ratios):.2f}× the runs without the report, "
            f"{statistics.median(bare_ratios):.2f}× the simulations alone"
        )
        return
    if args.all_:
        for i in range(args.repeat):
            total, papers = reproduce_all_time()
            print(f"reproduce all #{i + 1}: {total:.1f} s wall (goal < 120 s); {_load()}\n{papers}")
        return
    rows: list[tuple[str, float | None, str]] = []
    rows.append(("the core alone (`run` example)", core_wall(args.repeat), ""))
    rows.append(("`accelbrake.simulate()` in Python", simulate_wall(args.repeat), "inside one process"))
    ab = _accelbrake()
    rows.append(
        (
            "`accelbrake run --scenario … --no-packets`, whole process",
            median_wall([*ab, "run", "--scenario", str(SCENARIO), "--no-packets"], args.repeat),
            "",
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        rows.append(
            (
                "`accelbrake run --scenario … --out DIR` (defaults: Parquet), whole process",
                median_wall([*ab, "run", "--scenario", str(SCENARIO), "--out", str(out)], args.repeat),
                f"{sum(p.stat().st_size for p in out.iterdir()) / 1e6:.2f} MB written",
            )
        )
    ns3, how = ns3_wall()
    rows.append(("ns-3 3.44 `Simulator::Run()` alone, same dumbbell", ns3, how))
    print(f"{KEY}: 96 Mbit/s, one Cubic flow, 60 s simulated, 250-packet buffer; median of {args.repeat}\n")
    print("| what the user runs | wall s | ns-3 / this |  |\n|---|---|---|---|")
    for name, wall, note in rows:
        ratio = f"{ns3 / wall:.0f}×" if wall and "ns-3" not in name else ""
        print(f"| {name} | {'-' if wall is None else f'{wall:.3f}'} | {ratio} | {note} |")
    if args.reproduce:
        runs, total = reproduce_ratio()
        print(
            f"\nreproduce abc-table: runs {runs:.1f} s wall, whole command {total:.1f} s "
            f"({total / runs:.2f}× the runs; goal <= 1.5×)"
        )


if __name__ == "__main__":
    main()
