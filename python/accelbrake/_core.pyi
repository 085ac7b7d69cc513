"""Typed stubs for the Rust extension module ``accelbrake._core``."""

from typing import Any, TypedDict

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

class ControllerError(SimulationError):
    """A Python controller raised in a callback or returned an invalid window or rate. The
    message names the controller, the flow and the callback; ``controller`` and ``callback`` hold
    them, ``__cause__`` is the original exception."""

    controller: str | None
    callback: str | None

class Ack:
    """What a Python controller's ``on_ack`` receives (read-only)."""

    acked: int
    echo: str
    rtt_ns: int | None
    min_rtt_ns: int | None
    srtt_ns: int | None
    in_flight: int
    cwnd_limited: bool
    in_recovery: bool
    lost: int
    delivered: int
    snd_una: int
    snd_nxt: int
    delivery_rate: float | None
    app_limited: bool
    one_way_delay_ns: int | None
    @property
    def rtt(self) -> float | None: ...
    @property
    def min_rtt(self) -> float | None: ...
    @property
    def srtt(self) -> float | None: ...
    @property
    def one_way_delay(self) -> float | None: ...

class Stepper:
    """A run advanced step by step with one steered flow (scheme ``agent``): ``mode`` ``rate``
    (pacing rate, bytes/s), ``window`` (segments) or ``scale`` (factor on ``inner``'s window)."""

    def __init__(
        self,
        scenario_json: str,
        agent: str,
        mode: str,
        initial: float,
        inner: str | None = None,
        controllers: dict[str, Any] | None = None,
    ) -> None: ...
    def run_until(self, t: float) -> bool: ...
    @property
    def now(self) -> float: ...
    @property
    def end(self) -> float: ...
    @property
    def value(self) -> float: ...
    def set_value(self, v: float) -> None: ...
    def window_and_rate(self) -> tuple[float, float | None]: ...
    def take_interval(self) -> dict[str, Any]: ...
    def total(self) -> dict[str, Any]: ...
    def result(self) -> SimulateOutput: ...

class VecStepper:
    """N steered runs stepped together (``accelbrake.gym_vector``): the features, reward and action
    rule of ``accelbrake.gym`` computed natively; arrays as little-endian bytes."""

    def __init__(
        self,
        n: int,
        scenario_json: str,
        agent: str,
        mode: str,
        initial: float,
        inner: str | None,
        features: list[str],
        history: int,
        reward: str,
        reward_params: dict[str, Any],
        action_scale: float,
        rate_bounds: tuple[float, float],
        mi: float,
        controllers: dict[str, Any] | None = None,
        threads: int = 1,
    ) -> None: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def obs_size(self) -> int: ...
    def reset_lane(
        self, i: int, seed: int, fallback_min_latency: float, scenario_json: str | None = None
    ) -> tuple[bytes, bytes]: ...
    def step(self, actions: bytes, mask: bytes) -> tuple[bytearray, bytearray, bytearray, bytearray]: ...
    def result(self, i: int) -> SimulateOutput: ...

def simulate(scenario_json: str, controllers: dict[str, Any] | None = None) -> SimulateOutput:
    """Run a scenario given as JSON text (the schema of ``scenario.rs``).

    Releases the GIL while simulating. Raises :class:`SimulationError` for an invalid scenario or
    an unreadable/malformed trace file. ``controllers`` (``{scheme: spec}``, built by
    :mod:`accelbrake.controllers`) adds Python controllers; such a run keeps the GIL.
    """

def validate(scenario_json: str, controllers: dict[str, Any] | None = None) -> None:
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
