"""``accelbrake run``: simulate one scheme on one link and print a summary."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from accelbrake import catalog
from accelbrake.cli._common import (
    DELAY_NOTES,
    CliError,
    _build,
    _default,
    _epilog,
    _network_options,
    _stat,
)
from accelbrake.scenarios import DEFAULT_TRACE, SCHEMES, load_scenario_file
from accelbrake.tables import fmt as _fmt
from accelbrake.tables import render_table


def register(sub: Any, fmt: Any) -> None:
    """Add the ``run`` subcommand."""
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
        help="write summary.json, metadata.json, scenario.json, summary_table.csv and every table as Parquet "
        "to DIR",
    )
    out.add_argument("--csv", action="store_true", help="with --out: write every table as CSV too")
    out.add_argument(
        "--plot",
        metavar="FILE",
        help="draw throughput/capacity and per-packet delay over time (.png, .svg or .pdf)",
    )
    out.add_argument("--plot-cwnd", action="store_true", help="add a congestion-window panel to --plot")
    out.add_argument(
        "--plot-view",
        choices=("paper", "mahimahi"),
        default="paper",
        help="--plot as the ABC paper's Fig. 1 (paper, the default: each flow's throughput vs capacity, "
        "per-packet delay) or as Mahimahi's graphs (mahimahi: capacity, ingress and egress of the "
        "bottleneck, queueing delay on a linear axis)",
    )
    out.add_argument("--json", action="store_true", help="print the summary as JSON instead of the table")
    out.add_argument(
        "--packets",
        dest="packets",
        action="store_true",
        default=None,
        help="keep per-packet records (packets and hop_packets tables, exact percentiles, a per-packet "
        "delay panel in --plot); off by default since their memory grows with simulated time",
    )
    out.add_argument(
        "--no-packets",
        dest="packets",
        action="store_false",
        help="no per-packet records (the default; overrides record_packets in a --scenario file)",
    )
    out.add_argument(
        "--memory-budget-mb",
        type=float,
        metavar="MB",
        help="refuse a run whose recorded data (time series, and per-packet records with --packets) is "
        f"estimated above MB (default {catalog.network_default('memory_budget_mb'):g})",
    )
    run.set_defaults(func=cmd_run)


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
    try:
        default_limit = catalog.queue(str(qtype)).param("packets").default
    except KeyError:
        default_limit = None
    default_limit = int(default_limit) if default_limit is not None else None
    if q.get("bytes") is not None:
        limit = f"{q['bytes']} bytes"
    elif q.get("packets") is not None or default_limit is None:
        limit = f"{q.get('packets', catalog.network_default('buffer_packets'))} packets"
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
    lines.extend(_mix_lines(summary, scenario, cap))
    lines.extend(DELAY_NOTES)
    return "\n".join(lines)


def _mix_lines(summary: dict[str, Any], scenario: dict[str, Any], cap: float) -> list[str]:
    """Per-scheme aggregates (when the run mixes schemes) and the finite flows' completion times."""
    from accelbrake.mix import fct_stats, scheme_aggregates

    out: list[str] = []
    agg = scheme_aggregates(summary, scenario)
    if len(agg) > 1:
        out += ["", "Per scheme (long-lived flows):"]
        out.append(
            render_table(
                [
                    ("scheme", ""),
                    ("flows", ""),
                    ("mean", "Mbit/s"),
                    ("min", "Mbit/s"),
                    ("max", "Mbit/s"),
                    ("sum", "Mbit/s"),
                    ("rel. std", "%"),
                ],
                [
                    [
                        a["scheme"],
                        str(a["flows"]),
                        _fmt(a["mean_mbps"], 2),
                        _fmt(a["min_mbps"], 2),
                        _fmt(a["max_mbps"], 2),
                        _fmt(a["sum_mbps"], 2),
                        _fmt(100 * a["rel_std"], 1),
                    ]
                    for a in agg
                ],
            )
        )
    fct = fct_stats(summary, scenario, cap)
    if fct:
        out += ["", "Finite flows: completion time (FCT) and slowdown FCT / (prop. RTT + size / capacity):"]
        out.append(
            render_table(
                [
                    ("size", ""),
                    ("flows", ""),
                    ("done", ""),
                    ("FCT", "mean ms"),
                    ("", "p50 ms"),
                    ("", "p95 ms"),
                    ("", "p99 ms"),
                    ("slowdown", "mean"),
                    ("", "p50"),
                    ("", "p95"),
                    ("", "p99"),
                ],
                [
                    [
                        r["bucket"],
                        str(r["flows"]),
                        str(r["completed"]),
                        _fmt(r["fct_mean_ms"]),
                        _fmt(r["fct_p50_ms"]),
                        _fmt(r["fct_p95_ms"]),
                        _fmt(r["fct_p99_ms"]),
                        _fmt(r["slowdown_mean"], 2),
                        _fmt(r["slowdown_p50"], 2),
                        _fmt(r["slowdown_p95"], 2),
                        _fmt(r["slowdown_p99"], 2),
                    ]
                    for r in fct
                ],
            )
        )
    return out


def _import_writers() -> None:
    import contextlib

    with contextlib.suppress(ImportError):
        import pyarrow.parquet  # noqa: F401


def scenario_from_args(args: argparse.Namespace, default_scheme: str = "abc") -> dict[str, Any]:
    """The scenario that ``run``'s options describe: ``--scenario FILE`` (with ``--set``,
    ``--seed``, ``--duration``, ``--sample`` and ``--packets`` applied) or the network options.
    ``emulate`` builds its scenario here too, so that every option the two share means the same."""
    packets = getattr(args, "packets", None)
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
        if isinstance(packets, bool):
            scenario["record_packets"] = packets
        return scenario
    return _build(
        args,
        _default(args.scheme, args.flows[0][0] if isinstance(args.flows, list) else default_scheme),
        _default(args.trace, DEFAULT_TRACE),
        args.sets,
        record_packets=bool(packets) if isinstance(packets, bool) else False,
    )


def cmd_run(args: argparse.Namespace) -> int:
    """``accelbrake run``."""
    scenario = scenario_from_args(args)
    if args.memory_budget_mb is not None:
        scenario["memory_budget_mb"] = args.memory_budget_mb
    if args.csv and not args.out:
        raise CliError("--csv needs --out DIR (the folder to write the tables to)")
    if args.plot:
        from accelbrake.plots import _format_of

        _format_of(Path(args.plot))  # fail before simulating

    from accelbrake.results import format_warning, simulate

    warm = None
    if args.out:
        # Import the Parquet writer while the core simulates (it releases the GIL): on a short run
        # the import would otherwise take as long as the simulation.
        import threading

        warm = threading.Thread(target=_import_writers, name="accelbrake-import", daemon=True)
        warm.start()
    result = simulate(scenario)
    if warm is not None:
        warm.join()
    if args.json:
        print(json.dumps(result.summary, indent=2))
    else:
        print(format_run(result.summary, scenario))
    for w in result.warnings:
        print(format_warning(w), file=sys.stderr)
    if args.out:
        out = result.to_dir(args.out, csv=args.csv)
        print(f"wrote {out}/", file=sys.stderr)
    if args.plot:
        from accelbrake.plots import plot_run

        path = plot_run(result, args.plot, cwnd=args.plot_cwnd, view=args.plot_view)
        print(f"wrote {path}", file=sys.stderr)
    return 0
