"""``accelbrake abe-sweep``: the ABE paper's beta_ecn sweep."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from accelbrake.cli._common import _arg_s, _arg_seed, _executor, _executor_options


def _arg_betas(text: str) -> tuple[float, ...]:
    from accelbrake.papers.abe.sweep import parse_betas

    try:
        return parse_betas(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def register(sub: Any, fmt: Any) -> None:
    """Add the ``abe-sweep`` subcommand."""
    abe = sub.add_parser(
        "abe-sweep",
        help="the ABE paper's beta_ecn sweep: NewReno-ABE and Cubic-ABE over CoDel and PIE with ECN",
        description="Reproduce the ABE paper's single-flow experiment (figures 4-7): one long-lived flow\n"
        "over a 10 Mbit/s bottleneck (ACKs over a 10 Mbit/s link), RTT 100/200/400 ms, CoDel (target 5 ms,\n"
        "interval 100 ms) or PIE (qdelay_ref 20 ms, t_update 30 ms, alpha 0.125, beta 1.25, max_burst\n"
        "100 ms) marking ECN, 1000-packet limit; newreno-abe and cubic-abe with beta_ecn from 0.5 to 0.95.\n"
        "Prints throughput and queueing-delay tables and the comparison with the paper's gains; writes\n"
        "abe.csv, abe.parquet, metadata.json, abe-throughput.png/.svg and abe-delay.png/.svg; each finished\n"
        "run is kept in OUT/runs/, so a rerun skips it.",
        epilog="The full sweep is 120 runs of 600 s (about a minute on 2 cores); --quick runs 120 s and\n"
        "beta_ecn 0.5,0.7,0.8,0.85,0.95. See docs/aqm.md for the AQMs.",
        formatter_class=fmt,
    )
    abe.add_argument(
        "--out", metavar="DIR", default="results/abe", help="output directory (default: results/abe)"
    )
    abe.add_argument(
        "--quick",
        action="store_true",
        help="120 s runs and beta_ecn 0.5,0.7,0.8,0.85,0.95 (default: 600 s, 10 betas)",
    )
    abe.add_argument(
        "--duration",
        type=_arg_s,
        metavar="S",
        help="simulated time per run in seconds (default: 600; --quick: 120)",
    )
    abe.add_argument(
        "--betas",
        type=_arg_betas,
        metavar="B[,B...]",
        help="beta_ecn values in (0, 1), comma-separated (default: 0.5,0.55,...,0.95)",
    )
    abe.add_argument("--seed", type=_arg_seed, metavar="N", default=0, help="random seed (default: 0)")
    _executor_options(abe)
    abe.set_defaults(func=cmd_abe_sweep)


def cmd_abe_sweep(args: argparse.Namespace) -> int:
    """``accelbrake abe-sweep``."""
    from accelbrake.papers.abe import sweep as abe

    abe.main(
        args.out,
        executor=_executor(args),
        quick=args.quick,
        duration_s=args.duration,
        betas=args.betas,
        jobs=args.jobs,
        seed=args.seed,
        progress=not args.no_progress,
    )
    print(f"wrote {args.out}/", file=sys.stderr)
    return 0
