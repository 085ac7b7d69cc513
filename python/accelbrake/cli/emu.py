"""``accelbrake shell`` and ``accelbrake emulate``: real packets through the simulator's own links and
queues (Linux, root). Both run the ``accelbrake-emu`` binary of the ``accelbrake-emu`` crate.

``shell`` is Mahimahi's ``mm-delay D mm-link UP DOWN -- CMD`` in one command: CMD runs in a fresh
network namespace whose only route leaves through the emulated link; its other end (address in
``$MAHIMAHI_BASE``) is a second namespace where ``--outer CMD`` runs (e.g. a server).
``emulate`` runs a kernel TCP bulk transfer (cubic, reno, bbr: ``TCP_CONGESTION``) over the link
and prints the same figures as ``run``; any other scheme of ours (or any with ``--transport user``)
runs on the user-space transport: the simulator's own sender, receiver and controller exchanging
UDP datagrams across the link (``crates/accelbrake-emu/src/udp.rs``). ``--scenario FILE`` takes
the setup from a scenario file; ``sweep --emulate`` emulates an experiment file's points.
``--scheme abc`` runs ABC's sender and receiver echo as a BPF congestion control
(``crates/accelbrake-emu/bpf/abc.bpf.c``) at both ends, registered for the run; needs clang and
libbpf (``make emu-deps``) and a kernel with BPF struct_ops.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from accelbrake.cli._common import CliError

BINARY = "accelbrake-emu"
# Kernel congestion controls by our scheme names (Linux's "reno" is NewReno with SACK).
KERNEL_CC = {
    "cubic": "cubic",
    "reno": "reno",
    "newreno": "reno",
    "bbr": "bbr",
    "dctcp": "dctcp",
    # ABC in eBPF (crates/accelbrake-emu/bpf/abc.bpf.c, abc_cubic.bpf.c), registered by the
    # emulator for the run.
    "abc": "abc",
    "abc-cubic": "abc-cubic",
    # ABE (RFC 8511) on the kernel's own Cubic and Reno in eBPF (crates/accelbrake-emu/bpf/abe.bpf.c).
    "cubic-abe": "cubic-abe",
    "newreno-abe": "newreno-abe",
}


def emu_binary() -> str:
    """Path of the ``accelbrake-emu`` binary: ``$ACCELBRAKE_EMU``, then ``PATH``, then the
    repository's ``target/release``; the error says how to build it."""
    env = os.environ.get("ACCELBRAKE_EMU")
    if env:
        if not os.path.exists(env):
            raise CliError(f"ACCELBRAKE_EMU={env}: no such file")
        if not os.path.isfile(env):
            raise CliError(f"ACCELBRAKE_EMU={env}: a directory, not the {BINARY} program")
        if not os.access(env, os.X_OK):
            raise CliError(f"ACCELBRAKE_EMU={env}: not executable (chmod +x, or point it at {BINARY})")
        return env
    found = shutil.which(BINARY)
    if found:
        return found
    # The wheel installs it beside the `accelbrake` command (its scripts folder), which need not be
    # on PATH (a venv used without activating it).
    import sysconfig

    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        p = Path(folder) / BINARY
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    from accelbrake._io import find_upwards

    for profile in ("release", "debug"):
        p = find_upwards(Path("target") / profile / BINARY)
        if p is not None and os.access(p, os.X_OK):
            return str(p)
    raise CliError(
        f"the emulator binary {BINARY} was not found: the Linux wheel installs it beside the `accelbrake` "
        f"command; in a source checkout build it with `make emu` (cargo build --release -p "
        f"accelbrake-emu); or set ACCELBRAKE_EMU to its path"
    )


def _link_args(parser: Any, trace_required: bool = True, run_defaults: bool = False) -> None:
    """The link options of ``shell`` (Mahimahi's defaults: no delay, the same trace both ways, an
    infinite queue) and, with ``run_defaults``, of ``emulate``: ``run``'s own network options
    (:func:`accelbrake.cli._common._network_options`: the same parsers, defaults and help), which
    :func:`cmd_emulate` turns into a scenario as ``run`` does."""
    if run_defaults:
        from accelbrake.cli._common import _network_options

        _network_options(parser, compare=False)
        g = parser.add_argument_group("emulated link (beyond run's options)")
    else:
        g = parser.add_argument_group("emulated link (Mahimahi mm-delay + mm-link)")
        g.add_argument(
            "--trace",
            required=trace_required,
            metavar="FILE",
            help="Mahimahi trace of the inner→outer direction",
        )
        g.add_argument(
            "--ack-trace", metavar="FILE", help="trace of the outer→inner direction (default: --trace)"
        )
        g.add_argument(
            "--delay", type=float, default=0.0, metavar="MS", help="one-way propagation delay, ms (default 0)"
        )
        g.add_argument(
            "--queue",
            default="infinite",
            metavar="SPEC",
            help='queue of the inner→outer direction, "TYPE k=v,..." as in `run` (e.g. "abc packets=250"; '
            "default infinite, Mahimahi's default)",
        )
        g.add_argument("--ecn", action="store_true", help="kernel TCP negotiates ECN (net.ipv4.tcp_ecn=1)")
        g.add_argument("--seed", type=int, default=1, help="seed of the queues' random streams (PIE)")
    g.add_argument(
        "--ack-queue",
        default=None if run_defaults else "infinite",
        metavar="SPEC",
        help="queue of the other direction (default: infinite"
        + (", as run's ACK hop)" if run_defaults else ")"),
    )
    g.add_argument(
        "--log", metavar="FILE", help="Mahimahi link log of the inner→outer direction (mm-link --uplink-log)"
    )
    g.add_argument("--ack-log", metavar="FILE", help="Mahimahi link log of the other direction")
    g.add_argument(
        "--packets",
        metavar="FILE",
        help="per-packet table, both directions, times in ns: CSV, or Parquet if FILE ends in .parquet",
    )
    g.add_argument(
        "--marks",
        choices=("ect", "ce"),
        help="how the ABC router writes its marks: ect = accelerate ECT(1) / brake ECT(0) (the simulator, "
        "ABC paper §4.2); ce = accelerate keeps the sender's ECT / brake CE (the ABC authors' kernel "
        "module and Mahimahi; what a kernel receiver can echo). Default: ce with --scheme abc, else ect",
    )
    g.add_argument(
        "--rt",
        action="store_true",
        help="run the link loop under SCHED_FIFO (priority 10): a loaded machine then does not delay packets",
    )


