"""The ``accelbrake`` command line.

::

    accelbrake run --scheme abc --trace traces/Verizon-LTE-short.up --delay 50 --buffer 250 --duration 140
    accelbrake run --scenario my-scenario.toml --out results/run1 --plot results/run1/run.png
    accelbrake compare --schemes abc,cubic --traces traces/Verizon-LTE-short.up,traces/Verizon-LTE-short.down
    accelbrake run --scheme cubic+codel --queue "codel target=50,interval=100,packets=250"
    accelbrake abe-sweep --quick --out results/abe
    accelbrake sweep experiments/abc-vs-cubic.toml --set matrix.seeds=3 --executor ray
    accelbrake report results/abc-vs-cubic
    accelbrake reproduce abc-table --quick
    accelbrake traces traces/

Errors (bad options, invalid scenarios, missing or malformed trace files) print
``accelbrake: error: <message>`` on stderr and exit with status 2. Set ``ACCELBRAKE_DEBUG=1`` to get
the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accelbrake import __version__
from accelbrake._core import SimulationError
from accelbrake.scenarios import (
    DEFAULT_TRACE,
    QUEUE_KEYS,
    SCHEMES,
    SET_KEYS,
    ScenarioError,
    build_scenario,
    canonical_scheme,
    load_scenario_file,
    parse_duration,
    parse_queue_spec,
    parse_rate,
    resolve_trace,
    scheme_preset,
    sets_for_scheme,
)

PROG = "accelbrake"

DELAY_NOTES = (
    "queueing delay   = time in the bottleneck queue incl. waiting for a delivery opportunity "
    "(Mahimahi's per-packet delay; no propagation)",
    "per-packet delay = propagation RTT + queueing delay (ABC paper convention)",
    "utilisation      = bytes that left the bottleneck link / its capacity (Mahimahi's)",
)


class CliError(Exception):
    """A usage problem found after argument parsing (exit status 2)."""


# ---------------------------------------------------------------------------------------------
# Argument types: accept units, explain the expected form on failure.


def _arg_ms(text: str) -> float:
    try:
        return parse_duration(text, "ms")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _arg_s(text: str) -> float:
    try:
        return parse_duration(text, "s") / 1000.0
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).replace("100 (ms)", "140 (s)")) from None


def _arg_rate(text: str) -> float:
    try:
        return parse_rate(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _whole(text: str, minimum: int, not_whole: str, too_small: str) -> int:
    """``text`` as an int ≥ ``minimum``; the errors say ``expected <not_whole>`` / ``<too_small>``."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {not_whole}, got '{text}'") from None
    if v < minimum:
        raise argparse.ArgumentTypeError(f"expected {too_small}, got {v}")
    return v


def _arg_count(text: str) -> int:
    return _whole(text, 1, "a whole number", "1 or more")


def _arg_seed(text: str) -> int:
    return _whole(text, 0, "a whole number ≥ 0", "a whole number ≥ 0")


