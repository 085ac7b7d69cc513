"""``accelbrake traces``: list Mahimahi trace files with their duration and mean rate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from accelbrake._core import SimulationError
from accelbrake.tables import fmt as _fmt
from accelbrake.tables import render_table


def register(sub: Any, fmt: Any) -> None:
    """Add the ``traces`` subcommand."""
    tr = sub.add_parser(
        "traces",
        help="list Mahimahi trace files with their duration and mean rate",
        description="List trace files (one delivery opportunity of 1504 bytes per line) with their number of "
        "opportunities, period and mean rate.",
        formatter_class=fmt,
    )
    tr.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="trace files or directories (default: ./traces, else the repository's traces folder)",
    )
    tr.add_argument("--json", action="store_true", help="print JSON instead of a table")
    tr.set_defaults(func=cmd_traces)


def _default_traces_dir() -> Path:
    local = Path("traces")
    if local.is_dir():
        return local
    from accelbrake._io import find_upwards

    found = find_upwards("traces")
    if found is None or not found.is_dir():
        raise FileNotFoundError(2, "no traces folder here or in the repository", "traces")
    return found


def cmd_traces(args: argparse.Namespace) -> int:
    """``accelbrake traces``."""
    from accelbrake import _core

    paths = [Path(p) for p in args.paths] or [_default_traces_dir()]
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(2, "no such file or directory", str(p))
    entries = []
    for f in files:
        try:
            n, period_ms, mbps = _core.trace_info(str(f))
            entries.append(
                {"path": str(f), "opportunities": n, "period_s": period_ms / 1000, "mean_mbps": mbps}
            )
        except SimulationError as e:
            entries.append({"path": str(f), "error": str(e)})
    if args.json:
        print(json.dumps(entries, indent=2))
        return 0
    headers = [("trace", ""), ("opportunities", ""), ("duration", "s"), ("mean rate", "Mbit/s"), ("note", "")]
    rows = []
    for e in entries:
        if "error" in e:
            msg = e["error"].replace(f"trace file {e['path']}", "").lstrip(":, ")
            rows.append([e["path"], "-", "-", "-", f"not a trace: {msg}"])
        else:
            rows.append(
                [e["path"], str(e["opportunities"]), _fmt(e["period_s"], 3), _fmt(e["mean_mbps"], 2), ""]
            )
    print(render_table(headers, rows, left_also=(4,)))
    print("\nEach line of a trace is one 1504-byte delivery opportunity; traces repeat after their period.")
    return 0