def _forward(args: Any, packets_csv: str | None = None) -> list[str]:
    """The binary's options; ``packets_csv`` replaces ``--packets`` (a Parquet table is converted)."""
    if packets_csv is not None:
        args = argparse.Namespace(**{**vars(args), "packets": packets_csv})
    out = [
        "--trace",
        args.trace,
        "--delay",
        str(args.delay),
        "--queue",
        args.queue,
        "--ack-queue",
        args.ack_queue,
    ]
    out += ["--seed", str(args.seed)]
    for opt in ("ack_trace", "log", "ack_log", "packets"):
        v = getattr(args, opt)
        if v is not None:
            out += ["--" + opt.replace("_", "-"), v]
    if args.ecn:
        out.append("--ecn")
    if args.marks:
        out += ["--marks", args.marks]
    if args.rt:
        out.append("--rt")
    for opt in ("trace", "ack_trace"):
        v = getattr(args, opt)
        if v is not None and not Path(v).is_file():
            raise CliError(f"--{opt.replace('_', '-')} {v}: no such file (nor a bundled trace)")
    return out


def register(sub: Any, fmt: Any) -> None:
    """Add the ``shell`` and ``emulate`` subcommands."""
    sh = sub.add_parser(
        "shell",
        help="run a program behind a real-time emulated link (Mahimahi's mm-delay + mm-link)",
        description=__doc__,
        formatter_class=fmt,
    )
    _link_args(sh)
    sh.add_argument("--outer", metavar="CMD", help="shell command to run at the other end (e.g. 'iperf3 -s')")
    sh.add_argument(
        "--duration", type=float, metavar="S", help="stop after S seconds (default: when CMD exits)"
    )
    sh.add_argument(
        "--cc",
        choices=("abc", "abc-cubic"),
        help="register ABC's BPF congestion control while the shell runs (its name is in $ACCELBRAKE_CC, "
        "e.g. `iperf3 -C $ACCELBRAKE_CC`; the server must use it too for the echo); marks default to ce",
    )
    sh.add_argument(
        "program", nargs=argparse.REMAINDER, metavar="-- CMD ...", help="the program and its arguments"
    )
    sh.set_defaults(func=cmd_shell)

    em = sub.add_parser(
        "emulate",
        help="kernel TCP (cubic, reno, bbr) over the emulated link, summarised like `run`",
        description=__doc__ + "\n\nThe options that `emulate` shares with `run` (--trace and its specs "
        "such as const:24, --queue, --buffer, --delay, --ecn, --set, --flows, --seed, --duration, "
        "--scenario, --out, --plot, --json) are parsed by the same code and mean the same: switching "
        "`run` to `emulate` is changing one word. Only the default duration differs (10 s: real time).",
        formatter_class=fmt,
    )
    em.add_argument(
        "--scheme",
        metavar="NAME",
        help=f"congestion control: kernel TCP for {', '.join(sorted(KERNEL_CC))}; any other scheme of "
        "ours (`accelbrake schemes`) runs on the user-space transport; SCHEME+QUEUE as in run "
        "(default: cubic)",
    )
    em.add_argument(
        "--scenario",
        metavar="FILE",
        help="emulate a JSON or TOML scenario file in the core's schema, as `run --scenario` (--seed, "
        "--duration and --set still apply): one scheme's identical flows over one data hop and one ACK "
        "hop, trace or constant links, the same delay both ways",
    )
    _link_args(em, trace_required=False, run_defaults=True)
    em.add_argument(
        "--transport",
        choices=("auto", "kernel", "user"),
        default="auto",
        help="kernel = Linux TCP (TCP_CONGESTION, ABC in eBPF); user = the user-space datagram "
        "transport running the simulator's own sender, receiver and controller over UDP; auto "
        "(default) = kernel where the kernel has the scheme, else user",
    )
    em.add_argument(
        "--start-interval",
        type=float,
        default=0.0,
        metavar="S",
        help="flow i starts i·S seconds after flow 0 (as run's --set flow.interval; default 0: together)",
    )
    em.add_argument(
        "--receiver-cc",
        metavar="NAME",
        help="the receiver's kernel congestion control (default: the scheme's own for abc, whose "
        "per-packet echo lives there; else the kernel default)",
    )
    em.add_argument(
        "--tcp-info",
        metavar="FILE",
        help="kernel TCP: the sender's TCP_INFO every 10 ms (cwnd and ssthresh in packets, srtt_ms, "
        "pacing_mbps, delivery_mbps, in_flight, ca_state, retransmissions, …; docs/emulation.md): CSV, or "
        "Parquet if FILE ends in .parquet",
    )
    out = em.add_argument_group("output (as run's)")
    out.add_argument("--json", action="store_true", help="print the summary as JSON instead of the table")
    out.add_argument(
        "--out",
        metavar="DIR",
        help="write summary.json, scenario.json (the scenario emulated, as run writes it) and the data "
        "link's Mahimahi log link.log to DIR",
    )
    out.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the data link as Mahimahi's graphs do (capacity, ingress, egress, queueing delay) "
        "from its log (.png)",
    )
    out.add_argument(
        "--upstream",
        action="store_true",
        help="run the authors' own programs for --scheme copa, sprout, verus or pcc-vivace (built by "
        "`make upstream`), launched as the Pantheon harness launched them, instead of ours",
    )
    em.set_defaults(func=cmd_emulate)


