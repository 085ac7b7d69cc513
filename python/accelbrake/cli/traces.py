"""``accelbrake traces``: list Mahimahi trace files with their duration and mean rate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from accelbrake._core import SimulationError
from accelbrake.cli._common import PROG, CliError
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
        help="trace files or directories (default: the traces bundled with accelbrake, listed by the name "
        "--trace accepts from any directory)",
    )
    tr.add_argument("--json", action="store_true", help="print JSON instead of a table")
    tr.set_defaults(func=cmd_traces)


def _listing(paths: list[str]) -> list[tuple[str, Path]]:
    """(name shown, file) for every trace to list. Without paths: the traces bundled with the package,
    named as ``--trace`` accepts them (from any directory). Documentation files (README, checksums)
    are not listed."""
    from accelbrake.scenarios import BUNDLED_NOT_TRACES, bundled_traces_dir

    if not paths:
        root = bundled_traces_dir()
        if not root.is_dir():
            raise FileNotFoundError(2, "no traces are bundled with this installation", str(root))
        found = sorted(
            (f for f in root.rglob("*") if f.is_file() and _is_listed(f, BUNDLED_NOT_TRACES)),
            key=lambda f: (len(f.relative_to(root).parts), str(f.relative_to(root))),
        )
        return [(f.name, f) for f in found]
    out: list[tuple[str, Path]] = []
    for text in paths:
        p = Path(text)
        if p.is_dir():
            out.extend(
                (str(f), f) for f in sorted(p.iterdir()) if f.is_file() and _is_listed(f, BUNDLED_NOT_TRACES)
            )
        elif p.is_file():
            out.append((str(p), p))
        else:
            from accelbrake.scenarios import _special_file_kind

            kind = _special_file_kind(p)
            if kind is not None:
                raise CliError(f"{p}: {kind}, not a trace file (give trace files or folders of them)")
            raise FileNotFoundError(2, "no such file or directory", str(p))
    return out


def _is_listed(f: Path, skip: frozenset[str]) -> bool:
    return not f.name.startswith(".") and f.name not in skip and f.suffix.lower() != ".md"


def cmd_traces(args: argparse.Namespace) -> int:
    """``accelbrake traces``."""
    from accelbrake import _core

    files = _listing(args.paths)
    entries = []
    for name, f in files:
        try:
            n, period_ms, mbps = _core.trace_info(str(f))
            entries.append(
                {"path": name, "opportunities": n, "period_s": period_ms / 1000, "mean_mbps": mbps}
            )
        except SimulationError as e:
            entries.append({"path": name, "error": str(e).replace(str(f), name)})
    # A file named on the command line that is not a trace is an error (exit status 2, after the
    # listing); in a folder's listing such a file is only noted.
    named = {str(Path(t)) for t in args.paths if not Path(t).is_dir()}
    bad = [e for e in entries if "error" in e and e["path"] in named]
    if args.json:
        print(json.dumps(entries, indent=2))
        return _named_errors(bad)
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
    if not args.paths:
        print("These traces are bundled with accelbrake: give a name to --trace/--traces from any directory.")
    return _named_errors(bad)


def _named_errors(bad: list[dict[str, Any]]) -> int:
    """Exit status 2 with an ``accelbrake: error:`` line for each named file that is not a trace."""
    import sys

    for e in bad:
        print(f"{PROG}: error: {e['error']}", file=sys.stderr)
    return 2 if bad else 0