def _arg_betas(text: str) -> tuple[float, ...]:
    from accelbrake.experiments.abe import parse_betas

    try:
        return parse_betas(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _split_list(values: Sequence[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


# ---------------------------------------------------------------------------------------------
# Parser


def _schemes_epilog() -> str:
    lines = ["schemes (controller, bottleneck queue, ECN; names are case, space and _/- insensitive):"]
    for name, p in SCHEMES.items():
        ecn = "ECN on" if p.ecn else ("ABC marks" if p.queue == "abc" else "ECN off (--ecn turns it on)")
        lines.append(f"  {name:<16} {p.cc} sender, {p.queue} queue, {ecn}")
    lines.append(
        "  codel/pie use Linux defaults (CoDel target 5ms, interval 100ms; PIE qdelay_ref 15ms,\n"
        "  t_update 15ms); with ECN on (--ecn, flow.ecn=true, the -abe schemes) they mark instead of\n"
        "  dropping. See docs/aqm.md."
    )
    return "\n".join(lines)


def _queue_epilog() -> str:
    lines = [
        "--queue specs, Mahimahi style: TYPE [key=value,...],",
        '  e.g. --queue "codel target=50,interval=100,packets=250"',
        "  (times are ms unless they carry a unit: target=50ms, max_burst=0.1s; booleans 1/0 or true/false;",
        "  the limit defaults to --buffer; with ECN on, codel/pie mark unless ecn=0 is given):",
    ]
    for qtype, keys in QUEUE_KEYS.items():
        text = ", ".join(keys) if keys else "(no parameters)"
        lines.extend(textwrap.wrap(text, 96, initial_indent=f"  {qtype:<9} ", subsequent_indent=" " * 12))
    lines.append("  (abc: qdelay_ref is d_t; Mahimahi's 'cellular' means abc)")
    return "\n".join(lines)


def _set_keys_epilog() -> str:
    lines = ["--set keys (durations take units, bare numbers are ms; booleans are true/false):"]
    for key, spec in SET_KEYS.items():
        if spec.listed:
            lines.append(f"  {key:<27} {spec.help}")
    lines.append(
        "  (cubic.* and newreno.* also reach cubic-abe / newreno-abe flows; cubic-abe.* and newreno-abe.*\n"
        "  take the same keys for the ABE flows only, e.g. newreno-abe.beta_ecn=0.9)"
    )
    lines.append(
        "  (aliases: abc.qdelay_ref = abc.dt, pie.target = pie.qdelay_ref; the JSON names such as\n"
        "  abc.delta_ms also work)"
    )
    return "\n".join(lines)


def _epilog() -> str:
    return "\n\n".join([_schemes_epilog(), _queue_epilog(), _set_keys_epilog()])


def _network_options(p: argparse.ArgumentParser, *, compare: bool) -> None:
    g = p.add_argument_group("network (defaults: the ABC artifact's exp.sh setup)")
    if compare:
        g.add_argument(
            "--traces",
            action="extend",
            nargs="+",
            metavar="F[,F...]",
            help=f"data-direction links, comma-separated, space-separated (a shell glob such as traces/*.up "
            f"works) or repeated: Mahimahi trace files (.up/.down/.mahi) or constant rates like const:24 "
            f"(Mbit/s) (default: {DEFAULT_TRACE})",
        )
    else:
        g.add_argument(
            "--trace",
            metavar="FILE",
            help=f"data-direction link: a Mahimahi trace file (.up/.down/.mahi; looked up in the current "
            f"directory, then in the repository) or a constant rate like const:24 (Mbit/s) "
            f"(default: {DEFAULT_TRACE})",
        )
    g.add_argument(
        "--ack-trace", metavar="FILE", help="ACK-direction trace file (default: a constant --ack-mbps link)"
    )
    g.add_argument(
        "--ack-mbps",
        type=_arg_rate,
        metavar="RATE",
        help="ACK link rate when there is no --ack-trace, Mbit/s; units like 12mbps accepted (default: 12, "
        "the artifact's bw12.mahi)",
    )
    g.add_argument(
        "--delay",
        type=_arg_ms,
        metavar="MS",
        help="one-way propagation delay in ms, applied in each direction like mm-delay, so the minimum RTT "
        "is 2 x delay (default: 50)",
    )
    g.add_argument(
        "--buffer",
        type=_arg_count,
        metavar="PACKETS",
        help="data bottleneck queue limit in packets, for every queue type (default: 250; --set "
        "queue.bytes=N for bytes; a --queue spec's packets= or bytes= wins)",
    )
    g.add_argument(
        "--queue",
        metavar="SPEC",
        help="replace the scheme's bottleneck queue, Mahimahi style: "
        '"codel target=50,interval=100,packets=250", '
        '"pie qdelay_ref=20,t_update=30,ecn=1", "droptail bytes=150000", "infinite", "abc delta=133" '
        "(times in ms unless given a unit; list below)" + (" -- applies to every scheme" if compare else ""),
    )
    g.add_argument(
        "--ecn",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="ECN on (or off) for non-ABC schemes: the sender sends ECT(0), the receiver echoes CE, and a "
        "codel/pie bottleneck marks instead of dropping (default: on for the -abe schemes, else off; "
        "same as --set flow.ecn=true)",
    )
    run = p.add_argument_group("run")
    run.add_argument(
        "--duration",
        type=_arg_s,
        metavar="S",
        help="simulated time in seconds; units like 30s or 500ms accepted (default: 140, the trace length)",
    )
    run.add_argument(
        "--flows", type=_arg_count, metavar="N", help="number of bulk flows sharing the link (default: 1)"
    )
    run.add_argument(
        "--seed", type=_arg_seed, metavar="N", help="random seed; same seed, same results (default: 0)"
    )
    run.add_argument(
        "--sample",
        type=_arg_ms,
        metavar="MS",
        help="time-series bin width in ms (default: 100)",
    )
    run.add_argument(
        "--set",
        dest="sets",
        action="extend",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter, e.g. abc.delta=100ms abc.eta=0.95 cubic.beta=0.7 codel.target=50ms "
        "pie.qdelay_ref=20 newreno-abe.beta_ecn=0.9 queue.packets=100 (list below); may be repeated",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``accelbrake`` command."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="accelbrake: packet-level simulation of congestion control (ABC, Cubic, NewReno, ABE)\n"
        "with drop-tail, CoDel, PIE and ABC routers over Mahimahi cellular traces.",
        epilog="Run 'accelbrake COMMAND --help' for the options of a command.",
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    schemes = ", ".join(SCHEMES)
    run = sub.add_parser(
        "run",
        help="simulate one scheme on one link and print a summary",
        description="Simulate one scheme on one link and print a summary table. The topology is Mahimahi's\n"
        "'mm-delay DELAY mm-link TRACE ACK-LINK' with the scheme's queue (or --queue) in front of the\n"
        "data link.",
        epilog=_epilog(),
        formatter_class=fmt,
    )
    run.add_argument(
        "--scheme",
        metavar="NAME",
        help=f"congestion control with its bottleneck queue: {schemes} (abc schemes get the ABC router, "
        "cubic and newreno drop-tail, X+codel / X+pie that AQM, the -abe schemes CoDel with ECN; list "
        "below) (default: abc)",
    )
    run.add_argument(
        "--scenario",
        metavar="FILE",
        help="run a JSON or TOML scenario file in the core's schema instead (--seed, --duration and --set "
        "still apply)",
    )
    _network_options(run, compare=False)
    out = run.add_argument_group("output")
    out.add_argument(
        "--out",
        metavar="DIR",
        help="write summary.json, metadata.json, scenario.json and all tables (CSV and Parquet) to DIR",
    )
    out.add_argument(
        "--plot",
        metavar="FILE",
        help="draw throughput/capacity and per-packet delay over time (.png, .svg or .pdf)",
    )
    out.add_argument("--plot-cwnd", action="store_true", help="add a congestion-window panel to --plot")
    out.add_argument("--json", action="store_true", help="print the summary as JSON instead of the table")
    out.add_argument(
        "--no-packets",
        action="store_true",
        help="do not keep per-packet records (less memory; --plot then shows the queue length)",
    )
    run.set_defaults(func=cmd_run)

    cmp_ = sub.add_parser(
        "compare",
        help="run several schemes on several traces and tabulate utilisation and delay",
        description="Run every scheme on every trace (in parallel) and print utilisation and per-packet\n"
        "delay, with per-scheme averages over the traces.",
        epilog=_epilog()
        + "\n\n--set keys apply to the schemes they concern (abc.* to abc and abc-cubic, codel.* to the\n"
        "schemes with a codel queue, cubic.* to cubic, cubic+codel, cubic-abe, ...); a key that applies to\n"
        "none of them is an error.",
        formatter_class=fmt,
    )
    cmp_.add_argument(
        "--schemes",
        action="append",
        metavar="A[,B...]",
        help=f"schemes to compare, comma-separated or repeated, from: {schemes} (default: abc,cubic)",
    )
    _network_options(cmp_, compare=True)
    out = cmp_.add_argument_group("output")
    out.add_argument(
        "--jobs", "-j", type=_arg_count, metavar="N", help="parallel simulations (default: number of CPUs)"
    )
    out.add_argument(
        "--out", metavar="DIR", help="write the table to DIR/compare.csv, compare_mean.csv and compare.json"
    )
    out.add_argument(
        "--plot", metavar="FILE", help="draw utilisation vs p95 per-packet delay (.png/.svg/.pdf)"
    )
    out.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    out.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    cmp_.set_defaults(func=cmd_compare)

    abe = sub.add_parser(
        "abe-sweep",
        help="the ABE paper's beta_ecn sweep: NewReno-ABE and Cubic-ABE over CoDel and PIE with ECN",
        description="Reproduce the ABE paper's single-flow experiment (figures 4-7): one long-lived flow\n"
        "over a 10 Mbit/s bottleneck (ACKs over a 10 Mbit/s link), RTT 100/200/400 ms, CoDel (target 5 ms,\n"
        "interval 100 ms) or PIE (qdelay_ref 20 ms, t_update 30 ms, alpha 0.125, beta 1.25, max_burst\n"
        "100 ms) marking ECN, 1000-packet limit; newreno-abe and cubic-abe with beta_ecn from 0.5 to 0.95.\n"
        "Prints throughput and queueing-delay tables and the comparison with the paper's gains; writes\n"
        "abe.csv, abe.parquet, metadata.json, abe-throughput.png/.svg and abe-delay.png/.svg.",
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
    abe.add_argument(
        "--jobs", "-j", type=_arg_count, metavar="N", help="parallel simulations (default: number of CPUs)"
    )
    abe.add_argument("--seed", type=_arg_seed, metavar="N", default=0, help="random seed (default: 0)")
    abe.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    abe.set_defaults(func=cmd_abe_sweep)

    _experiment_parsers(sub, fmt)

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
    return parser


def _executor_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("execution")
    g.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local: a process pool on this machine (default); ray: Ray tasks on a local Ray instance or, "
        "with --address, on a running cluster (pip install 'accelbrake[ray]'). Same results either way.",
    )
    g.add_argument(
        "--address",
        metavar="ADDR",
        help="Ray cluster to use with --executor ray, e.g. auto or ray://head:10001 (default: start a "
        "local Ray instance with --jobs CPUs); trace files are shipped to the workers",
    )
    g.add_argument(
        "--jobs", "-j", type=_arg_count, metavar="N", help="parallel runs (default: number of CPUs)"
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _experiment_parsers(sub: Any, fmt: Any) -> None:
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
    _executor_options(sw)
    sw.set_defaults(func=cmd_sweep)

    rp = sub.add_parser(
        "report",
        help="write one self-contained HTML report for a finished sweep",
        description="Draw the plots of a finished sweep (RESULTS_DIR/plots/*.png and .svg) and write one\n"
        "self-contained HTML file: tables with mean +- sd over seeds, every plot embedded, provenance.",
        formatter_class=fmt,
    )
    rp.add_argument("results", metavar="RESULTS_DIR", help="a folder written by sweep or reproduce")
    rp.add_argument("--out", metavar="FILE", help="the HTML file (default: RESULTS_DIR/report.html)")
    rp.add_argument(
        "--max-timeseries",
        type=int,
        default=24,
        metavar="N",
        help="per-run time-series plots at most (default: 24)",
    )
    rp.set_defaults(func=cmd_report)

    from accelbrake.experiments.reproduce import REPRODUCTIONS, UNAVAILABLE

    ids = "\n".join(f"  {k:<13} {r.title}" for k, r in REPRODUCTIONS.items())
    rep = sub.add_parser(
        "reproduce",
        help="run a named experiment from the papers and compare with the published numbers",
        description="Run named experiments of shared/reference/paper-results.md, write each one's results\n"
        "and report to OUT/<id> (OUT/<id>-quick with --quick), and print our numbers beside the published\n"
        "ones (value, published, ratio ours/published).",
        epilog=f"ids:\n{ids}\n\nnot available yet: {', '.join(UNAVAILABLE)} (each says why).\n"
        "Schemes the paper compares against that are not implemented here are listed as such.",
        formatter_class=fmt,
    )
    rep.add_argument("ids", nargs="*", metavar="ID", help="reproduction ids (see below); 'all' for every one")
    rep.add_argument(
        "--quick",
        action="store_true",
        help="shorter runs, fewer seeds and the bundled Verizon traces instead of the 8 shared ones",
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
    rep.add_argument("--list", action="store_true", help="list the ids and exit")
    _executor_options(rep)
    rep.set_defaults(func=cmd_reproduce)


# ---------------------------------------------------------------------------------------------
# Formatting


def _fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    f = float(v)
    if math.isnan(f):
        return "-"
    return f"{f:.{digits}f}"


def render_table(
    headers: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    left: int = 1,
    left_also: Sequence[int] = (),
) -> str:
    """Align ``rows`` (strings) under two-line ``headers`` ``(top, bottom)``.

    A column whose top label is ``""`` continues the group of the column before it: the group's
    top label is centred over all its columns (e.g. ``("queueing delay", "p50 ms"), ("", "p95 ms")``).
    The first ``left`` columns and those in ``left_also`` are left-aligned, the rest right-aligned.
    """
    ncol = len(headers)
    widths = [max(len(headers[i][1]), *(len(r[i]) for r in rows), 1) for i in range(ncol)]
    spans: list[list[int]] = []  # column indices of each top-label group
    for i, (top, _) in enumerate(headers):
        if top or not spans:
            spans.append([i])
        else:
            spans[-1].append(i)
    for span in spans:
        label = headers[span[0]][0]
        have = sum(widths[i] for i in span) + 2 * (len(span) - 1)
        if len(label) > have:
            widths[span[-1]] += len(label) - have

    def align(i: int, text: str, width: int) -> str:
        return text.ljust(width) if i < left or i in left_also else text.rjust(width)

    top_parts = []
    for span in spans:
        label = headers[span[0]][0]
        width = sum(widths[i] for i in span) + 2 * (len(span) - 1)
        top_parts.append(label.center(width) if len(span) > 1 else align(span[0], label, width))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(align(i, c, widths[i]) for i, c in enumerate(cells)).rstrip()

    out = ["  ".join(top_parts).rstrip(), line([h[1] for h in headers])]
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def _stat(d: dict[str, Any] | None, key: str) -> float:
    v = (d or {}).get(key)
    return float("nan") if v is None else float(v)


def _link_text(link: dict[str, Any]) -> str:
    if link.get("type") == "trace":
        return str(link.get("path"))
    if link.get("type") == "constant":
        return f"constant {link.get('mbps'):g} Mbit/s"
    return str(link.get("type"))


def _queue_text(q: dict[str, Any]) -> str:
    """``codel queue (target 5 ms, interval 100 ms, ECN marks), 250 packets``."""
    qtype = q.get("type")
    if qtype == "infinite":
        return "infinite queue"
    default_limit = {"codel": 1000, "pie": 1000, "abc": 250}.get(str(qtype))
    if q.get("bytes") is not None:
        limit = f"{q['bytes']} bytes"
    elif q.get("packets") is not None or default_limit is None:
        limit = f"{q.get('packets', 250)} packets"
    else:
        limit = f"{default_limit} packets"
    params = []
    if qtype == "codel":
        params = [f"target {q.get('target_ms', 5):g} ms", f"interval {q.get('interval_ms', 100):g} ms"]
    elif qtype == "pie":
        params = [
            f"qdelay_ref {q.get('qdelay_ref_ms', 15):g} ms",
            f"t_update {q.get('t_update_ms', 15):g} ms",
            f"max_burst {q.get('max_burst_ms', 150):g} ms",
        ]
    if qtype in ("codel", "pie"):
        params.append("ECN marks" if q.get("ecn") else "drops")
    detail = f" ({', '.join(params)})" if params else ""
    return f"{qtype} queue{detail}, {limit}"


def format_run(summary: dict[str, Any], scenario: dict[str, Any]) -> str:
    """The human-readable report of one run."""
    hops = summary.get("hops", [])
    b = int(summary.get("bottleneck_hop", 0))
    hop = hops[b] if b < len(hops) else {}
    flows = summary.get("flows", [])
    schemes = "+".join(dict.fromkeys(f.get("scheme", "?") for f in flows)) or "?"
    sc_hops = scenario.get("hops", [])
    lines = []
    link = sc_hops[b].get("link", {}) if b < len(sc_hops) else {}
    lines.append(
        f"{schemes} on {_link_text(link)}: {summary.get('duration_s', 0):g} s simulated, "
        f"seed {summary.get('seed', 0)}, {len(flows)} flow{'s' if len(flows) != 1 else ''}"
    )
    for h in hops:
        sh = sc_hops[h["id"]] if h["id"] < len(sc_hops) else {}
        role = "bottleneck" if h["id"] == b else "hop"
        marks = int(h.get("marks") or 0)
        lines.append(
            f"  {role} {h['id']} ({h.get('name') or '-'}): {_link_text(sh.get('link', {}))}, "
            f"{_queue_text(sh.get('queue', {}))}, {sh.get('delay_ms', 0):g} ms propagation delay"
            + (f"; {marks} CE marks" if marks else "")
        )
    if flows:
        rtts = sorted({_stat(f, "prop_rtt_ms") for f in flows})
        lines.append("  propagation RTT: " + ", ".join(f"{r:g} ms" for r in rtts))
    lines.append("")

    headers = [
        ("scheme", ""),
        ("capacity", "Mbit/s"),
        ("throughput", "Mbit/s"),
        ("utilisation", "%"),
        ("queueing delay", "p50 ms"),
        ("", "p95 ms"),
        ("per-packet delay", "mean ms"),
        ("", "p95 ms"),
        ("drops", ""),
        ("retransmits", ""),
    ]
    cap = _stat(hop, "capacity_mbps")

    def row(label: str, tput: float, util: float, qd: Any, pd_: Any, drops: int, retx: int) -> list[str]:
        return [
            label,
            _fmt(cap, 2),
            _fmt(tput, 2),
            _fmt(100 * util, 1),
            _fmt(_stat(qd, "p50")),
            _fmt(_stat(qd, "p95")),
            _fmt(_stat(pd_, "mean")),
            _fmt(_stat(pd_, "p95")),
            str(drops),
            str(retx),
        ]

    rows = []
    total_drops = sum(int(f.get("drops", 0)) for f in flows)
    total_retx = sum(int(f.get("retransmits", 0)) for f in flows)
    all_row = row(
        schemes if len(flows) <= 1 else "all flows",
        _stat(summary, "throughput_mbps"),
        _stat(summary, "utilization"),
        summary.get("queueing_delay_ms"),
        summary.get("per_packet_delay_ms"),
        total_drops,
        total_retx,
    )
    if len(flows) > 1:
        headers[0] = ("flow", "")
        for f in flows:
            tput = _stat(f, "throughput_mbps")
            rows.append(
                row(
                    f"{f['id']} {f.get('scheme')}",
                    tput,
                    tput / cap if cap > 0 else float("nan"),
                    f.get("queueing_delay_ms"),
                    f.get("per_packet_delay_ms"),
                    int(f.get("drops", 0)),
                    int(f.get("retransmits", 0)),
                )
            )
    rows.append(all_row)
    lines.append(render_table(headers, rows))
    lines.append("")
    if len(flows) > 1:
        lines.append(
            f"Jain's fairness index {_fmt(_stat(summary, 'jain_index'), 3)}; "
            "a flow's utilisation is its throughput / the bottleneck capacity."
        )
    lines.extend(DELAY_NOTES)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Commands


def _default(value: Any, default: Any) -> Any:
    return default if value is None else value


#: build_scenario argument names → the options that set them, for error messages.
_OPTION_OF = {
    "delay_ms": "--delay",
    "duration_s": "--duration",
    "buffer_packets": "--buffer",
    "flows": "--flows",
    "seed": "--seed",
    "sample_ms": "--sample",
    "ack_mbps": "--ack-mbps",
    "ack_trace": "--ack-trace",
    "trace": "--trace",
    "scheme": "--scheme",
}


def _build(
    args: argparse.Namespace, scheme: str, trace: str, sets: Any, *, record_packets: bool
) -> dict[str, Any]:
    """build_scenario from the options; errors name the option (``--delay``) not the argument."""
    try:
        return _build_scenario(args, scheme, trace, sets, record_packets=record_packets)
    except ScenarioError as e:
        option = _OPTION_OF.get(e.key or "")
        msg = str(e)
        if e.key == "ecn" and msg.startswith("ecn=False:"):
            raise ScenarioError("--no-ecn" + msg[len("ecn=False") :], key=e.key) from None
        if option and e.key and msg.startswith(f"{e.key}:"):
            raise ScenarioError(option + msg[len(e.key) :], key=e.key) from None
        raise


def _build_scenario(
    args: argparse.Namespace, scheme: str, trace: str, sets: Any, *, record_packets: bool
) -> dict[str, Any]:
    return build_scenario(
        scheme,
        trace=trace,
        ack_trace=args.ack_trace,
        ack_mbps=_default(args.ack_mbps, 12.0),
        delay_ms=_default(args.delay, 50.0),
        buffer_packets=_default(args.buffer, 250),
        duration_s=_default(args.duration, 140.0),
        flows=_default(args.flows, 1),
        seed=_default(args.seed, 0),
        sets=sets,
        record_packets=record_packets,
        sample_ms=_default(args.sample, 100.0),
        queue=args.queue,
        ecn=args.ecn,
    )


def cmd_run(args: argparse.Namespace) -> int:
    """``accelbrake run``."""
    if args.scenario:
        clashes = [
            opt
            for opt, v in (
                ("--scheme", args.scheme),
                ("--trace", args.trace),
                ("--ack-trace", args.ack_trace),
                ("--ack-mbps", args.ack_mbps),
                ("--delay", args.delay),
                ("--buffer", args.buffer),
                ("--flows", args.flows),
                ("--queue", args.queue),
                ("--ecn/--no-ecn", args.ecn),
            )
            if v is not None
        ]
        if clashes:
            raise CliError(
                f"{', '.join(clashes)} cannot be combined with --scenario "
                "(edit the scenario file, or use --set, e.g. --set codel.target=50ms or flow.ecn=true)"
            )
        scenario = load_scenario_file(args.scenario, sets=args.sets)
        if args.seed is not None:
            scenario["seed"] = args.seed
        if args.duration is not None:
            scenario["duration_ms"] = args.duration * 1000.0
        if args.sample is not None:
            scenario["sample_ms"] = args.sample
        if args.no_packets:
            scenario["record_packets"] = False
    else:
        scenario = _build(
            args,
            _default(args.scheme, "abc"),
            _default(args.trace, DEFAULT_TRACE),
            args.sets,
            record_packets=not args.no_packets,
        )
    if args.plot:
        from accelbrake.plots import _format_of

        _format_of(Path(args.plot))  # fail before simulating

    from accelbrake.results import simulate

    result = simulate(scenario)
    if args.json:
        print(json.dumps(result.summary, indent=2))
    else:
        print(format_run(result.summary, scenario))
    if args.out:
        out = result.to_dir(args.out)
        print(f"wrote {out}/", file=sys.stderr)
    if args.plot:
        from accelbrake.plots import plot_run

        path = plot_run(result, args.plot, cwnd=args.plot_cwnd)
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _compare_row(trace: str, scheme: str, summary: dict[str, Any]) -> dict[str, Any]:
    hops = summary.get("hops", [])
    b = int(summary.get("bottleneck_hop", 0))
    hop = hops[b] if b < len(hops) else {}
    flows = summary.get("flows", [])
    ppd = summary.get("per_packet_delay_ms")
    qd = summary.get("queueing_delay_ms")
    return {
        "trace": trace,
        "scheme": scheme,
        "capacity_mbps": _stat(hop, "capacity_mbps"),
        "throughput_mbps": _stat(summary, "throughput_mbps"),
        "utilization_pct": 100 * _stat(summary, "utilization"),
        "per_packet_delay_p95_ms": _stat(ppd, "p95"),
        "per_packet_delay_mean_ms": _stat(ppd, "mean"),
        "queueing_delay_p95_ms": _stat(qd, "p95"),
        "drops": sum(int(f.get("drops", 0)) for f in flows),
        "retransmits": sum(int(f.get("retransmits", 0)) for f in flows),
    }


def _run_tasks(tasks: list[tuple[Any, str]], jobs: int, progress: bool) -> dict[Any, dict[str, Any]]:
    """Run ``((trace, scheme), scenario_json)`` tasks, in a process pool when ``jobs > 1``; raise on
    the first error."""
    from accelbrake._pool import run_tasks
    from accelbrake._worker import run_summary

    return run_tasks(tasks, run_summary, jobs=jobs, progress=progress, describe=lambda k: f"{k[1]} on {k[0]}")


def cmd_compare(args: argparse.Namespace) -> int:
    """``accelbrake compare``."""
    import pandas as pd

    from accelbrake import _core
    from accelbrake._io import atomic_path, atomic_write_json

    for s in _split_list(args.schemes):
        scheme_preset(s)
    schemes = list(dict.fromkeys(canonical_scheme(s) for s in _split_list(args.schemes) or ["abc", "cubic"]))
    traces = list(dict.fromkeys(_split_list(args.traces) or [DEFAULT_TRACE]))
    queue_type = parse_queue_spec(args.queue)["type"] if args.queue is not None else None
    if args.plot:
        from accelbrake.plots import _format_of

        _format_of(Path(args.plot))

    # Which --set keys apply to which scheme; a key that applies to none is an error.
    skipped_by: dict[str, list[str]] = {}
    per_scheme_sets = {}
    for s in schemes:
        keep, skipped = sets_for_scheme(args.sets, s, queue_type)
        per_scheme_sets[s] = keep
        for k in skipped:
            skipped_by.setdefault(k, []).append(s)
    useless = [k for k, ss in skipped_by.items() if len(ss) == len(schemes)]
    if useless:
        with_queue = f" with --queue {queue_type}" if queue_type else ""
        raise ScenarioError(
            f"--set {useless[0]} does not apply to any of the schemes {', '.join(schemes)}{with_queue}",
            key=useless[0],
        )

    # Build every scenario first (fails fast, names the culprit), and parse every trace file once.
    tasks = []
    for tr in traces:
        for s in schemes:
            sc = _build(args, s, tr, per_scheme_sets[s], record_packets=False)
            tasks.append(((tr, s), json.dumps(sc)))
        found = resolve_trace(tr)
        if found is not None:
            _core.trace_info(found)
    jobs = args.jobs or os.cpu_count() or 1
    results = _run_tasks(tasks, jobs, progress=not args.no_progress)

    table = pd.DataFrame([_compare_row(tr, s, results[(tr, s)]) for tr in traces for s in schemes])
    cols = ["capacity_mbps", "throughput_mbps", "utilization_pct", "per_packet_delay_p95_ms",
            "per_packet_delay_mean_ms", "queueing_delay_p95_ms", "drops", "retransmits"]  # fmt: skip
    mean = table.groupby("scheme", sort=False)[cols].mean().reset_index()
    mean.insert(1, "traces", len(traces))

    if args.json:
        doc = {"rows": table.to_dict(orient="records"), "mean_over_traces": mean.to_dict(orient="records")}
        print(json.dumps(doc, indent=2))
    else:
        print(_format_compare(table, mean, traces, args))
    if args.out:
        out = Path(args.out)
        with atomic_path(out / "compare.csv") as tmp:
            table.to_csv(tmp, index=False)
        with atomic_path(out / "compare_mean.csv") as tmp:
            mean.to_csv(tmp, index=False)
        from accelbrake.results import git_commit

        atomic_write_json(
            out / "compare.json",
            {
                "rows": table.to_dict(orient="records"),
                "mean_over_traces": mean.to_dict(orient="records"),
                "metadata": {
                    "accelbrake_version": __version__,
                    "git_commit": git_commit(),
                    "argv": list(sys.argv),
                    "scenarios": {f"{k[1]} on {k[0]}": json.loads(js) for k, js in tasks},
                },
            },
        )
        print(f"wrote {out}/", file=sys.stderr)
    if args.plot:
        from accelbrake.plots import plot_compare

        print(f"wrote {plot_compare(table, args.plot)}", file=sys.stderr)
    return 0


def _format_compare(table: Any, mean: Any, traces: list[str], args: argparse.Namespace) -> str:
    headers = [
        ("trace", ""),
        ("scheme", ""),
        ("capacity", "Mbit/s"),
        ("throughput", "Mbit/s"),
        ("utilisation", "%"),
        ("per-packet delay", "p95 ms"),
        ("", "mean ms"),
        ("queueing delay", "p95 ms"),
        ("drops", ""),
    ]
    rows = [
        [
            Path(str(r.trace)).name,
            str(r.scheme),
            _fmt(r.capacity_mbps, 2),
            _fmt(r.throughput_mbps, 2),
            _fmt(r.utilization_pct),
            _fmt(r.per_packet_delay_p95_ms),
            _fmt(r.per_packet_delay_mean_ms),
            _fmt(r.queueing_delay_p95_ms),
            str(int(r.drops)),
        ]
        for r in table.itertuples()
    ]
    dur = _default(args.duration, 140.0)
    delay = _default(args.delay, 50.0)
    lines = [
        f"{len(table)} runs: {dur:g} s each, one-way delay {delay:g} ms each way (min RTT {2 * delay:g} ms), "
        f"buffer {_default(args.buffer, 250)} packets, seed {_default(args.seed, 0)}"
        + (f", --queue {args.queue!r} for every scheme" if args.queue else "")
        + (f", ECN {'on' if args.ecn else 'off'}" if args.ecn is not None else ""),
        "",
        render_table(headers, rows, left=2),
        "",
        f"mean over {len(traces)} trace{'s' if len(traces) != 1 else ''}:",
    ]
    mrows = [
        [
            str(r.scheme),
            _fmt(r.throughput_mbps, 2),
            _fmt(r.utilization_pct),
            _fmt(r.per_packet_delay_p95_ms),
            _fmt(r.per_packet_delay_mean_ms),
            _fmt(r.queueing_delay_p95_ms),
        ]
        for r in mean.itertuples()
    ]
    lines.append(render_table([headers[1], *headers[3:8]], mrows, left=1))
    lines.append("")
    lines.extend(DELAY_NOTES)
    return "\n".join(lines)


def cmd_abe_sweep(args: argparse.Namespace) -> int:
    """``accelbrake abe-sweep``."""
    from accelbrake.experiments import abe

    abe.main(
        args.out,
        quick=args.quick,
        duration_s=args.duration,
        betas=args.betas,
        jobs=args.jobs,
        seed=args.seed,
        progress=not args.no_progress,
    )
    print(f"wrote {args.out}/", file=sys.stderr)
    return 0


def _executor(args: argparse.Namespace) -> Any:
    from accelbrake.experiments.executors import make_executor

    return make_executor(args.executor, jobs=args.jobs, address=args.address)


def cmd_sweep(args: argparse.Namespace) -> int:
    """``accelbrake sweep``."""
    from accelbrake.experiments.report import build_report, summary_text
    from accelbrake.experiments.runner import run_sweep
    from accelbrake.experiments.spec import load_experiment

    exp = load_experiment(args.experiment, args.sets)
    points = list(exp.points())
    if args.check:
        print(f"{args.experiment}: OK, {len(points)} runs of {exp.duration_s:g} s")
        for p in points:
            print(f"  {p.describe()}")
        return 0
    executor = _executor(args)
    out = Path(args.out or Path("results") / exp.name)
    outcome = run_sweep(
        exp,
        out,
        executor=executor,
        progress=not args.no_progress,
        limit=args.limit,
        echo=lambda m: print(m, file=sys.stderr),
    )
    print(
        f"{outcome.ran} runs now, {outcome.skipped} already done, {outcome.missing} missing "
        f"({outcome.wall_s:.1f} s wall)",
        file=sys.stderr,
    )
    if not outcome.complete:
        print(f"sweep incomplete: run the same command again to finish the {outcome.missing} missing runs")
        return 0
    assert outcome.results is not None
    print(summary_text(outcome.results))
    if not args.no_report:
        report = build_report(out, jobs=args.jobs)
        print(f"report: {report}", file=sys.stderr)
    print(f"wrote {out}/", file=sys.stderr)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``accelbrake report``."""
    from accelbrake.experiments.report import build_report

    path = build_report(args.results, args.out, max_timeseries=max(0, args.max_timeseries))
    print(f"wrote {path}", file=sys.stderr)
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    """``accelbrake reproduce``."""
    import time

    from accelbrake.experiments.reproduce import (
        REPRODUCTIONS,
        UNAVAILABLE,
        expand_traces,
        format_comparison,
        resolve_ids,
        run_reproduction,
    )

    if args.list or not args.ids:
        width = max(map(len, [*REPRODUCTIONS, *UNAVAILABLE]))
        for k, r in REPRODUCTIONS.items():
            print(f"{k:<{width}}  {r.title}")
        for k, why in UNAVAILABLE.items():
            print(f"{k:<{width}}  not available yet: {why}")
        return 0 if args.list else 2
    ids = list(REPRODUCTIONS) if [i.lower() for i in args.ids] == ["all"] else args.ids
    reps = resolve_ids(ids)
    traces = expand_traces(_split_list(args.traces)) or None
    executor = _executor(args)
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
            echo=lambda m: print(m, file=sys.stderr),
        )
        print(format_comparison(comp))
        print(
            f"{rep.id}: {outcome.total} runs ({outcome.ran} now, {outcome.skipped} reused), "
            f"{time.monotonic() - t0:.1f} s wall; results in {out}/"
            + (f" (report: {report})" if report else "")
        )
        print()
    return 0


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


# ---------------------------------------------------------------------------------------------
# Entry point


def _error_message(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename is not None:
        msg = f"{e.strerror or e}: {e.filename}"
    else:
        msg = str(e) or type(e).__name__
    return " ".join(msg.split("\n"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``accelbrake`` command line; return the exit status (0 ok, 2 error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into e.g. `head`: stop quietly.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except (CliError, SimulationError, ValueError, OSError) as e:
        if os.environ.get("ACCELBRAKE_DEBUG"):
            raise
        print(f"{PROG}: error: {_error_message(e)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