#: Kernel congestion controls that are no scheme of ours: their scenario is built with the scheme
#: whose queue and parameters `run` would give them (Linux's reno is NewReno; DCTCP's sender runs
#: over drop-tail unless --queue says otherwise).
KERNEL_ONLY = {"reno": "newreno", "dctcp": "cubic"}


def cmd_shell(args: Any) -> int:
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if not program:
        raise CliError("shell: give the program to run after `--` (e.g. `-- ping -c 3 $MAHIMAHI_BASE`)")
    from accelbrake.scenarios import resolve_trace

    for opt in ("trace", "ack_trace"):  # as run finds them: bundled traces by name from anywhere
        given = getattr(args, opt)
        if given is not None:
            setattr(args, opt, resolve_trace(given) or given)
    binary = emu_binary()
    parquet = _is_parquet(args.packets)
    with tempfile.TemporaryDirectory() as tmp:
        csv = str(Path(tmp) / "packets.csv") if parquet else None
        argv = [binary, "shell", *_forward(args, csv)]
        if args.outer:
            argv += ["--outer", args.outer]
        if args.duration is not None:
            argv += ["--duration", str(args.duration)]
        if args.cc:
            argv += ["--cc", args.cc]
        argv += ["--", *program]
        sys.stdout.flush()
        sys.stderr.flush()
        if not parquet:
            # Replace this process: Ctrl-C and the exit status are the emulator's (which cleans up).
            os.execv(argv[0], argv)
        code = _run_forwarding_signals(argv)
        if csv is not None and Path(csv).exists():
            _to_parquet(csv, args.packets)
        return code


def _is_parquet(path: str | None) -> bool:
    return path is not None and path.lower().endswith(".parquet")


def _to_parquet(csv: str, out: str) -> None:
    import pandas as pd

    pd.read_csv(csv).to_parquet(out, index=False)


def _run_forwarding_signals(argv: list[str]) -> int:
    """Run the emulator as a child and pass SIGINT/SIGTERM sent to this process on to it (it stops
    the program, and everything it created goes with it); its exit status is returned."""
    import signal

    child = subprocess.Popen(argv)
    old_int = signal.signal(signal.SIGINT, lambda *_: child.send_signal(signal.SIGINT))
    old_term = signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def options_from_run_args(args: Any, tmp: Path) -> dict[str, Any]:
    """Turn ``emulate``'s options, which are ``run``'s, into the emulator's: build the scenario
    ``run`` would simulate (:func:`accelbrake.cli.run.scenario_from_args`, the same code) and map it
    onto the emulator (:func:`emulation_of_scenario`, constant links written as trace files in
    ``tmp``), setting ``args``. Returns the scenario."""
    import copy

    from accelbrake.cli.run import scenario_from_args

    if args.sample is not None:
        raise CliError("--sample: the emulator's summary has no time-series bins (its link log has them)")
    if args.plot and not args.plot.lower().endswith(".png"):
        raise CliError(f"--plot {args.plot}: emulate draws PNG files (FILE.png)")
    kernel_only = KERNEL_ONLY.get(args.scheme or "")
    build = copy.copy(args)
    if kernel_only is not None:
        build.scheme = kernel_only
    if args.duration is None and not args.scenario:
        build.duration = 10.0  # real time: 10 s rather than run's whole trace
    if args.start_interval:
        if not (args.start_interval > 0 and args.start_interval < float("inf")):
            raise CliError(f"--start-interval: expected a duration of 0 s or more, got {args.start_interval}")
        build.sets = [*args.sets, f"flow.interval={args.start_interval!r}s"]
    if isinstance(args.flows, int) and not 1 <= args.flows <= MAX_FLOWS:
        raise CliError(f"--flows: expected 1 to {MAX_FLOWS} flows, got {args.flows}")
    if isinstance(args.flows, int) and args.flows > 1 and args.start_interval and build.duration is not None:
        last = (args.flows - 1) * args.start_interval
        if last >= build.duration:
            raise CliError(
                f"--start-interval: flow {args.flows - 1} would start at {last:g} s, not before the end of "
                f"the run (--duration {build.duration:g})"
            )
    scenario = scenario_from_args(build, default_scheme="cubic")
    opts = emulation_of_scenario(scenario, tmp, where=args.scenario or "emulate")
    ack_queue, given_scheme = args.ack_queue, args.scheme
    for k, v in opts.items():
        setattr(args, k, v)
    args.set = opts["sets"]
    if ack_queue is not None:
        args.ack_queue = ack_queue
    if kernel_only is not None:
        args.scheme = given_scheme
    return scenario


