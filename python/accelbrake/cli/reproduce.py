"""``accelbrake reproduce``: named experiments from the papers, beside the published numbers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from accelbrake.cli._common import CliError, _executor, _executor_options, _split_list
from accelbrake.papers import TITLES, UNAVAILABLE


def register(sub: Any, fmt: Any) -> None:
    """Add the ``reproduce`` subcommand."""
    width = max(map(len, TITLES))
    ids = "\n".join(f"  {k:<{width}} {title}" for k, title in TITLES.items())
    rep = sub.add_parser(
        "reproduce",
        help="run a named experiment from the papers and compare with the published numbers",
        description="Run named experiments of the papers (ABC, NSDI 2020; C2TCP, IEEE JSAC 2019; ABE, IFIP\n"
        "Networking 2017; PropRate, CoNEXT 2017),\n"
        "write each one's results and report to OUT/<id> (OUT/<id>-quick with --quick), and print our\n"
        "numbers beside the published ones (value, published, ratio ours/published) with a verdict per\n"
        "row: reproduced (ratio within ±20 % unless the row states another tolerance, or inside a\n"
        "published range), differs, direction holds / fails (qualitative claims), not implemented.\n"
        "Each reproduction ends with 'N of M reproduced'. 'reproduce all' runs every id, judges the\n"
        "catalogue of the papers' published results (one verdict per figure/table/claim, 'not\n"
        "implemented' with the reason where no id covers it), writes OUT/index.html,\n"
        "OUT/verdicts.csv/.json and OUT/rows.csv, and ends with\n"
        "'N of M results reproduced, K differ, J not implemented' per paper.",
        epilog=f"ids:\n{ids}\n\nnot available yet: {', '.join(UNAVAILABLE)} (each says why).\n"
        "Schemes the paper compares against that are not implemented here are listed as such.",
        formatter_class=fmt,
    )
    rep.add_argument(
        "ids",
        nargs="*",
        metavar="ID",
        help="reproduction ids (see below); 'all' for every one, judged against the papers' catalogue of "
        "published results with an index page (OUT/index.html) and verdict tables (OUT/verdicts.csv, .json)",
    )
    rep.add_argument(
        "--paper",
        choices=("abc", "abe", "c2tcp", "proprate"),
        help="with 'all': only this paper's reproductions and results",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="shorter runs, fewer seeds and a 2-trace subset of each trace set (named in the output)",
    )
    rep.add_argument(
        "--out", metavar="DIR", default="results/reproduce", help="parent folder (default: results/reproduce)"
    )
    rep.add_argument(
        "--traces",
        action="extend",
        nargs="+",
        metavar="F[,F...]",
        help="replace the experiment's traces: files or folders, comma-, space-separated or repeated",
    )
    rep.add_argument(
        "--set",
        dest="sets",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="change the experiment as with sweep --set, e.g. run.duration_s=10 matrix.seeds=1 abc.eta=0.95 "
        "(the numbers are then no longer the reproduction's)",
    )
    rep.add_argument("--no-report", action="store_true", help="no plots or HTML report")
    rep.add_argument(
        "--csv", action="store_true", help="also write each sweep's results.csv (Parquet only by default)"
    )
    rep.add_argument(
        "--svg", action="store_true", help="write an SVG beside each plot's PNG (slower; PNG only by default)"
    )
    rep.add_argument("--list", action="store_true", help="list the ids and exit")
    _executor_options(rep)
    rep.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args: argparse.Namespace) -> int:
    """``accelbrake reproduce``."""
    import contextlib

    if args.list or not args.ids:
        width = max(map(len, [*TITLES, *UNAVAILABLE]))
        for k, title in TITLES.items():
            print(f"{k:<{width}}  {title}")
        for k, why in UNAVAILABLE.items():
            print(f"{k:<{width}}  not available yet: {why}")
        return 0 if args.list else 2
    if [i.lower() for i in args.ids] == ["all"]:
        return _reproduce_all(args)
    if args.paper:
        raise CliError("reproduce --paper: only with 'all' (reproduce all --paper abc)")
    if not all(i in TITLES for i in args.ids):
        return _reproduce_ids(args, None)  # resolve_ids explains
    # Ids of the catalogue (the usual case): a local pool's workers start now, while this process
    # imports pandas and plans the runs.
    executor = _executor(args)
    started = getattr(executor, "started", None)
    with started() if started is not None else contextlib.nullcontext():
        return _reproduce_ids(args, executor)


def _reproduce_ids(args: argparse.Namespace, executor: Any) -> int:
    import time

    from accelbrake.experiments.report import warnings_text
    from accelbrake.experiments.reproduce import (
        expand_traces,
        format_comparison,
        run_reproduction,
        runs_text,
    )
    from accelbrake.papers import resolve_ids

    reps = resolve_ids(args.ids)
    traces = expand_traces(_split_list(args.traces)) or None
    executor = executor if executor is not None else _executor(args)
    for rep in reps:
        out = Path(args.out) / (rep.id + ("-quick" if args.quick else ""))
        t0 = time.monotonic()
        comp, report, outcome = run_reproduction(
            rep,
            out,
            quick=args.quick,
            traces=traces,
            overrides=args.sets,
            executor=executor,
            progress=not args.no_progress,
            report=not args.no_report,
            svg=args.svg,
            echo=lambda m: print(m, file=sys.stderr),
            csv=args.csv,
        )
        if text := warnings_text(out):
            print(text, file=sys.stderr)
        print(
            f"{rep.id}: {runs_text(outcome)} in "
            f"{outcome.wall_s:.1f} s wall, {time.monotonic() - t0:.1f} s with tables and report; "
            f"results in {out}/" + (f" (report: {report})" if report else "")
        )
        print(format_comparison(comp))  # ends with the "N of M reproduced" line
        print()
    return 0


def _reproduce_all(args: argparse.Namespace) -> int:
    """``accelbrake reproduce all [--paper P] [--quick]``: every id, the catalogue's verdicts, the index."""
    from accelbrake.papers.index import format_verdicts, run_all

    if args.traces or args.sets:
        raise CliError(
            "reproduce all: --traces and --set apply to single ids (they change the reproductions)"
        )
    out = Path(args.out)
    result = run_all(
        out,
        quick=args.quick,
        paper=args.paper,
        executor=_executor(args),
        progress=not args.no_progress,
        report=not args.no_report,
        echo=print,
        log=lambda m: print(m, file=sys.stderr),
        csv=args.csv,
    )
    print()
    print(f"index: {out / 'index.html'}; verdicts: {out / 'verdicts.csv'} ({result['wall_s']:.1f} s wall)")
    print(format_verdicts(result["verdicts"], result["summary"]))  # ends with the per-paper lines
    return 1 if result["failures"] else 0
