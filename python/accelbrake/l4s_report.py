"""Per-flow tables of the L4S study and the ECT(1) clash (``experiments/l4s-study.toml``,
``experiments/l4s-clash.toml``): for every run of a finished sweep, each flow's scheme,
throughput, share of the link's delivered bytes, queueing delay (p50 / p95), retransmissions and
the run's bottleneck utilisation; and, where every run is one flow, a scheme × trace table of
utilisation and p95 queueing delay, the form of the ABC paper's headline table.

    python -m accelbrake.l4s_report results/l4s-clash [--markdown]

Reads only the sweep's ``runs/*.json`` files (docs/experiments.md), so it works on any sweep.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def load_runs(folder: Path) -> list[dict[str, Any]]:
    """The run records of a sweep's results folder, in a stable order (label, trace, seed)."""
    runs_dir = folder / "runs"
    if not runs_dir.is_dir():
        raise SystemExit(f"accelbrake: error: {folder}: no runs/ folder (run `accelbrake sweep` first)")
    runs = []
    for f in sorted(runs_dir.glob("*.json")):
        try:
            runs.append(json.loads(f.read_text()))
        except (OSError, json.JSONDecodeError) as e:
            raise SystemExit(f"accelbrake: error: {f}: not a run record ({e})") from None
    if not runs:
        raise SystemExit(f"accelbrake: error: {runs_dir}: no run records")
    runs.sort(key=lambda r: (str(r["point"]["scheme"]), str(r["point"]["trace"]), r["seed"]))
    return runs


def flow_rows(runs: list[dict[str, Any]]) -> list[list[str]]:
    """One row per flow of every run."""
    rows = []
    for r in runs:
        s = r["summary"]
        total = sum(f["throughput_mbps"] for f in s["flows"]) or 1.0
        for f in s["flows"]:
            q = f["queueing_delay_ms"]
            rows.append(
                [
                    str(r["point"]["scheme"]),
                    str(r["point"]["trace"]),
                    f["scheme"],
                    f"{f['throughput_mbps']:.2f}",
                    f"{100 * f['throughput_mbps'] / total:.0f}",
                    f"{q['p50']:.1f}",
                    f"{q['p95']:.1f}",
                    str(f["retransmits"]),
                    f"{100 * s['utilization']:.1f}",
                ]
            )
    return rows


FLOW_HEADER = [
    "run",
    "trace",
    "flow",
    "Mbit/s",
    "share %",
    "qdelay p50 ms",
    "qdelay p95 ms",
    "retx",
    "link util %",
]


def headline(runs: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]] | None:
    """Scheme × trace: 'utilisation % / p95 queueing delay ms' for single-flow runs (None if any
    run has several flows)."""
    if any(len(r["summary"]["flows"]) != 1 for r in runs):
        return None
    schemes = list(dict.fromkeys(str(r["point"]["scheme"]) for r in runs))
    traces = list(dict.fromkeys(str(r["point"]["trace"]) for r in runs))
    cell = {}
    for r in runs:
        s = r["summary"]
        cell[(str(r["point"]["scheme"]), str(r["point"]["trace"]))] = (
            f"{100 * s['utilization']:.0f} / {s['flows'][0]['queueing_delay_ms']['p95']:.0f}"
        )
    rows = [[sc] + [cell.get((sc, t), "") for t in traces] for sc in schemes]
    return ["scheme"] + traces, rows


def render(header: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m accelbrake.l4s_report", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "folder", type=Path, help="a sweep's results folder (results/l4s-study, results/l4s-clash)"
    )
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    a = ap.parse_args(argv)
    runs = load_runs(a.folder)
    h = headline(runs)
    if h is not None:
        print("utilisation % / p95 queueing delay ms")
        print(render(h[0], h[1], a.markdown))
        print()
    print(render(FLOW_HEADER, flow_rows(runs), a.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
