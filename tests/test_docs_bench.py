"""The performance page's figures still describe what the simulator does.

The speed and memory tables of docs/performance.md are rendered from the benchmark results committed
in ``docs/bench/*.json`` (``make bench``, ``scripts/bench_curve.py``, ``scripts/htsim_compare.py``,
``scripts/ns3_compare.py``). Times cannot be checked in a test, but what was timed can: every row
records the simulator's deterministic output for its scenario (events popped, data packets, hop
departures, utilisation). This test runs each scenario again and fails when the workload has moved,
because a speed figure measured on a different workload is stale.

A row stays valid while its workload is within :data:`WORKLOAD_TOL` (events, hop departures) and its
utilisation within :data:`UTIL_TOL` of what was timed: a cost per packet or a ratio against ns-3 or
htsim does not move measurably for a workload that differs by a fraction of a percent, whereas a
change of behaviour (a scheme that now sends twice as much, a queue that drops differently) moves
these by far more. When it fails, rerun the command named in the message and commit ``docs/bench/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "docs" / "bench"

WORKLOAD_TOL = 0.01
UTIL_TOL = 0.01
# Rows whose release-build run takes longer than this (as recorded) are left to `make bench` itself,
# so that this test stays a few seconds: the 10 Gbit/s dumbbells and the hour-long run.
MAX_RECORDED_WALL_S = 1.0

RERUN = {
    "results.json": "make bench (scripts/bench.py --long)",
    "curve.json": "python3 scripts/bench_curve.py",
    "htsim.json": "python3 scripts/htsim_compare.py --htsim-src DIR --only {key}",
    "ns3.json": "python scripts/ns3_compare.py --only {key}",
}


def _rows() -> list[tuple[str, str, dict]]:
    """(bench file, scenario file, the recorded output) for every row this test checks."""
    rows = []
    res = json.loads((BENCH / "results.json").read_text(encoding="utf-8"))
    for r in res["runs"]:
        rows.append(("results.json", r["scenario"], r))
    for r in json.loads((BENCH / "curve.json").read_text(encoding="utf-8"))["runs"]:
        rows.append(("curve.json", f"docs/bench/{r['key']}.json", r))
    for r in json.loads((BENCH / "htsim.json").read_text(encoding="utf-8"))["rows"]:
        rows.append(("htsim.json", r["ours_argv"][-1], r["ours"]))
    for r in json.loads((BENCH / "ns3.json").read_text(encoding="utf-8")):
        rows.append(("ns3.json", f"docs/bench/{r['key']}.json", r["ours"]))
    return [row for row in rows if row[2]["wall_s"] <= MAX_RECORDED_WALL_S]


ROWS = _rows()


@cache
def _run(scenario: str, duration_s: float | None) -> dict:
    cmd = [sys.executable, "-m", "accelbrake", "run", "--scenario", scenario, "--json"]
    if duration_s is not None:
        cmd += ["--duration", repr(duration_s)]
    proc = subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"{scenario}: {proc.stderr.strip()}"
    return json.loads(proc.stdout)


def test_the_check_covers_every_bench_file_and_most_rows():
    files = {f for f, _, _ in ROWS}
    assert files == set(RERUN), f"bench files without a checked row: {set(RERUN) - files}"
    assert len(ROWS) >= 20, f"only {len(ROWS)} rows are cheap enough to check"


@pytest.mark.parametrize(
    ("bench", "scenario", "recorded"), ROWS, ids=[f"{f}:{Path(s).stem}" for f, s, _ in ROWS]
)
def test_recorded_workload_is_what_the_simulator_runs_now(bench, scenario, recorded):
    # The ns-3 comparison sets its own simulated time per row (scripts/ns3_compare.py); the others
    # time the scenario file as it is.
    now = _run(scenario, recorded["simulated_s"] if bench == "ns3.json" else None)
    key = Path(scenario).stem
    hint = f"docs/bench/{bench}: {key} is stale: rerun `{RERUN[bench].format(key=key)}`"
    assert now["duration_s"] == pytest.approx(recorded["simulated_s"]), (
        f"{hint} (it timed {recorded['simulated_s']} simulated s, the scenario now runs {now['duration_s']})"
    )
    for key in ("events", "hop_departures"):
        got, then = now[key], recorded[key]
        assert abs(got - then) <= WORKLOAD_TOL * then, (
            f"{hint} ({key}: {then:,} timed, {got:,} now, {100 * (got / then - 1):+.2f} %)"
        )
    assert abs(now["utilization"] - recorded["utilization"]) <= UTIL_TOL, (
        f"{hint} (utilisation {recorded['utilization']:.4f} timed, {now['utilization']:.4f} now)"
    )


def test_python_controller_figures_were_timed_on_todays_run():
    # scripts/pycc_overhead.py records the ACK count of its run (deterministic) beside the times.
    import accelbrake

    rec = json.loads((BENCH / "pycc.json").read_text(encoding="utf-8"))
    assert rec["identical"], "docs/bench/pycc.json: the Python port gave a different run"
    out = accelbrake.simulate(accelbrake.build_scenario("newreno", **rec["setup"]))
    acks = out.summary["flows"][0]["packets_sent"]
    assert abs(acks - rec["acks"]) <= WORKLOAD_TOL * rec["acks"], (
        f"docs/bench/pycc.json is stale ({rec['acks']:,} ACKs timed, {acks:,} now): "
        "rerun `python scripts/pycc_overhead.py --out docs/bench`"
    )