def cmd_emulate(args: Any) -> int:
    """``accelbrake emulate``: the scenario that ``run`` would simulate with the same options,
    emulated (:func:`options_from_run_args`)."""
    with tempfile.TemporaryDirectory() as tmp:
        scenario = options_from_run_args(args, Path(tmp))
        if args.out and args.log is None:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            args.log = str(Path(args.out) / "link.log")
        plot_log = args.log
        if args.plot and plot_log is None:
            plot_log = args.log = str(Path(tmp) / "link.log")
        summary = emulate_summary(args)
        if args.out:
            from accelbrake._io import atomic_write_json

            out = Path(args.out)
            atomic_write_json(out / "summary.json", summary)
            atomic_write_json(out / "scenario.json", scenario)
            print(f"wrote {out}/", file=sys.stderr)
        if args.plot:
            from accelbrake.experiments.emulated import plot_link_log
            from accelbrake.mmlog import link_log_series

            stem = Path(args.plot).with_suffix("")
            path = plot_link_log(
                link_log_series(plot_log), stem, title=f"{summary['scheme']}, emulated {args.duration:g} s"
            )
            print(f"wrote {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(format_emulate(summary))
    return 0


#: Most flows ``emulate --flows`` runs (the binary's limit: consecutive receiver ports, and two
#: endpoint threads each on the user-space transport).
MAX_FLOWS = 64


def _flow_options(args: Any) -> list[str]:
    """The binary's ``--flows N --start-interval S`` (none for one flow, whose run is unchanged);
    errors name the option."""
    given = getattr(args, "flows", None)  # a Namespace from emulate_sweep may lack it
    n = 1 if given is None else int(given)
    interval = float(getattr(args, "start_interval", None) or 0.0)
    if not 1 <= n <= MAX_FLOWS:
        raise CliError(f"--flows: expected 1 to {MAX_FLOWS} flows, got {n}")
    if not (interval >= 0 and interval < float("inf")):
        raise CliError(f"--start-interval: expected a duration of 0 s or more, got {interval}")
    if n == 1:
        return []
    last = (n - 1) * interval
    if args.duration is not None and last >= args.duration:
        raise CliError(
            f"--start-interval: flow {n - 1} would start at {last:g} s, not before the end of the run "
            f"(--duration {args.duration:g})"
        )
    out = ["--flows", str(n)]
    if interval > 0:
        out += ["--start-interval", repr(interval)]
    return out


def emulate_summary(args: Any) -> dict[str, Any]:
    """Run one emulation with the ``emulate`` options in ``args``; its JSON summary."""
    flow_opts = _flow_options(args)
    scheme = args.scheme
    queue = args.queue
    if "+" in scheme:
        scheme, q = scheme.split("+", 1)
        if queue is None:
            queue = q
    if queue is None:
        queue = _scheme_queue(scheme)
    args.queue = queue
    binary = emu_binary()
    upstream = getattr(args, "upstream", False)
    user = not upstream and _choose_transport(scheme, args.transport, binary)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "summary.json"
        csv = str(Path(tmp) / "packets.csv") if _is_parquet(args.packets) else None
        argv = [binary, "emulate", *_forward(args, csv)]
        if upstream:
            from accelbrake.upstream import upstream_argv

            argv += upstream_argv(scheme, args)
        elif user:
            if args.receiver_cc:
                raise CliError(
                    "--receiver-cc: only for kernel TCP (the user-space transport has its own receiver)"
                )
            argv += ["--scheme", scheme]
            scheme_args = _scheme_args(scheme, args.set)
            if scheme_args:
                argv += ["--scheme-args", scheme_args]
        else:
            argv += ["--cc", KERNEL_CC[scheme]]
            cc_args = _cc_args(scheme, args.set)
            if cc_args:
                argv += ["--cc-args", cc_args]
            if args.receiver_cc:
                argv += ["--receiver-cc", args.receiver_cc]
        info = getattr(args, "tcp_info", None)  # a Namespace from emulate_sweep may lack it
        if user and getattr(args, "tcp_info_if_kernel", False):
            info = None  # a sweep asks for it wherever the point runs on kernel TCP
        info_csv = str(Path(tmp) / "tcp_info.csv") if _is_parquet(info) else info
        if info is not None:
            if user:
                raise CliError(
                    "--tcp-info: only for kernel TCP (the user-space transport has no kernel sender)"
                )
            argv += ["--tcp-info", info_csv]
        argv += [*flow_opts, "--duration", str(args.duration), "--json", str(out)]
        p = subprocess.run(argv, stdout=subprocess.DEVNULL)
        if p.returncode == 3:
            raise CliError("emulate cannot run here (exit status 3; the reason is above)")
        if p.returncode != 0:
            raise CliError(f"emulate failed (exit status {p.returncode}; see the message above)")
        if not out.is_file():
            raise CliError(
                f"{binary} exited without writing the run's summary: is it the {BINARY} program of this "
                "accelbrake version? (check ACCELBRAKE_EMU, or unset it to use the one installed)"
            )
        try:
            summary = json.loads(out.read_text())
        except ValueError as e:
            raise CliError(f"{binary} wrote a summary that is not JSON ({e}): is it {BINARY}?") from None
        if csv is not None:
            _to_parquet(csv, args.packets)
        if info is not None and info_csv != info:
            _to_parquet(info_csv, info)
    summary["scheme"] = args.scheme
    return summary


def _queue_spec(q: dict[str, Any]) -> str:
    """A core queue object (``{"type": "abc", "packets": 250, ...}``) as ``"abc packets=250,..."``."""
    kv = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in q.items() if k != "type"]
    return f"{q.get('type', 'infinite')} {','.join(kv)}".strip()


