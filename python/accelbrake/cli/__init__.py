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
    accelbrake params cubic               # every parameter: default, unit, range, source
    accelbrake schema > scenario.schema.json
    accelbrake shell --trace traces/bw12.mahi --delay 50 --queue "abc packets=250" -- ping -c 3 100.64.0.1
    accelbrake emulate --scheme cubic --trace traces/bw24.mahi --delay 20 --queue "droptail packets=250"

Errors (bad options, invalid scenarios, missing or malformed trace files) print
``accelbrake: error: <message>`` on stderr and exit with status 2. Set ``ACCELBRAKE_DEBUG=1`` to get
the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from accelbrake import __version__, catalog
from accelbrake._core import SimulationError
from accelbrake.cli import abe, compare, emu, report, reproduce, run, sweep, traces
from accelbrake.cli import params as params_cmds
from accelbrake.cli._common import DELAY_NOTES, PROG, CliError
from accelbrake.cli.abe import cmd_abe_sweep
from accelbrake.cli.compare import cmd_compare
from accelbrake.cli.report import cmd_report
from accelbrake.cli.reproduce import cmd_reproduce
from accelbrake.cli.run import cmd_run, format_run
from accelbrake.cli.sweep import cmd_sweep
from accelbrake.cli.traces import cmd_traces
from accelbrake.tables import render_table

__all__ = [
    "DELAY_NOTES",
    "PROG",
    "CliError",
    "build_parser",
    "cmd_abe_sweep",
    "cmd_compare",
    "cmd_report",
    "cmd_reproduce",
    "cmd_run",
    "cmd_sweep",
    "cmd_traces",
    "format_run",
    "main",
    "render_table",
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``accelbrake`` command."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="accelbrake: packet-level simulation of congestion control over Mahimahi traces.\n"
        f"schemes: {', '.join(s.name for s in catalog.schemes())}\n"
        f"queues: {', '.join(q.name for q in catalog.queues())} (SCHEME+QUEUE pairs a scheme with a queue)",
        epilog="Run 'accelbrake COMMAND --help' for the options of a command.",
        formatter_class=fmt,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (repeatable): a module that registers Python controllers "
        "(accelbrake.register_controller), so that their names work as schemes; worker processes "
        "import it too. A scheme given as module:Class needs no --import.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    # One module per command; each adds its own subparser (in this order in --help).
    for command in (run, compare, abe, sweep, report, reproduce, traces, params_cmds, emu):
        command.register(sub, fmt)
    return parser


def _error_message(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename is not None:
        msg = f"{e.strerror or e}: {e.filename}"
    else:
        msg = str(e) or type(e).__name__
    return " ".join(msg.split("\n"))


#: Commands whose finished runs are kept as they finish, so that running them again resumes.
RESUMABLE = ("sweep", "reproduce", "abe-sweep", "compare")


def resume_hint(args: argparse.Namespace, argv: Sequence[str]) -> str:
    """What to tell a user who stopped a resumable command: where the finished runs are and the
    command that picks up from there; empty for other commands (and compare without --out)."""
    if args.command not in RESUMABLE:
        return ""
    if args.command == "compare" and not getattr(args, "out", None):
        return (
            f"{PROG}: nothing was kept (compare without --out); give --out DIR to make a comparison resumable"
        )
    import shlex

    out = getattr(args, "out", None)
    where = f"in {out}/" if out else "in the results folder"
    return (
        f"{PROG}: the runs that finished are kept {where}; to resume, run the same command again "
        f"(finished runs are reused, not run again): {PROG} {shlex.join(argv)}"
    )


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (workers stopped, nothing
    half-written)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``accelbrake`` command line; return the exit status (0 ok, 2 error, 130 Ctrl-C,
    143 SIGTERM). Called as the ``accelbrake`` command (no ``argv``), the process ends here
    (:func:`_exit_now`)."""
    rc = _main(argv)
    if argv is None:
        _exit_now(rc)
    return rc


def _exit_now(rc: int) -> None:
    """End the process without the interpreter's teardown of every module and object (0.2-0.4 s
    after a reproduction, with pandas, pyarrow and its tables loaded), when that loses nothing:
    stdout and stderr flush, no other non-daemon thread runs (a pool's manager would be waited
    for), and the atexit handlers (multiprocessing's: joining child processes) run first. Every
    file accelbrake writes is closed (and synced) when written. Otherwise it returns and the
    interpreter exits as usual."""
    import atexit
    import threading

    try:
        _flush_std()
    except (OSError, ValueError):
        return
    others = [
        t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()
    ]
    if others:
        return
    atexit._run_exitfuncs()
    try:
        _flush_std()
    except (OSError, ValueError):
        pass
    os._exit(rc)


def _flush_std() -> None:
    """Flush stdout and stderr; either may be ``None`` (Python's value for a stream whose file
    descriptor was closed when it started, as in ``accelbrake run >&-``)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


def _reopen_closed_std() -> None:
    """Give a closed standard descriptor (0, 1 or 2, e.g. ``accelbrake run >&-``) ``/dev/null``,
    so that the next file opened does not take its number and receive what is printed to it
    (Python then prints nothing, as ``sys.stdout`` is ``None``)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                got = os.open(os.devnull, os.O_RDWR)
            except OSError:
                return
            if got != fd:  # a lower descriptor was closed too and took it: keep it for that one
                os.dup2(got, fd)
                if got > 2:
                    os.close(got)


def _main(argv: Sequence[str] | None) -> int:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    _reopen_closed_std()
    # As `python -m` does: modules in the current directory are importable (--import mycc finds
    # ./mycc.py, as does a scheme given as mycc:Class); spawned workers inherit sys.path.
    try:
        cwd = os.getcwd()
    except OSError:  # the current directory was removed: nothing there to import
        cwd = None
    if cwd is not None and cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        if args.imports:
            from accelbrake import controllers

            controllers.import_modules(args.imports)
        return int(args.func(args))
    except KeyboardInterrupt as e:
        hint = resume_hint(args, argv)
        if isinstance(e, Terminated):
            print(f"{PROG}: terminated", file=sys.stderr)
            if hint:
                print(hint, file=sys.stderr)
            return 143
        print(f"{PROG}: interrupted", file=sys.stderr)
        if hint:
            print(hint, file=sys.stderr)
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
