"""``accelbrake sweep``: run an experiment file, resumably."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from accelbrake.cli._common import _arg_count, _executor, _executor_options


def register(sub: Any, fmt: Any) -> None:
    """Add the ``sweep`` subcommand."""
    sw = sub.add_parser(
        "sweep",
        help="run an experiment file: schemes x traces x delays x buffers x flows x seeds",
        description="Run every combination of an experiment file's [matrix] (docs/experiments.md),\n"
        "resumably: each finished run is written to OUT/runs/<run_id>.json at once, and a rerun skips the\n"
        "runs that are there. Then write results.parquet/.csv (one row per run and flow),\n"
        "timeseries.parquet, "
        "metadata.json, the plots (PNG + SVG) and report.html. The whole file is checked before any run.",
        epilog="--set KEY=VALUE: matrix.KEY, run.KEY, schemes.NAME.KEY, name or description replace that\n"
        "key of the file (values in TOML syntax, e.g. matrix.seeds=[0,1] run.duration_s=30; commas make\n"
        "a list for matrix keys: matrix.schemes=abc,cubic); any other key (abc.eta=0.9,\n"
        "codel.target=50ms) is a scenario override added to run.set.",
        formatter_class=fmt,
    )
    sw.add_argument("experiment", metavar="EXPERIMENT.toml", help="the experiment file")
    sw.add_argument(
        "--set",
        dest="sets",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="override a key of the file or add a scenario override (see below); may be repeated",
    )
    sw.add_argument("--out", metavar="DIR", help="results folder (default: results/<experiment name>)")
    sw.add_argument("--check", action="store_true", help="only check the file and list the runs; run nothing")
    sw.add_argument(
        "--limit",
        type=_arg_count,
        metavar="N",
        help="run at most N of the missing runs, then stop (run again to continue)",
    )
    sw.add_argument("--no-report", action="store_true", help="write the tables but no plots or report")
    sw.add_argument("--csv", action="store_true", help="also write results.csv (Parquet only by default)")
    sw.add_argument(
        "--svg", action="store_true", help="write an SVG beside each plot's PNG (slower; PNG only by default)"
    )
    em = sw.add_argument_group("emulated runs (accelbrake emulate; Linux, root)")
    em.add_argument(
        "--emulate",
        action="store_true",
        help="run every point through the real-time emulator instead of the simulator (one at a time, "
        "resumable), writing OUT/emulated/<run>.json and OUT/emulated.csv; each point must be one flow over "
        "one data hop and one ACK hop (docs/emulation.md)",
    )
    em.add_argument(
        "--transport",
        choices=("auto", "kernel", "user"),
        default="auto",
        help="with --emulate: kernel TCP, the user-space transport, or auto (kernel where it has the scheme)",
    )
    em.add_argument("--rt", action="store_true", help="with --emulate: the link loop under SCHED_FIFO")
    _executor_options(sw)
    sw.set_defaults(func=cmd_sweep)


def check_points(exp: Any) -> Iterator[str]:
    """Build (and so check) each run's scenario of ``exp`` and yield its description, in order.
    Runs that differ only in their seed share one scenario but for the seed (the seed is the
    innermost axis), so each such group is built once: checking a million seeds takes one build."""
    import dataclasses

    last = None
    for p in exp.points():
        key = dataclasses.replace(p, seed=0)
        if key != last:
            exp.scenario(p)
            last = key
        yield p.describe()


def cmd_sweep(args: argparse.Namespace) -> int:
    """``accelbrake sweep``."""
    from accelbrake.experiments.report import build_report, summary_text, warnings_text
    from accelbrake.experiments.runner import run_sweep
    from accelbrake.experiments.spec import load_experiment

    exp = load_experiment(args.experiment, args.sets, plan=not args.check)
    if args.check:
        # Read every trace file as a run would, so that a bad line shows now (file and line).
        from accelbrake import _core
        from accelbrake.experiments.spec import trace_name

        files = [t for t in dict.fromkeys([*exp.traces, exp.ack_trace or ""]) if t and "://" not in t]
        traces = []
        for t in files:
            if t.lower().startswith(("const:", "constant:", "wifi:")):
                continue
            from accelbrake.scenarios import resolve_trace

            # As a run finds it: bundled traces by name from any directory.
            opportunities, period_ms, mbps = _core.trace_info(resolve_trace(t) or t)
            traces.append(
                f"  trace {trace_name(t)}: {opportunities} delivery opportunities over "
                f"{period_ms / 1000:g} s, mean {mbps:.2f} Mbit/s"
            )
        # Streamed: each point is checked and listed as it comes, in constant memory (a matrix of
        # a million runs is a million lines, not a million scenarios held at once).
        lines = check_points(exp)
        first = next(lines, None)  # the first point is built before "OK" is said
        print(f"{args.experiment}: OK, {exp.size()} runs of {exp.duration_s:g} s")
        for line in traces:
            print(line)
        if first is not None:
            print(f"  {first}")
        for line in lines:
            print(f"  {line}")
        return 0
    out = Path(args.out or Path("results") / exp.name)
    if args.emulate:
        from accelbrake.cli.emu import emulate_sweep

        table, ran, skipped = emulate_sweep(
            exp,
            out,
            transport=args.transport,
            rt=args.rt,
            limit=args.limit,
            echo=lambda m: print(m, file=sys.stderr),
        )
        print(f"{ran} emulated runs now, {skipped} already done", file=sys.stderr)
        print(table.read_text(), end="")
        print(f"wrote {table}", file=sys.stderr)
        if not args.no_report and (ran or skipped):
            from accelbrake.experiments.emulated import write_emulated_report

            page = write_emulated_report(out, title=f"{exp.name}, emulated")
            extra = " and emulated-vs-sim.csv" if (out / "emulated-vs-sim.csv").is_file() else ""
            print(f"report: {page}{extra}", file=sys.stderr)
        return 0
    if args.transport != "auto" or args.rt:
        print("sweep: --transport and --rt apply to --emulate only", file=sys.stderr)
        return 2
    executor = _executor(args)
    outcome = run_sweep(
        exp,
        out,
        executor=executor,
        progress=not args.no_progress,
        limit=args.limit,
        echo=lambda m: print(m, file=sys.stderr),
        csv=args.csv,
    )
    print(
        f"{outcome.ran} runs now, {outcome.skipped} already done, {outcome.missing} missing "
        f"({outcome.wall_s:.1f} s wall)",
        file=sys.stderr,
    )
    if outcome.failed:
        print(outcome.failures_text(), file=sys.stderr)
        return 1
    if not outcome.complete:
        print(f"sweep incomplete: run the same command again to finish the {outcome.missing} missing runs")
        return 0
    assert outcome.results is not None
    print(summary_text(outcome.results))
    if text := warnings_text(out):
        print(text, file=sys.stderr)
    if not args.no_report:
        report = build_report(out, jobs=args.jobs, svg=args.svg)
        print(f"report: {report}", file=sys.stderr)
    print(f"wrote {out}/", file=sys.stderr)
    return 0