def _link_trace(link: dict[str, Any], where: str, tmp: Path, name: str) -> str:
    """A hop's link as a Mahimahi trace file: a trace link's own file (trace offset 0), or a
    constant rate written as a 1-s trace of 1504-byte opportunities (cumulative count rounded down
    per millisecond, so the rate is exact when it is a whole number of opportunities per second)."""
    kind = link.get("type")
    if kind == "trace":
        if link.get("offset", 0) not in (0, 0.0, None):
            raise CliError(f"{where}.link.offset: the emulator starts traces at 0 (got {link['offset']})")
        return str(link["path"])
    if kind == "constant":
        per_s = float(link["mbps"]) * 1e6 / 8 / 1504
        if per_s < 1:
            raise CliError(f"{where}.link.mbps: {link['mbps']} is below one opportunity per second")
        lines, prev = [], 0
        for ms in range(1, 1001):
            n = int(per_s * ms / 1000 + 1e-9)
            lines += [str(ms)] * (n - prev)
            prev = n
        path = tmp / f"{name}-{link['mbps']}mbps.trace"
        path.write_text("\n".join(lines) + "\n")
        return str(path)
    raise CliError(f"{where}.link.type: the emulator has trace and constant links only (got {kind!r})")


#: Flow fields that may differ between the flows of an emulated scenario: ``start_ms`` (evenly
#: spaced: ``--start-interval``) and ``count``; all else must be flow 0's.
_FLOW_FIELDS_FREE = ("count", "start_ms")


def emulation_of_scenario(sc: dict[str, Any], tmp: Path, where: str = "scenario") -> dict[str, Any]:
    """The ``emulate`` options of a core scenario (checked: N identical bulk flows — ``run --flows
    N``: one entry with ``count`` N, or N entries alike but for evenly spaced ``start_ms``, as
    ``--set flow.interval`` / ``start_interval_s`` writes them — over one data hop and one ACK hop
    with the same delay); constant links become trace files in ``tmp``. Errors name the field."""
    flows = sc.get("flows", [])
    if not flows:
        raise CliError(f"{where}: flows: the scenario has no flows")
    expanded: list[int] = []  # scenario entry of each flow
    for i, g in enumerate(flows):
        n = int(g.get("count", 1))
        if n < 1:
            raise CliError(f"{where}: flows[{i}].count: the emulator needs at least one flow (got {n})")
        expanded += [i] * n
    base = {k: v for k, v in flows[0].items() if k not in _FLOW_FIELDS_FREE}
    for i, g in enumerate(flows[1:], start=1):
        other = {k: v for k, v in g.items() if k not in _FLOW_FIELDS_FREE}
        if other != base:
            k = sorted(k for k in {*base, *other} if base.get(k) != other.get(k))[0]
            raise CliError(
                f"{where}: flows[{i}].{k}: the emulator runs identical flows (run's --flows N: the same "
                f"scheme, parameters, path and settings as flows[0]); this one differs"
            )
    n_flows = len(expanded)
    starts = [float(flows[i].get("start_ms", 0) or 0) for i in expanded]
    interval_ms = starts[1] - starts[0] if n_flows > 1 else 0.0
    for j, (i, st) in enumerate(zip(expanded, starts, strict=True)):
        if abs(st - j * interval_ms) > 1e-6 or (j > 0 and interval_ms < 0):
            what = "flow 0 starts at 0" if j == 0 else f"flow {j} starts {j} start intervals after flow 0"
            raise CliError(
                f"{where}: flows[{i}].start_ms: the emulator's flows start evenly spaced ({what}; "
                f"got {st:g} ms)"
            )
    f = flows[0]
    fwd, rev = f.get("fwd", []), f.get("rev", [])
    if len(fwd) != 1 or len(rev) != 1:
        raise CliError(f"{where}: flows[0].fwd/rev: the emulator has one data hop and one ACK hop")
    hops = sc["hops"]
    data, ack = hops[fwd[0]], hops[rev[0]]
    d_ms, a_ms = float(data.get("delay_ms", 0)), float(ack.get("delay_ms", 0))
    if abs(d_ms - a_ms) > 1e-9:
        raise CliError(
            f"{where}: hops[].delay_ms: the emulator delays both ways alike (got {d_ms} and {a_ms})"
        )
    for k in ("extra_delay_ms", "stop_ms"):
        if f.get(k):
            raise CliError(f"{where}: flows[0].{k}: not supported by the emulator")
    if f.get("app", {"type": "bulk"}) not in ({"type": "bulk"}, "bulk"):
        raise CliError(f"{where}: flows[0].app: the emulator's senders are bulk")
    duration_s = float(sc["duration_ms"]) / 1000.0
    if n_flows > 1 and starts[-1] >= sc["duration_ms"]:
        raise CliError(
            f"{where}: flows[{expanded[-1]}].start_ms: flow {n_flows - 1} would start at {starts[-1]:g} ms, "
            f"not before the end of the run ({sc['duration_ms']:g} ms)"
        )
    from accelbrake import catalog

    scheme = f["scheme"]
    try:
        family = catalog.scheme(scheme).family
    except KeyError:
        raise CliError(f"{where}: flows[0].scheme {scheme!r} is not a scheme of ours") from None
    return {
        "trace": _link_trace(data["link"], f"{where}: hops[{fwd[0]}]", tmp, "data"),
        "ack_trace": _link_trace(ack["link"], f"{where}: hops[{rev[0]}]", tmp, "ack"),
        "queue": _queue_spec(data.get("queue", {"type": "infinite"})),
        "ack_queue": _queue_spec(ack.get("queue", {"type": "infinite"})),
        "delay": d_ms,
        "scheme": scheme,
        "sets": [f"{family}.{k}={v}" for k, v in f.get("params", {}).items()],
        "seed": int(sc.get("seed", 1)),
        "duration": duration_s,
        "ecn": bool(f.get("ecn", False)),
        "flows": n_flows,
        "start_interval": interval_ms / 1000.0,
    }


