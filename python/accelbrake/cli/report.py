"""``accelbrake report``: one self-contained HTML report for a finished sweep."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any, fmt: Any) -> None:
    """Add the ``report`` subcommand."""
    rp = sub.add_parser(
        "report",
        help="write one self-contained HTML report for a finished sweep",
        description="Draw the plots of a finished sweep (RESULTS_DIR/plots/*.png, .svg with --svg; plots\n"
        "whose data did not change are kept) and write one\n"
        "self-contained HTML file: tables with mean +- sd over seeds, every plot embedded, provenance.",
        formatter_class=fmt,
    )
    rp.add_argument("results", metavar="RESULTS_DIR", help="a folder written by sweep or reproduce")
    rp.add_argument("--out", metavar="FILE", help="the HTML file (default: RESULTS_DIR/report.html)")
    rp.add_argument(
        "--max-timeseries",
        type=int,
        default=12,  # accelbrake.experiments.report.MAX_TIMESERIES (not imported here: it loads pandas)
        metavar="N",
        help="per-run time-series plots at most: the first seed of every scheme at as many whole points "
        "(trace and settings) as fit (default: 12)",
    )
    rp.add_argument(
        "--svg", action="store_true", help="write an SVG beside each plot's PNG (slower; PNG only by default)"
    )
    rp.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    """``accelbrake report``."""
    from accelbrake.experiments.report import build_report

    path = build_report(args.results, args.out, max_timeseries=max(0, args.max_timeseries), svg=args.svg)
    print(f"wrote {path}", file=sys.stderr)
    return 0
