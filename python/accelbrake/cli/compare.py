"""``accelbrake compare``: every scheme on every trace, utilisation and delay tabulated."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from accelbrake import __version__, catalog
from accelbrake.cli._common import (
    DELAY_NOTES,
    CliError,
    _build,
    _default,
    _epilog,
    _executor,
    _executor_options,
    _network_options,
    _split_list,
    _stat,
)
from accelbrake.scenarios import (
    DEFAULT_TRACE,
    SCHEMES,
    ScenarioError,
    canonical_scheme,
    expand_trace_patterns,
    parse_queue_spec,
    resolve_trace,
    scheme_preset,
    sets_for_scheme,
)
from accelbrake.tables import fmt as _fmt
from accelbrake.tables import render_table


def register(sub: Any, fmt: Any) -> None:
    """Add the ``compare`` subcommand."""
    schemes = ", ".join(SCHEMES)
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
        "--out",
        metavar="DIR",
        help="write the table to DIR/compare.csv, compare_mean.csv and compare.json, and each run to "
        "DIR/runs/ as it finishes: a rerun into DIR skips the finished runs",
    )
    out.add_argument(
        "--plot", metavar="FILE", help="draw utilisation vs p95 per-packet delay (.png/.svg/.pdf)"
    )
    out.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    _executor_options(cmp_)
    cmp_.set_defaults(func=cmd_compare)


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


def cmd_compare(args: argparse.Namespace) -> int:
    """``accelbrake compare``."""
    if isinstance(args.flows, list):
        raise ScenarioError(
            "--flows: a mix of schemes (SCHEME:N,...) is for `accelbrake run`; compare runs each scheme "
            "alone, so give a count here",
            key="flows",
        )
    import pandas as pd

    from accelbrake import _core
    from accelbrake._io import atomic_path, atomic_write_json
    from accelbrake.experiments.runner import Task, run_scenarios

    if args.schemes is not None and not _split_list(args.schemes):
        raise CliError(
            f"--schemes: got {' '.join(repr(v) for v in args.schemes)}, which names no scheme; give "
            "schemes such as abc,cubic (or leave --schemes out for abc,cubic)"
        )
    for s in _split_list(args.schemes):
        scheme_preset(s)
    schemes = list(dict.fromkeys(canonical_scheme(s) for s in _split_list(args.schemes) or ["abc", "cubic"]))
    if args.traces is not None and not _split_list(args.traces):
        raise CliError("--traces: got no trace name; give trace files or names (or leave --traces out)")
    traces = expand_trace_patterns(_split_list(args.traces) or [DEFAULT_TRACE])
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
            tasks.append(Task((tr, s), sc, f"{s} on {tr}", {"trace": tr, "scheme": s}))
        found = resolve_trace(tr)
        if found is not None:
            _core.trace_info(found)
    # The runner runs them (resumably under --out/runs/; without --out in memory, writing nothing).
    executor = _executor(args)
    outcome = run_scenarios(
        tasks,
        args.out,
        kind="summary",
        executor=executor,
        progress=not args.no_progress,
        desc="compare",
        echo=(lambda m: print(m, file=sys.stderr)) if args.out else None,
    )
    results = outcome.results

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
                    "scenarios": {t.describe: json.loads(json.dumps(t.scenario)) for t in tasks},
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
    dur = _default(args.duration, catalog.network_default("duration_s"))
    delay = _default(args.delay, catalog.network_default("delay_ms"))
    lines = [
        f"{len(table)} runs: {dur:g} s each, one-way delay {delay:g} ms each way (min RTT {2 * delay:g} ms), "
        # The catalog's defaults are numbers of any kind (250.0); a buffer and a seed are whole.
        f"buffer {int(_default(args.buffer, catalog.network_default('buffer_packets')))} packets, "
        f"seed {int(_default(args.seed, catalog.network_default('seed')))}"
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