#: `run`'s buffer, which `emulate` shares (for a scheme's default queue outside a scenario).
RUN_DEFAULT_BUFFER = 250


def _scheme_queue(scheme: str) -> str:
    """The data queue of ``emulate --scheme S`` without ``--queue``, as ``run`` pairs them: the
    scheme's own queue (drop-tail; ABC's router, whose marks ABC needs; XCP/RCP/VCP's, which write
    their headers; CoDel with ECN for the ABE schemes) with ``run``'s 250-packet buffer. (Before,
    the default was Mahimahi's infinite queue, which never marks nor writes feedback.)"""
    from accelbrake.errors import ScenarioError
    from accelbrake.schemes import AQM_QUEUES, scheme_preset

    try:
        preset = scheme_preset(scheme)
    except ScenarioError:
        return f"droptail packets={RUN_DEFAULT_BUFFER}"  # an unknown scheme: _user_transport says so
    ecn = ",ecn=1" if preset.ecn and preset.queue in AQM_QUEUES else ""
    return f"{preset.queue} packets={RUN_DEFAULT_BUFFER}{ecn}"


#: Kernel schemes that are our own BPF congestion controls (registered by the emulator per run).
BPF_SCHEMES = frozenset({"abc", "abc-cubic", "cubic-abe", "newreno-abe"})
#: The parameter families our BPF congestion controls take ``--set`` keys of (also under the
#: scheme's own name, as ``run`` takes them): ABC's sender, ABE's β_ecn.
_BPF_FAMILY = {"abc": "abc", "abc-cubic": "abc", "cubic-abe": "cubic", "newreno-abe": "newreno"}


def _bpf_unavailable(binary: str, scheme: str) -> str | None:
    """Why ABC's BPF congestion control cannot be registered here (the emulator's ``check``: no
    libbpf when it was built, a kernel that refuses it, no namespaces), or ``None`` when it can."""
    r = subprocess.run([binary, "check", "--cc", KERNEL_CC[scheme]], capture_output=True, text=True)
    if r.returncode == 0:
        return None
    return r.stderr.strip().removeprefix("accelbrake-emu: ") or f"exit status {r.returncode}"


def _choose_transport(scheme: str, transport: str, binary: str) -> bool:
    """Whether ``emulate`` runs ``scheme`` on the user-space transport. With ``--transport auto``,
    ABC (and abc-cubic) take the kernel's BPF congestion control where it can be registered and
    otherwise fall back, with a note, to their own sender on the user-space transport (before, auto
    mode stopped with "unavailable here" on a machine without libbpf); ``--transport kernel``
    insists on the kernel."""
    user = _user_transport(scheme, transport)
    if not user and transport == "auto" and scheme in BPF_SCHEMES:
        why = _bpf_unavailable(binary, scheme)
        if why is not None:
            print(
                f"emulate: ABC in eBPF is not available ({why}); --scheme {scheme} runs its own sender "
                "on the user-space transport instead (--transport kernel to insist on the kernel's)",
                file=sys.stderr,
            )
            return True
    return user


def _user_transport(scheme: str, transport: str) -> bool:
    """Whether ``scheme`` runs on the user-space transport (``--transport``); errors name the option."""
    from accelbrake import catalog

    ours = {s.name for s in catalog.schemes()}
    if transport == "kernel" or (transport == "auto" and scheme in KERNEL_CC):
        if scheme not in KERNEL_CC:
            raise CliError(
                f"--scheme {scheme}: the kernel endpoints offer {', '.join(sorted(KERNEL_CC))} "
                "(--transport user runs any scheme of ours)"
            )
        return False
    if scheme not in ours:
        from accelbrake._text import did_you_mean

        raise CliError(
            f"--scheme {scheme}: not a scheme of ours{did_you_mean(scheme, sorted(ours))} "
            "(`accelbrake schemes`; kernel TCP offers " + ", ".join(sorted(KERNEL_CC)) + ")"
        )
    return True


