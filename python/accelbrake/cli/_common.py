"""What the commands share: argument types with units, option groups, epilogs, building a scenario
from the options."""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence
from typing import Any

from accelbrake import catalog
from accelbrake.scenarios import (
    DEFAULT_TRACE,
    QUEUE_KEYS,
    SCHEMES,
    SET_KEYS,
    ScenarioError,
    build_scenario,
    parse_duration,
    parse_rate,
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


def _net(name: str) -> str:
    """A default of the default network (from the core's catalog), as printed in --help."""
    return (
        catalog.network()[name].default_text().removesuffix(" ms").removesuffix(" s").removesuffix(" packets")
    )


def _arg_ms(text: str) -> float:
    try:
        return parse_duration(text, "ms")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _arg_s(text: str) -> float:
    try:
        return parse_duration(text, "s") / 1000.0
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).replace("100 (ms)", "30 (s)")) from None


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


def _arg_flows(text: str) -> int | list[tuple[str, int]]:
    """``--flows``: a count, or a mix ``abc:3,cubic:3``."""
    if text.strip().isdigit():
        return _arg_count(text)
    from accelbrake.mix import parse_flow_mix

    try:
        return parse_flow_mix(text, key="--flows")
    except ScenarioError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--flows: ")) from None


def _arg_seed(text: str) -> int:
    return _whole(text, 0, "a whole number ≥ 0", "a whole number ≥ 0")


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
    lines.append(
        "  (abc: dt is d_t, also spelled qdelay_ref as in the artifact; Mahimahi's 'cellular' means abc)"
    )
    return "\n".join(lines)


def _set_keys_epilog() -> str:
    lines = [
        "--set keys (times take units; a bare number is in the unit of the default, ms for most;",
        "booleans are true/false; `accelbrake params` shows ranges and sources):",
    ]
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
            f"works) or repeated: Mahimahi trace files (.up/.down/.mahi), constant rates like const:24 "
            f"(Mbit/s) or 802.11n links like wifi:alt=1/7@2000 (docs/wifi.md) (default: {DEFAULT_TRACE})",
        )
    else:
        g.add_argument(
            "--trace",
            metavar="FILE",
            help=f"data-direction link: a Mahimahi trace file (.up/.down/.mahi; looked up in the current "
            f"directory, then in the repository), a constant rate like const:24 (Mbit/s) or an 802.11n "
            f"link like wifi:alt=1/7@2000 (docs/wifi.md) (default: {DEFAULT_TRACE})",
        )
    g.add_argument(
        "--ack-trace", metavar="FILE", help="ACK-direction trace file (default: a constant --ack-mbps link)"
    )
    g.add_argument(
        "--ack-mbps",
        type=_arg_rate,
        metavar="RATE",
        help="ACK link rate when there is no --ack-trace, Mbit/s; units like 12mbps accepted "
        f"(default: {_net('ack_mbps').removesuffix(' Mbit/s')}, the artifact's bw12.mahi)",
    )
    g.add_argument(
        "--delay",
        type=_arg_ms,
        metavar="MS",
        help="one-way propagation delay in ms, applied in each direction like mm-delay, so the minimum RTT "
        f"is 2 x delay (default: {_net('delay_ms')})",
    )
    g.add_argument(
        "--buffer",
        type=_arg_count,
        metavar="PACKETS",
        help="data bottleneck queue limit in packets, for every queue type "
        f"(default: {_net('buffer_packets')}; --set queue.bytes=N for bytes; a --queue spec's packets= "
        "or bytes= wins)",
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
        help="simulated time in seconds; units like 30s or 500ms accepted "
        f"(default: {_net('duration_s')}, the trace length)",
    )
    run.add_argument(
        "--flows",
        type=_arg_flows,
        metavar="N|MIX",
        help="number of bulk flows sharing the link, or a mix of schemes SCHEME:N,... such as abc:3,cubic:3 "
        "(the flows share the data queue of --scheme, default the first group's; --queue abc-coexist gives "
        "ABC's coexistence router) (default: 1)",
    )
    run.add_argument(
        "--seed", type=_arg_seed, metavar="N", help="random seed; same seed, same results (default: 0)"
    )
    run.add_argument(
        "--sample",
        type=_arg_ms,
        metavar="MS",
        help=f"time-series bin width in ms (default: {_net('sample_ms')})",
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
    g.add_argument(
        "--worker-memory-mb",
        type=float,
        metavar="MB",
        help="limit each local worker process to MB of address space: a run that needs more fails alone "
        "(reported with its reason; rerunning retries only it) instead of exhausting the machine",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _stat(d: dict[str, Any] | None, key: str) -> float:
    v = (d or {}).get(key)
    return float("nan") if v is None else float(v)


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
    if args.ack_trace is not None and args.ack_mbps is not None:
        raise ScenarioError(
            "--ack-mbps: given beside --ack-trace, which sets the ACK link (the rate would be ignored); "
            "give one or the other",
            key="ack_mbps",
        )
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
        ack_mbps=args.ack_mbps,
        delay_ms=args.delay,
        buffer_packets=args.buffer,
        duration_s=args.duration,
        flows=args.flows,
        seed=args.seed,
        sets=sets,
        record_packets=record_packets,
        sample_ms=args.sample,
        queue=args.queue,
        ecn=args.ecn,
    )


def _executor(args: argparse.Namespace) -> Any:
    from accelbrake.experiments.executors import make_executor

    mem = getattr(args, "worker_memory_mb", None)
    if mem is not None and not (mem >= 64):
        raise CliError(f"--worker-memory-mb: got {mem:g}; expected at least 64 MB (a worker needs Python)")
    return make_executor(args.executor, jobs=args.jobs, address=args.address, worker_memory_mb=mem)
