"""Typed stubs for the Rust extension module ``accelbrake._core``."""

from typing import TypedDict

__version__: str
"""Version of the core crate."""

class SimulationError(ValueError):
    """Invalid scenario, parameter or trace file.

    The message names what was wrong and what was expected: a dotted scenario key
    (``parameter hops[0].delay_ms: got -1; expected a delay ≥ 0 ms``), a trace file and line
    (``trace file x.up, line 3: expected a non-negative integer (milliseconds), found 'abc'``), or a
    malformed document (``scenario: ...``).

    The same facts as attributes (each ``None`` when it does not apply): ``kind`` is ``"param"``,
    ``"trace"``, ``"scenario"`` or ``"internal"`` (a bug: a panic in the core, reported instead
    of crashing), ``key`` the dotted scenario key, ``path`` and ``line`` the trace file and its
    1-based line (0: the whole file).
    """

    kind: str | None
    key: str | None
    path: str | None
    line: int | None

class SimulateOutput(TypedDict):
    """What :func:`simulate` returns."""

    summary: str
    """The run's summary as JSON text (``Summary`` in ``metrics.rs``); NaN statistics are null."""
    tables: dict[str, dict[str, tuple[str, bytes]]]
    """``{table: {column: (dtype, buffer)}}``; dtype is ``"<f8"`` or ``"<i8"``, the buffer holds the
    little-endian values, ready for ``numpy.frombuffer``. Tables: ``flows_ts``, ``hops_ts`` and,
    with ``record_packets``, ``packets`` and ``hop_packets``."""

def simulate(scenario_json: str) -> SimulateOutput:
    """Run a scenario given as JSON text (the schema of ``scenario.rs``).

    Releases the GIL while simulating. Raises :class:`SimulationError` for an invalid scenario or
    an unreadable/malformed trace file.
    """

def validate(scenario_json: str) -> None:
    """Check a scenario without running it (reads no trace file); raise on the first problem."""

def trace_info(path: str) -> tuple[int, int, float]:
    """Parse a Mahimahi trace file; return ``(opportunities, period_ms, mean_mbps)``.

    ``opportunities`` is the number of lines (1504-byte delivery opportunities), ``period_ms`` the
    last timestamp (one period of the trace), ``mean_mbps`` the mean capacity in Mbit/s.
    """

def schemes() -> list[str]:
    """Congestion-control scheme names the core knows (``flows[].scheme``)."""

def catalog() -> str:
    """The registry as JSON text: ``schemes``, ``queues``, ``links``, ``network`` (the default
    network's parameters) and ``default_trace``. Each parameter has ``name`` (scenario field),
    ``key`` (command-line key, without a unit suffix), ``kind`` (real/whole/flag/choice),
    ``default``, ``unit``, ``min``/``max`` (``min_open``/``max_open``), ``choices``, ``expected``,
    ``doc``, ``source`` and ``aliases``. Read it through :mod:`accelbrake.catalog`."""

def schema() -> str:
    """The JSON Schema of a scenario document (generated from the core's scenario types)."""