def _scheme_args(scheme: str, sets: list[str]) -> str:
    """``--set family.k=v`` options as the binary's ``--scheme-args k=v,...`` (keys of the scheme's
    parameter family; the binary checks names and ranges as `run` does)."""
    from accelbrake import catalog

    family = catalog.scheme(scheme).family
    out = []
    for kv in sets:
        key, eq, value = kv.partition("=")
        fam, dot, name = key.partition(".")
        if not eq or not dot or fam != family:
            raise CliError(
                f"--set {kv}: expected {family}.KEY=VALUE with --scheme {scheme} on the user-space "
                f"transport (see `accelbrake params {scheme}`)"
            )
        out.append(f"{name}={value}")
    return ",".join(out)


def _cc_args(scheme: str, sets: list[str]) -> str:
    """``--set family.k=v`` options as the binary's ``--cc-args k=v,...`` (our BPF congestion
    controls only: both ABC senders take the ``abc.`` keys of the registry, the ABE ones
    ``cubic.``/``newreno.`` (or ``cubic-abe.``/``newreno-abe.``) keys such as ``beta_ecn``; the
    binary says which of those the kernel's code takes)."""
    family = _BPF_FAMILY.get(scheme)
    out = []
    for kv in sets:
        key, eq, value = kv.partition("=")
        prefix, dot, name = key.partition(".")
        if not eq or not dot or family is None or prefix not in (family, scheme):
            raise CliError(
                f"--set {kv}: on kernel TCP only our BPF congestion controls take parameters: "
                "abc.KEY=VALUE with --scheme abc or abc-cubic, cubic.KEY=VALUE with cubic-abe, "
                "newreno.KEY=VALUE with newreno-abe (see `accelbrake params SCHEME`)"
            )
        out.append(f"{name}={value}")
    return ",".join(out)


def check_echo(packets: Any) -> dict[str, Any]:
    """Check, ACK by ACK, that the receiver echoed each data packet's mark: every pure ACK that
    newly acknowledges data must carry ECE exactly when the data it covers arrived with CE, and all
    that data must share one state (the per-packet echo of DCTCP, RFC 8257 §3.2, that ABC needs;
    RFC 3168's receiver instead latches ECE until CWR).

    ``packets``: the per-packet table of ``emulate --packets`` (a path or a DataFrame). The data
    direction is ``up``, the ACK direction ``down``. An ACK's data are the segments between the
    previous and its own cumulative ACK number, as last delivered to the receiver before the ACK
    left it. Returns counts: ``acks`` checked, ``match``, ``mismatch`` (ECE ≠ the data's CE),
    ``mixed`` (one ACK covers data of both states), ``uncovered`` (some covered data never seen),
    and ``ce_acks`` (acks whose data was CE)."""
    import pandas as pd

    df = packets if isinstance(packets, pd.DataFrame) else pd.read_csv(packets)
    df = df.dropna(subset=["tcp_seq"])
    up = df[(df["dir"] == "up") & (df["tcp_payload"] > 0)]
    seen: dict[int, list[tuple[int, int, bool]]] = {}
    for seq, n, w, e in zip(up["tcp_seq"], up["tcp_payload"], up["written_ns"], up["ecn_out"], strict=True):
        seen.setdefault(int(seq), []).append((int(w), int(n), int(e) == 3))
    down = df[(df["dir"] == "down") & (df["tcp_payload"] == 0)].sort_values("arrived_ns", kind="stable")
    res = dict(acks=0, match=0, mismatch=0, mixed=0, uncovered=0, ce_acks=0)
    prev = None
    for ack, flags, t in zip(down["tcp_ack"], down["tcp_flags"], down["arrived_ns"], strict=True):
        flags, ack, t = int(flags), int(ack), int(t)
        if flags & 0x02 or not flags & 0x10:  # SYN, or no ACK field
            continue
        if prev is None:
            prev = ack
            continue
        step = (ack - prev) & 0xFFFFFFFF
        if step == 0 or step >= 1 << 31:  # duplicate or old ACK: acknowledges nothing new
            continue
        res["acks"] += 1
        states, s, covered = set(), prev, True
        while s != ack:
            copies = [c for c in seen.get(s, []) if c[0] <= t]
            if not copies:
                covered = False
                break
            _, n, ce = max(copies)
            states.add(ce)
            s = (s + n) & 0xFFFFFFFF
        prev = ack
        ece = bool(flags & 0x40)
        if not covered:
            res["uncovered"] += 1
        elif len(states) > 1:
            res["mixed"] += 1
        elif states == {ece}:
            res["match"] += 1
            res["ce_acks"] += int(ece)
        else:
            res["mismatch"] += 1
    return res


_TRANSPORT = {
    "kernel-tcp": "kernel TCP",
    "user-udp": "user-space transport over UDP",
    "upstream": "the authors' own programs",
}


def format_emulate(s: dict[str, Any]) -> str:
    """The summary as the lines `run` prints."""
    from accelbrake.tables import render_table

    ppd, qd = s["per_packet_delay_ms"], s["queueing_delay_ms"]
    flows = s.get("flows") or []
    cap = s["capacity_mbps"]
    rows = [
        [
            f"{f['id']} {s['scheme']}",
            f"{f['throughput_mbps'] / cap:.3f}" if cap > 0 else "nan",
            f"{f['throughput_mbps']:.2f}",
            "",
            f"{f['per_packet_delay_ms']['p50']:.1f}",
            f"{f['per_packet_delay_ms']['p95']:.1f}",
            f"{f['queueing_delay_ms']['p95']:.1f}",
            "",
            "",
        ]
        for f in flows
    ]
    rows += [
        [
            s["scheme"] if not flows else "all flows",
            f"{s['utilization']:.3f}",
            f"{s['throughput_mbps']:.2f}",
            f"{s['capacity_mbps']:.2f}",
            f"{ppd['p50']:.1f}",
            f"{ppd['p95']:.1f}",
            f"{qd['p95']:.1f}",
            str(s["drops"]),
            str(s["marks"]),
        ]
    ]
    head = [
        ("scheme" if not flows else "flow", ""),
        ("utilisation", ""),
        ("throughput", "Mbit/s"),
        ("capacity", "Mbit/s"),
        ("per-packet delay", "p50 ms"),
        ("", "p95 ms"),
        ("queueing delay", "p95 ms"),
        ("drops", ""),
        ("marks", ""),
    ]
    fairness = (
        f"\nJain's fairness index {s['jain_index']:.3f} over {len(flows)} flows"
        + (f" started {s['start_interval_s']:g} s apart" if s.get("start_interval_s") else "")
        + "; a flow's utilisation is its data throughput (IP bytes) / the link capacity"
        if flows
        else ""
    )
    return (
        render_table(head, rows)
        + fairness
        + f"\nemulated {s['duration_s']:.1f} s ({_TRANSPORT.get(s.get('transport', ''), 'kernel TCP')}) "
        + f"over queue {(str(s.get('queue', '?')) + ' ' + str(s.get('queue_args') or '')).strip()}; "
        + "link timing error p50 "
        + f"{s['timing_error_us']['p50']:.0f} µs, p99 {s['timing_error_us']['p99']:.0f} µs"
    )


def emulate_sweep(
    exp: Any,
    out: Path,
    *,
    transport: str = "auto",
    rt: bool = False,
    limit: int | None = None,
    echo: Any = print,
) -> tuple[Path, int, int]:
    """``sweep --emulate``: every point of an experiment through the emulator, one after another
    (real time), resumably: each summary is written to ``OUT/emulated/<run_id>.json`` as it ends
    (with the data link's Mahimahi log beside it, ``<run_id>.log``) and a rerun skips those there.
    Then ``OUT/emulated.csv``: one row per point, the point's labels and run id beside the
    summary's figures. Returns (table path, runs now, runs skipped)."""
    from accelbrake.experiments.runner import run_id

    points = list(exp.points())
    scenarios = [exp.scenario(p) for p in points]
    runs = out / "emulated"
    runs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # Check every point before the first (long, real-time) run.
        opts = [
            emulation_of_scenario(sc, Path(tmp), where=f"{exp.source}: {p.describe()}")
            for p, sc in zip(points, scenarios, strict=True)
        ]
        ran = skipped = 0
        rows = []
        for p, sc, o in zip(points, scenarios, opts, strict=True):
            rid = run_id(sc, "emulate:" + transport)
            path = runs / f"{rid}.json"
            if path.exists():
                skipped += 1
            elif limit is not None and ran >= limit:
                continue
            else:
                echo(f"emulating {p.describe()} ({o['duration']:g} s)")
                ns = argparse.Namespace(
                    **{
                        **o,
                        "set": o["sets"],
                        "transport": transport,
                        "rt": rt,
                        "marks": None,
                        # The data link's Mahimahi log: the report's time series of the run.
                        "log": str(runs / f"{rid}.log"),
                        # Kernel TCP: the sender's TCP_INFO, drawn beside the link (its window).
                        "tcp_info": str(runs / f"{rid}.tcp_info.csv"),
                        "tcp_info_if_kernel": True,
                        "ack_log": None,
                        "packets": None,
                        "receiver_cc": None,
                    }
                )
                summary = emulate_summary(ns)
                path.write_text(json.dumps(summary, indent=1) + "\n")
                ran += 1
            s = json.loads(path.read_text())
            rows.append(
                {
                    **p.labels(),
                    "run_id": rid,
                    "transport": s.get("transport"),
                    "utilization": s["utilization"],
                    "throughput_mbps": s["throughput_mbps"],
                    "capacity_mbps": s["capacity_mbps"],
                    "per_packet_delay_p50_ms": s["per_packet_delay_ms"]["p50"],
                    "per_packet_delay_p95_ms": s["per_packet_delay_ms"]["p95"],
                    "queueing_delay_p95_ms": s["queueing_delay_ms"]["p95"],
                    "drops": s["drops"],
                    "marks": s["marks"],
                    "timing_error_p99_us": s["timing_error_us"]["p99"],
                    # Several flows: Jain's index of their throughputs (a one-flow table is as before).
                    **({"jain_index": s["jain_index"]} if "jain_index" in s else {}),
                }
            )
    import pandas as pd

    table = out / "emulated.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    return table, ran, skipped
