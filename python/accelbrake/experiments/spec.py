"""Experiment files: a matrix of schemes × traces × delays × buffers × flows × seeds, in TOML.

An experiment file describes a sweep; :func:`load_experiment` reads and checks the whole file
before anything runs, and :meth:`Experiment.points` expands it into runs::

    name = "abc-vs-cubic"
    description = "ABC against Cubic on the bundled Verizon traces"

    [matrix]                          # every combination of these is one run
    schemes = ["abc", "cubic", "abc-eta90"]
    traces = ["traces/Verizon-LTE-short.up", "const:24"]
    delay_ms = [50]                   # one-way propagation delay, each direction (min RTT 2·delay)
    buffer_packets = [250]            # data bottleneck queue limit
    flows = [1]                       # number of bulk flows sharing the link
    start_interval_s = [0]            # flow i starts i·interval later
    seeds = [0, 1]                    # or a count: seeds = 2 means 0 and 1

    [run]                             # the same for every run
    duration_s = 140
    ack_mbps = 12                     # ACK link (or ack_trace = "...")
    sample_ms = 100                   # time-series bin width
    set = ["codel.target=50ms"]       # overrides, applied to the schemes they concern

    [schemes.abc-eta90]               # a variant: a preset with its own overrides
    scheme = "abc"
    label = "ABC (η 0.9)"
    set = ["abc.eta=0.9"]

Errors are :class:`ExperimentError` (a :class:`~accelbrake.ScenarioError`) whose message starts with
the file and the key (``exp.toml: matrix.schemes[1]: unknown scheme 'cubci' (did you mean 'cubic'?)``).
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accelbrake import catalog
from accelbrake._core import SimulationError
from accelbrake._io import dumps_strict
from accelbrake._text import did_you_mean
from accelbrake.scenarios import (
    SCHEMES,
    ScenarioError,
    build_scenario,
    canonical_scheme,
    link_spec,
    parse_duration,
    parse_queue_spec,
    parse_rate,
    sets_for_scheme,
)

__all__ = [
    "MATRIX_KEYS",
    "RUN_KEYS",
    "SCHEME_KEYS",
    "Experiment",
    "ExperimentError",
    "RunPoint",
    "SchemeEntry",
    "load_experiment",
    "parse_experiment",
    "quick_document",
]


class ExperimentError(ScenarioError):
    """An invalid experiment file or override; ``key`` is the dotted key (``matrix.schemes``)."""


#: ``[matrix]`` keys: what they mean (for errors and docs).
MATRIX_KEYS: dict[str, str] = {
    "schemes": 'scheme names (presets or [schemes.NAME] variants), e.g. ["abc", "cubic"]',
    "traces": 'data-link traces: Mahimahi files, constant rates like "const:24" or 802.11n links like '
    '"wifi:alt=1/7@2000"',
    "delay_ms": "one-way propagation delays in ms (each direction; min RTT = 2·delay), "
    f"default [{catalog.network_default('delay_ms'):g}]",
    "buffer_packets": "data bottleneck queue limits in packets, "
    f"default [{catalog.network_default('buffer_packets'):g}]",
    "flows": "numbers of bulk flows sharing the link, default [1]",
    "start_interval_s": "flow i starts i·interval seconds after flow 0, default [0]",
    "flow_rtts_ms": "per-flow propagation RTTs in ms, one list per point, e.g. [[20, 20], [40, 20]] "
    "(sets the flow count; each RTT ≥ 2·delay_ms)",
    "seeds": "random seeds (whole numbers ≥ 0), or a count n meaning 0..n-1, default [0]",
}

#: Largest matrix accepted unless ``run.max_runs`` raises it: planning checks every run's
#: scenario, about 0.1 ms each, and keeps them all in memory.
MAX_RUNS = 100_000

#: ``[run]`` keys.
RUN_KEYS: dict[str, str] = {
    "duration_s": f"simulated seconds per run (default {catalog.network_default('duration_s'):g})",
    "ack_mbps": "ACK link rate in Mbit/s when there is no ack_trace "
    f"(default {catalog.network_default('ack_mbps'):g})",
    "ack_trace": "ACK-direction trace file (default: a constant ack_mbps link)",
    "sample_ms": f"time-series bin width in ms (default {catalog.network_default('sample_ms'):g})",
    "queue": 'a Mahimahi-style queue for every scheme, e.g. "codel target=50,interval=100"',
    "ecn": "ECN on (true) or off (false) for the non-ABC schemes (default: the preset's)",
    "set": 'overrides such as ["abc.eta=0.95"] or {"abc.eta" = 0.95}, applied to the schemes they '
    "concern (one that concerns none is an error)",
    "flow_starts_s": "explicit start time of each flow in seconds (sets the flow count)",
    "flow_stops_s": "explicit stop time of each flow in seconds (same length as flow_starts_s)",
    "record_packets": "keep per-packet records in each run: exact percentiles, memory growing with "
    "simulated time (default false: percentiles from a bounded sketch, within 0.2 %)",
    "memory_budget_mb": "refuse a run whose recorded data is estimated above this many MB "
    f"(default {catalog.network_default('memory_budget_mb'):g})",
    "max_runs": f"refuse a matrix of more runs than this before planning it (default {MAX_RUNS})",
}

#: ``[schemes.NAME]`` keys.
SCHEME_KEYS: dict[str, str] = {
    "scheme": "the preset this entry is based on (default: NAME itself)",
    "label": "name shown in tables and plots (default: NAME)",
    "set": "overrides for this scheme only (each must apply to it)",
    "queue": "a Mahimahi-style queue replacing the preset's",
    "ecn": "ECN on or off for this scheme",
}

_TOP_KEYS: dict[str, str] = {
    "name": "a short name for the experiment",
    "description": "free text",
    "matrix": "table: the axes of the sweep",
    "run": "table: settings shared by every run",
    "schemes": "table of tables: per-scheme overrides and variants",
    "hops": "array of tables ([[hops]]): more bottlenecks in series with the matrix's on the data path",
    "quick": 'table: what `accelbrake reproduce --quick` changes, as dotted keys ("matrix.seeds" = 1, '
    '"run.duration_s" = 40); a sweep runs the document as written',
}

#: Matrix axes left out of an experiment file: the default network (the core's catalog).
_MATRIX_DEFAULTS: dict[str, list[Any]] = {
    "delay_ms": [catalog.network_default("delay_ms")],
    "buffer_packets": [int(catalog.network_default("buffer_packets"))],
    "flows": [int(catalog.network_default("flows"))],
    "start_interval_s": [0.0],
    "seeds": [int(catalog.network_default("seed"))],
}


def _type_name(v: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(v), type(v).__name__)


@dataclass(frozen=True)
class SchemeEntry:
    """One scheme of the matrix: a preset (``abc``) or a variant with its own overrides."""

    name: str
    """The name used in ``matrix.schemes`` and in the results' ``scheme`` column."""
    preset: str
    """The :data:`~accelbrake.SCHEMES` preset it is based on."""
    label: str
    """Display name in plots and the report."""
    sets: tuple[tuple[str, Any], ...] = ()
    queue: str | None = None
    ecn: bool | None = None
    traffic: Any = None
    """Mixed schemes, Poisson arrivals, application-limited flows (a ``Traffic``), or None."""


@dataclass(frozen=True)
class RunPoint:
    """One run of the matrix: every axis value plus the seed."""

    scheme: str
    trace: str
    delay_ms: float
    buffer_packets: int
    flows: int
    start_interval_s: float
    flow_rtts_ms: tuple[float, ...] | None
    seed: int

    def labels(self) -> dict[str, Any]:
        """The point as result-table columns."""
        return {
            "scheme": self.scheme,
            "trace": trace_name(self.trace),
            "delay_ms": self.delay_ms,
            "buffer_packets": self.buffer_packets,
            "flows": self.flows,
            "start_interval_s": self.start_interval_s,
            "flow_rtts_ms": ""
            if self.flow_rtts_ms is None
            else "/".join(f"{r:g}" for r in self.flow_rtts_ms),
            "seed": self.seed,
        }

    def describe(self) -> str:
        """A one-line description for progress and error messages."""
        parts = [self.scheme, f"on {trace_name(self.trace)}", f"delay {self.delay_ms:g} ms"]
        parts.append(f"buffer {self.buffer_packets}")
        if self.flow_rtts_ms is not None:
            parts.append("RTTs " + "/".join(f"{r:g}" for r in self.flow_rtts_ms) + " ms")
        elif self.flows != 1:
            parts.append(f"{self.flows} flows")
        if self.start_interval_s:
            parts.append(f"interval {self.start_interval_s:g} s")
        parts.append(f"seed {self.seed}")
        return ", ".join(parts)


def trace_name(trace: str) -> str:
    """A short name of a trace: the file's name, or the constant rate as given (``const:24``)."""
    text = str(trace)
    if text.lower().startswith(("const:", "constant:", "wifi:")):
        return text
    return Path(text).name


@dataclass(frozen=True)
class Experiment:
    """A checked experiment file. Build it with :func:`load_experiment` or :func:`parse_experiment`."""

    name: str
    description: str
    schemes: tuple[SchemeEntry, ...]
    traces: tuple[str, ...]
    delay_ms: tuple[float, ...]
    buffer_packets: tuple[int, ...]
    flows: tuple[int, ...]
    start_interval_s: tuple[float, ...]
    flow_rtts_ms: tuple[tuple[float, ...], ...] | None
    seeds: tuple[int, ...]
    duration_s: float = catalog.network_default("duration_s")
    ack_mbps: float = catalog.network_default("ack_mbps")
    ack_trace: str | None = None
    sample_ms: float = catalog.network_default("sample_ms")
    record_packets: bool = False
    memory_budget_mb: float = catalog.network_default("memory_budget_mb")
    queue: str | None = None
    ecn: bool | None = None
    sets: tuple[tuple[str, Any], ...] = ()
    flow_starts_s: tuple[float, ...] | None = None
    flow_stops_s: tuple[float, ...] | None = None
    hops: tuple[dict[str, Any], ...] = ()
    """More data bottlenecks (``[[hops]]``, see :data:`HOP_KEYS`): each ``{"position", "hop"}``, the
    hop as core JSON."""
    source: str = "<experiment>"
    document: dict[str, Any] = field(default_factory=dict, compare=False)
    _planned: dict[RunPoint, tuple[dict[str, Any], str | None]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    """Each run's scenario and run id, built once (:func:`accelbrake.experiments.runner.planned`'s
    cache; not an init field: ``dataclasses.replace`` starts an empty one)."""

    @property
    def scheme_names(self) -> list[str]:
        return [s.name for s in self.schemes]

    def scheme(self, name: str) -> SchemeEntry:
        for s in self.schemes:
            if s.name == name:
                return s
        raise KeyError(name)

    def points(self) -> Iterator[RunPoint]:
        """Every run, in a fixed order: trace, delay, buffer, flows, interval, RTTs, scheme, seed."""
        rtt_axis: Sequence[tuple[float, ...] | None] = self.flow_rtts_ms or [None]
        for trace in self.traces:
            for delay in self.delay_ms:
                for buf in self.buffer_packets:
                    for nflows in self.flows:
                        for interval in self.start_interval_s:
                            for rtts in rtt_axis:
                                for s in self.schemes:
                                    for seed in self.seeds:
                                        n = len(rtts) if rtts is not None else nflows
                                        if self.flow_starts_s is not None:
                                            n = len(self.flow_starts_s)
                                        yield RunPoint(s.name, trace, delay, buf, n, interval, rtts, seed)

    def scenario(self, p: RunPoint) -> dict[str, Any]:
        """The core scenario of one run (checked by the core). Raises :class:`ExperimentError`."""
        entry = self.scheme(p.scheme)
        queue = entry.queue if entry.queue is not None else self.queue
        ecn = entry.ecn if entry.ecn is not None else self.ecn
        qtype = parse_queue_spec(queue)["type"] if queue is not None else None
        shared, _skipped = sets_for_scheme(list(self.sets), entry.preset, qtype)
        sets = [*shared, *entry.sets]
        if p.start_interval_s and p.flows > 1:
            sets.append(("flow.interval", f"{p.start_interval_s * 1000.0!r}ms"))
        where = f"schemes.{entry.name}" if entry.sets or entry.queue or entry.ecn is not None else "run"
        try:
            sc = build_scenario(
                entry.preset,
                trace=p.trace,
                ack_trace=self.ack_trace,
                ack_mbps=self.ack_mbps if self.ack_trace is None else None,
                delay_ms=p.delay_ms,
                buffer_packets=p.buffer_packets,
                duration_s=self.duration_s,
                flows=list(entry.traffic.mix) if entry.traffic and entry.traffic.mix else p.flows,
                seed=p.seed,
                sets=sets,
                record_packets=self.record_packets,
                sample_ms=self.sample_ms,
                queue=queue,
                ecn=ecn,
            )
        except SimulationError as e:
            key = getattr(e, "key", None)
            raise ExperimentError(f"{self.source}: {where}: {p.describe()}: {e}", key=key or where) from None
        if self.memory_budget_mb != catalog.network_default("memory_budget_mb"):
            sc["memory_budget_mb"] = self.memory_budget_mb
        if self.flow_starts_s is not None or p.flow_rtts_ms is not None:
            sc = _per_flow(sc, p, self)
        if entry.traffic is not None:
            sc = _traffic_flows(sc, entry.traffic, p, self)
        if self.hops:
            sc = _with_hops(sc, p, self)
        return sc

    def size(self) -> int:
        """Runs in the matrix (before identical scenarios are merged), without expanding it."""
        n = len(self.traces) * len(self.delay_ms) * len(self.buffer_packets) * len(self.flows)
        n *= len(self.start_interval_s) * len(self.flow_rtts_ms or [None])
        return n * len(self.schemes) * len(self.seeds)


def _checked(sc: dict[str, Any], p: RunPoint, exp: Experiment) -> dict[str, Any]:
    """``sc`` with its Python controllers annotated, after the core has validated it (errors name the
    file and the run point)."""
    from accelbrake import controllers

    controllers.annotate(sc)
    try:
        controllers.validate_json(dumps_strict(sc))
    except SimulationError as e:
        raise ExperimentError(f"{exp.source}: {p.describe()}: {e}", key="run") from None
    return sc


def _per_flow(sc: dict[str, Any], p: RunPoint, exp: Experiment) -> dict[str, Any]:
    """Expand ``count`` into separate flows and set each one's start/stop and extra delay."""
    sc = copy.deepcopy(sc)
    flows: list[dict[str, Any]] = []
    for f in sc["flows"]:
        for _ in range(int(f.pop("count", 1))):
            flows.append(copy.deepcopy(f))
    for i, f in enumerate(flows):
        if exp.flow_starts_s is not None:
            f["start_ms"] = exp.flow_starts_s[i] * 1000.0
        if exp.flow_stops_s is not None:
            f["stop_ms"] = exp.flow_stops_s[i] * 1000.0
        if p.flow_rtts_ms is not None:
            f["extra_delay_ms"] = p.flow_rtts_ms[i] - 2.0 * p.delay_ms
    sc["flows"] = flows
    return _checked(sc, p, exp)


def _python_scheme(name: str) -> str | None:
    """``name`` if it is a Python controller (registered, or ``module:Class``, or either with
    ``+queue``), else ``None``; an unimportable ``module:Class`` raises its ScenarioError."""
    from accelbrake import controllers

    cc = name.strip().partition("+")[0]
    return name.strip() if controllers.get_controller(cc) is not None else None


# ---------------------------------------------------------------------------------------------
# Reading and checking


def _parse_toml(text: str, source: str) -> dict[str, Any]:
    from accelbrake._io import DocumentError, parse_toml_document

    try:
        return parse_toml_document(text, source)
    except DocumentError as e:
        raise ExperimentError(str(e), key=source) from None
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise ExperimentError(f"{source}: invalid TOML: {e}", key=source) from None


def load_experiment(
    path: str | os.PathLike[str], overrides: Iterable[str] = (), *, plan: bool = True
) -> Experiment:
    """Read an experiment file (TOML), apply ``--set`` ``overrides`` and check everything.

    Relative trace paths are looked up relative to the current directory, then to the file's
    directory, then in the repository (``traces/``). Raises :class:`ExperimentError` naming the
    file and key, or ``FileNotFoundError``.
    """
    p = Path(path)
    if not p.exists():
        from accelbrake.scenarios import bundled_example

        p = bundled_example(p) or p  # the README's experiments/abc-vs-cubic.toml from any directory
    if not p.is_file():
        if p.exists():
            raise ExperimentError(f"{p}: not a regular file (an experiment file is TOML)", key=str(p))
        raise FileNotFoundError(2, "experiment file not found", str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ExperimentError(f"{p}: not UTF-8 text ({e.reason})", key=str(p)) from None
    doc = _parse_toml(text, str(p))
    doc = apply_overrides(doc, overrides, source=str(p))
    return parse_experiment(doc, source=str(p), base_dir=p.parent, plan=plan)


def apply_overrides(doc: Mapping[str, Any], overrides: Iterable[str], *, source: str) -> dict[str, Any]:
    """Apply ``--set`` items to an experiment document.

    ``matrix.KEY=...``, ``run.KEY=...``, ``schemes.NAME.KEY=...``, ``name=...`` and
    ``description=...`` replace that key of the file; the value is read as TOML (``[0, 1]``, ``30``,
    ``true``, ``"x"``) and else as text, where commas make a list for ``matrix`` keys
    (``matrix.schemes=abc,cubic``). Any other key (``abc.eta=0.9``) is a scenario override added
    to ``run.set``.
    """
    out = copy.deepcopy(dict(doc))
    for item in overrides:
        key, eq, raw = str(item).partition("=")
        key = key.strip()
        if not eq or not key:
            raise ExperimentError(
                f"--set '{item}': expected key=value, e.g. run.duration_s=30, matrix.seeds=[0,1] "
                "or abc.eta=0.9",
                key=key or None,
            )
        parts = key.split(".")
        if parts[0] not in _TOP_KEYS:
            run = out.setdefault("run", {})
            if not isinstance(run, dict):
                raise ExperimentError(f"{source}: run: expected a table, got {_type_name(run)}", key="run")
            existing = run.get("set", [])
            if isinstance(existing, Mapping):
                existing = [f"{k}={v}" for k, v in existing.items()]
            elif not isinstance(existing, list):
                existing = [existing]
            run["set"] = [*existing, f"{key}={raw.strip()}"]
            continue
        value = _toml_value(raw.strip(), list_of_text=parts[0] == "matrix")
        target: dict[str, Any] = out
        for i, part in enumerate(parts[:-1]):
            nxt = target.setdefault(part, {})
            if not isinstance(nxt, dict):
                where = ".".join(parts[: i + 1])
                raise ExperimentError(f"--set {key}: {where} is not a table", key=key)
            target = nxt
        target[parts[-1]] = value
    return out


def _toml_value(raw: str, *, list_of_text: bool) -> Any:
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except ValueError:
        pass
    if list_of_text and "," in raw:
        return [_toml_value(x.strip(), list_of_text=False) for x in raw.split(",") if x.strip()]
    return raw


class _Checker:
    """Reads typed values out of the document, raising errors that name file and key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> ExperimentError:
        return ExperimentError(f"{self.source}: {key}: {message}", key=key)

    def table(
        self, doc: Mapping[str, Any], key: str, allowed: Mapping[str, str], where: str
    ) -> dict[str, Any]:
        v = doc.get(key, {})
        if not isinstance(v, dict):
            raise self.fail(where, f"expected a table ([{where}]), got {_type_name(v)}")
        self.known(v, allowed, where)
        return v

    def known(self, doc: Mapping[str, Any], allowed: Mapping[str, str], where: str) -> None:
        for k in doc:
            if k not in allowed:
                full = f"{where}.{k}" if where else k
                raise self.fail(
                    full, f"unknown key '{k}'{did_you_mean(k, allowed)}; allowed: {', '.join(allowed)}"
                )

    def number(self, v: Any, key: str, unit: str, *, minimum: float = 0.0, strict: bool = False) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            raise self.fail(key, f"expected a number ({unit}), got {_type_name(v)} {v!r}")
        try:
            if unit == "ms":
                x = parse_duration(v, "ms")
            elif unit == "s":
                x = parse_duration(v, "s") / 1000.0
            elif unit == "Mbit/s":
                x = parse_rate(v)
            else:
                x = float(v)
        except ValueError as e:
            raise self.fail(key, f"expected a number ({unit}), got {v!r}: {e}") from None
        if not math.isfinite(x) or (x <= minimum if strict else x < minimum):
            bound = f"> {minimum:g}" if strict else f"≥ {minimum:g}"
            raise self.fail(key, f"expected a number {bound} ({unit}), got {v!r}")
        return x

    def integer(self, v: Any, key: str, what: str, *, minimum: int) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer() and abs(v) >= 2**53:
                # TOML read it as a float, already rounded: 9007199254740993.0 is …992.
                raise self.fail(
                    key,
                    f"expected {what} (a whole number ≥ {minimum}), got the float {v!r}, which cannot "
                    "hold every whole number this large; write it without a decimal point or exponent",
                )
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise self.fail(
                    key, f"expected {what} (a whole number ≥ {minimum}), got {_type_name(v)} {v!r}"
                )
        if v < minimum:
            raise self.fail(key, f"expected {what} (a whole number ≥ {minimum}), got {v}")
        return int(v)

    def string(self, v: Any, key: str, what: str) -> str:
        if not isinstance(v, str) or not v.strip():
            raise self.fail(key, f"expected {what} (a non-empty string), got {_type_name(v)} {v!r}")
        return v.strip()

    def boolean(self, v: Any, key: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(key, f"expected true or false, got {_type_name(v)} {v!r}")
        return v

    def axis(self, matrix: Mapping[str, Any], key: str) -> list[Any]:
        full = f"matrix.{key}"
        if key not in matrix:
            if key in _MATRIX_DEFAULTS:
                return list(_MATRIX_DEFAULTS[key])
            raise self.fail(full, f"missing; give {MATRIX_KEYS[key]}")
        v = matrix[key]
        if not isinstance(v, list):
            if isinstance(v, dict):
                raise self.fail(full, f"expected a list of {MATRIX_KEYS[key]}, got a table")
            v = [v]
        if not v:
            raise self.fail(full, f"empty: the matrix would have no runs; give {MATRIX_KEYS[key]}")
        return v

    def sets(self, v: Any, key: str) -> tuple[tuple[str, Any], ...]:
        if isinstance(v, str):
            v = [v]
        if isinstance(v, dict):
            items = []
            for k, val in v.items():
                if isinstance(val, dict | list):
                    raise self.fail(
                        f"{key}.{k}", f'expected a value like 0.95 or "100ms", got {_type_name(val)}'
                    )
                items.append((str(k), val))
            return tuple(items)
        if not isinstance(v, list):
            raise self.fail(
                key, f'expected a list like ["abc.eta=0.95"] or a table, got {_type_name(v)} {v!r}'
            )
        out = []
        for i, item in enumerate(v):
            if not isinstance(item, str) or "=" not in item:
                raise self.fail(f"{key}[{i}]", f'expected "key=value" like "abc.eta=0.95", got {item!r}')
            k, _, val = item.partition("=")
            out.append((k.strip(), val.strip()))
        return tuple(out)

    def queue(self, v: Any, key: str) -> str:
        text = self.string(v, key, 'a queue like "codel target=50,interval=100"')
        try:
            parse_queue_spec(text, option=key)
        except ScenarioError as e:
            raise self.fail(key, str(e).removeprefix(f"{key} ")) from None
        return text


def _resolve_trace_text(text: str, base_dir: Path | None) -> str:
    """A trace as written, or its path relative to the experiment file's folder if only that exists."""
    if text.lower().startswith(("const:", "constant:", "wifi:")):
        return text
    p = Path(text).expanduser()
    if not p.is_absolute() and not p.exists() and base_dir is not None and (base_dir / p).exists():
        return str(base_dir / p)
    return text


def _check_name(c: _Checker, name: str) -> None:
    """The name is the output folder under ``results/`` (``sweep`` without ``--out``): one plain
    path component, so that it cannot write elsewhere (``../x``, ``/tmp/x``, ``a/b``)."""
    if (
        name in (".", "..")
        or any(ch in name for ch in "/\\")
        or any(ord(ch) < 32 or ch == "\x7f" for ch in name)
    ):
        raise c.fail(
            "name",
            f"expected a plain name for the output folder under results/ (no '/', '\\', control "
            f"characters, '.' or '..'), got {name!r}",
        )


def _check_quick(c: _Checker, quick: Any) -> None:
    """The ``[quick]`` table: each key a ``matrix.KEY`` or ``run.KEY`` of the format (its value is
    checked when ``reproduce --quick`` applies it and parses the result)."""
    if not isinstance(quick, Mapping):
        raise c.fail("quick", f"expected a table of dotted keys, got {_type_name(quick)}")
    for key in quick:
        table, _, sub = str(key).partition(".")
        allowed = {"matrix": MATRIX_KEYS, "run": RUN_KEYS}.get(table)
        if allowed is None or sub not in allowed:
            known = [f"{t}.{k}" for t, keys in (("matrix", MATRIX_KEYS), ("run", RUN_KEYS)) for k in keys]
            raise c.fail(
                f"quick.{key}", f"unknown key{did_you_mean(str(key), known)}; expected matrix.KEY or run.KEY"
            )


def quick_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` as ``reproduce --quick`` runs it: its ``[quick]`` table applied (each dotted key
    replaces that key), ``-quick`` added to its name; the ``[quick]`` table itself removed."""
    out = copy.deepcopy(dict(doc))
    for key, value in out.pop("quick", {}).items():
        table, _, sub = str(key).partition(".")
        out.setdefault(table, {})[sub] = copy.deepcopy(value)
    if "name" in out:
        out["name"] = f"{out['name']}-quick"
    return out


def parse_experiment(
    doc: Mapping[str, Any],
    *,
    source: str = "<experiment>",
    base_dir: Path | None = None,
    keep_scenarios: bool = True,
    plan: bool = True,
) -> Experiment:
    """Check an experiment document (parsed TOML) and return the :class:`Experiment`.

    Every key is checked, every scheme and trace looked up and every scenario of the matrix built
    (and validated by the core) before this returns, so a sweep never fails half-way on bad input.
    The scenarios are kept for the sweep unless ``keep_scenarios`` is false (a sweep of 10⁵ runs
    whose driver memory must not grow with the matrix: :func:`accelbrake.bulk.run_bulk`).
    With ``plan=False`` the scenarios are neither built nor kept (``sweep --check`` builds them as
    it streams the list, in constant memory: :func:`check_points`).
    """
    c = _Checker(source)
    if not isinstance(doc, Mapping):
        raise ExperimentError(f"{source}: expected a table at the top level", key=source)
    c.known(doc, _TOP_KEYS, "")
    name = (
        c.string(doc.get("name", Path(source).stem), "name", "a name") if "name" in doc else Path(source).stem
    )
    if "name" in doc:
        _check_name(c, name)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise c.fail("description", f"expected a string, got {_type_name(description)}")
    if "matrix" not in doc:
        raise c.fail("matrix", "missing: an experiment needs a [matrix] table with schemes and traces")
    matrix = c.table(doc, "matrix", MATRIX_KEYS, "matrix")
    run = c.table(doc, "run", RUN_KEYS, "run")
    _check_quick(c, doc.get("quick", {}))
    max_runs = c.integer(run.get("max_runs", MAX_RUNS), "run.max_runs", "a number of runs", minimum=1)
    schemes_doc = doc.get("schemes", {})
    if not isinstance(schemes_doc, dict):
        raise c.fail("schemes", f"expected a table of [schemes.NAME] tables, got {_type_name(schemes_doc)}")

    # Scheme entries: variants first, then the matrix's names.
    entries: dict[str, SchemeEntry] = {}
    for sname, sdoc in schemes_doc.items():
        where = f"schemes.{sname}"
        if not isinstance(sdoc, dict):
            raise c.fail(where, f"expected a table ([{where}]), got {_type_name(sdoc)}")
        c.known(sdoc, SCHEME_KEYS, where)
        base = c.string(sdoc.get("scheme", sname), f"{where}.scheme", "a scheme preset")
        preset = _python_scheme(base) or canonical_scheme(base)
        if preset not in SCHEMES and _python_scheme(preset) is None:
            key = f"{where}.scheme" if "scheme" in sdoc else where
            raise c.fail(
                key,
                f"unknown scheme '{base}'{did_you_mean(preset, SCHEMES)}; presets: {', '.join(SCHEMES)}"
                + ("" if "scheme" in sdoc else f" (or give scheme = \"...\" to make '{sname}' a variant)"),
            )
        label = c.string(sdoc.get("label", sname), f"{where}.label", "a label")
        sets = c.sets(sdoc.get("set", []), f"{where}.set")
        queue = c.queue(sdoc["queue"], f"{where}.queue") if "queue" in sdoc else None
        ecn = c.boolean(sdoc["ecn"], f"{where}.ecn") if "ecn" in sdoc else None
        traffic = _parse_traffic(c, sdoc, where, base_dir)
        entries[sname] = SchemeEntry(sname, preset, label, sets, queue, ecn, traffic)

    scheme_names: list[str] = []
    for i, v in enumerate(c.axis(matrix, "schemes")):
        key = f"matrix.schemes[{i}]"
        s = c.string(v, key, "a scheme name")
        if s not in entries:
            cs = canonical_scheme(s)
            if cs in entries:
                s = cs
            elif cs in SCHEMES:
                entries[cs] = SchemeEntry(cs, cs, cs)
                s = cs
            elif _python_scheme(s) is not None:
                entries[s] = SchemeEntry(s, s, s)
            else:
                known = [*SCHEMES, *entries]
                raise c.fail(
                    key,
                    f"unknown scheme '{s}'{did_you_mean(cs, known)}; available: {', '.join(known)} "
                    "(or define a variant in [schemes.NAME])",
                )
        if s in scheme_names:
            raise c.fail(key, f"scheme '{s}' listed twice")
        scheme_names.append(s)
    unused = [n for n in entries if n not in scheme_names and n in schemes_doc]
    if unused:
        raise c.fail(
            f"schemes.{unused[0]}",
            f"defined but not in matrix.schemes ({', '.join(scheme_names)}); "
            "add it there or remove the table",
        )

    traces: list[str] = []
    for i, v in enumerate(c.axis(matrix, "traces")):
        key = f"matrix.traces[{i}]"
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = f"const:{v}"
        t = _resolve_trace_text(c.string(v, key, 'a trace file or a rate like "const:24"'), base_dir)
        try:
            link_spec(t)
        except ScenarioError as e:
            raise c.fail(key, str(e).removeprefix("trace: ")) from None
        traces.append(t)

    delays = [c.number(v, f"matrix.delay_ms[{i}]", "ms") for i, v in enumerate(c.axis(matrix, "delay_ms"))]
    buffers = [
        c.integer(v, f"matrix.buffer_packets[{i}]", "a queue limit in packets", minimum=1)
        for i, v in enumerate(c.axis(matrix, "buffer_packets"))
    ]
    flows = [
        c.integer(v, f"matrix.flows[{i}]", "a flow count", minimum=1)
        for i, v in enumerate(c.axis(matrix, "flows"))
    ]
    intervals = [
        c.number(v, f"matrix.start_interval_s[{i}]", "s")
        for i, v in enumerate(c.axis(matrix, "start_interval_s"))
    ]
    seeds_doc = matrix.get("seeds", [0])
    if isinstance(seeds_doc, int | float) and not isinstance(seeds_doc, bool):
        # A count (seeds = 3, or 3.0: the same whole number) means seeds 0..n-1.
        count = c.integer(seeds_doc, "matrix.seeds", "a number of seeds", minimum=1)
        if count > max_runs:  # before the list is built
            raise c.fail(
                "matrix.seeds",
                f"{count:,} seeds make more runs than run.max_runs = {max_runs:,}; use fewer, or raise "
                "run.max_runs if you mean it",
            )
        seeds = list(range(count))
    else:
        seeds = [
            c.integer(v, f"matrix.seeds[{i}]", "a seed", minimum=0)
            for i, v in enumerate(c.axis(matrix, "seeds"))
        ]
    for name_, values in (
        ("delay_ms", delays),
        ("buffer_packets", buffers),
        ("flows", flows),
        ("start_interval_s", intervals),
        ("seeds", seeds),
        ("traces", traces),
    ):
        seen: set[Any] = set()
        for v in values:  # linear: a million seeds are checked at once, not pairwise
            if v in seen:
                raise c.fail(f"matrix.{name_}", f"{v!r} listed twice")
            seen.add(v)

    rtts: list[tuple[float, ...]] | None = None
    if "flow_rtts_ms" in matrix:
        rtts = []
        for i, v in enumerate(c.axis(matrix, "flow_rtts_ms")):
            key = f"matrix.flow_rtts_ms[{i}]"
            if not isinstance(v, list) or not v:
                raise c.fail(
                    key, f"expected a non-empty list of per-flow RTTs in ms like [40, 20], got {v!r}"
                )
            row = tuple(c.number(x, f"{key}[{j}]", "ms", strict=True) for j, x in enumerate(v))
            for j, r in enumerate(row):
                for d in delays:
                    if r < 2 * d - 1e-9:
                        raise c.fail(
                            f"{key}[{j}]",
                            f"RTT {r:g} ms is below the minimum 2·delay_ms = {2 * d:g} ms of matrix.delay_ms",
                        )
            rtts.append(row)
        if "flows" in matrix:
            raise c.fail(
                "matrix.flows", "give either matrix.flows or matrix.flow_rtts_ms (which sets the flow count)"
            )

    duration = c.number(
        run.get("duration_s", catalog.network_default("duration_s")), "run.duration_s", "s", strict=True
    )
    ack_mbps = c.number(run.get("ack_mbps", 12.0), "run.ack_mbps", "Mbit/s", strict=True)
    ack_trace = None
    if "ack_trace" in run and "ack_mbps" in run:
        raise c.fail(
            "run.ack_mbps",
            "given beside run.ack_trace, which sets the ACK link (the rate would be ignored); "
            "give one or the other",
        )
    if "ack_trace" in run:
        ack_trace = _resolve_trace_text(c.string(run["ack_trace"], "run.ack_trace", "a trace file"), base_dir)
        try:
            link_spec(ack_trace, what="ack_trace")
        except ScenarioError as e:
            raise c.fail("run.ack_trace", str(e).removeprefix("ack_trace: ")) from None
    sample_ms = c.number(
        run.get("sample_ms", catalog.network_default("sample_ms")), "run.sample_ms", "ms", minimum=1.0
    )
    record_packets = c.boolean(run.get("record_packets", False), "run.record_packets")
    budget = c.number(
        run.get("memory_budget_mb", catalog.network_default("memory_budget_mb")),
        "run.memory_budget_mb",
        "MB",
        minimum=1.0,
    )
    queue = c.queue(run["queue"], "run.queue") if "queue" in run else None
    ecn = c.boolean(run["ecn"], "run.ecn") if "ecn" in run else None
    shared_sets = c.sets(run.get("set", []), "run.set")

    starts = stops = None
    if "flow_starts_s" in run:
        v = run["flow_starts_s"]
        if not isinstance(v, list) or not v:
            raise c.fail("run.flow_starts_s", f"expected a non-empty list of start times in s, got {v!r}")
        starts = tuple(c.number(x, f"run.flow_starts_s[{i}]", "s") for i, x in enumerate(v))
        if "flows" in matrix or rtts is not None and any(len(r) != len(starts) for r in rtts):
            raise c.fail(
                "run.flow_starts_s",
                "sets the flow count; leave out matrix.flows (flow_rtts_ms rows must match)",
            )
        if any(i != 0.0 for i in intervals):
            raise c.fail("run.flow_starts_s", "give either run.flow_starts_s or matrix.start_interval_s")
    if "flow_stops_s" in run:
        if starts is None:
            raise c.fail("run.flow_stops_s", "needs run.flow_starts_s (one start and one stop per flow)")
        v = run["flow_stops_s"]
        if not isinstance(v, list) or len(v) != len(starts):
            raise c.fail(
                "run.flow_stops_s", f"expected a list of {len(starts)} stop times in s (one per flow)"
            )
        stops = tuple(c.number(x, f"run.flow_stops_s[{i}]", "s") for i, x in enumerate(v))
        for i, (a, b) in enumerate(zip(starts, stops, strict=True)):
            if b <= a:
                raise c.fail(f"run.flow_stops_s[{i}]", f"stop {b:g} s is not after the start {a:g} s")

    hops = _parse_hops(c, doc.get("hops"), base_dir)

    exp = Experiment(
        name=name,
        description=description,
        schemes=tuple(entries[n] for n in scheme_names),
        traces=tuple(traces),
        delay_ms=tuple(delays),
        buffer_packets=tuple(buffers),
        flows=tuple(flows),
        start_interval_s=tuple(intervals),
        flow_rtts_ms=tuple(rtts) if rtts is not None else None,
        seeds=tuple(seeds),
        duration_s=duration,
        ack_mbps=ack_mbps,
        ack_trace=ack_trace,
        sample_ms=sample_ms,
        record_packets=record_packets,
        memory_budget_mb=budget,
        queue=queue,
        ecn=ecn,
        sets=shared_sets,
        flow_starts_s=starts,
        flow_stops_s=stops,
        hops=hops,
        source=source,
        document=copy.deepcopy(dict(doc)),
    )
    _check_shared_sets(exp)
    if exp.size() > max_runs:
        raise c.fail(
            "matrix",
            f"{exp.size():,} runs (the product of the matrix's axes), more than run.max_runs = {max_runs:,}; "
            "shrink an axis, or raise run.max_runs if you mean it",
        )
    if not plan:
        return exp
    # Build every scenario once, so that any remaining problem shows before the first run.
    for p in exp.points():
        sc = exp.scenario(p)
        if keep_scenarios:
            exp._planned[p] = (sc, None)  # kept for the sweep (see runner.planned)
    return exp


def _check_shared_sets(exp: Experiment) -> None:
    """A ``run.set`` key must apply to at least one scheme of the matrix (as in ``compare``)."""
    if not exp.sets:
        return
    applies: dict[str, bool] = {k: False for k, _ in exp.sets}
    for s in exp.schemes:
        queue = s.queue if s.queue is not None else exp.queue
        qtype = parse_queue_spec(queue)["type"] if queue is not None else None
        keep, _ = sets_for_scheme(list(exp.sets), s.preset, qtype)
        for k, _ in keep:
            applies[k] = True
    for k, ok in applies.items():
        if not ok:
            raise ExperimentError(
                f"{exp.source}: run.set: '{k}' does not apply to any scheme of the matrix "
                f"({', '.join(exp.scheme_names)})",
                key="run.set",
            )


# ---------------------------------------------------------------------------------------------
# Mixed schemes and traffic models in one run: the `mix`, `arrivals` and `apps` keys
# of a [schemes.NAME] table. Kept in this section so that the rest of the file is untouched.
# ---------------------------------------------------------------------------------------------

#: ``[schemes.NAME]`` keys for mixed traffic (merged into :data:`SCHEME_KEYS`).
MIX_SCHEME_KEYS: dict[str, str] = {
    "mix": 'flows of several schemes sharing the bottleneck, "abc:3,cubic:3" or ["abc:3", "cubic:3"] '
    "(replaces matrix.flows; the queue is this entry's scheme's or queue)",
    "arrivals": "list of tables: Poisson arrivals of finite flows (scheme, rate_per_s or load_mbps, size, "
    "start_s, stop_s)",
    "apps": "list of tables: application-limited flows at a constant rate (scheme, count, rate_mbps, "
    "start_s, stop_s)",
}
SCHEME_KEYS.update(MIX_SCHEME_KEYS)

_ARRIVAL_KEYS: dict[str, str] = {
    "scheme": "the flows' scheme (its controller; the queue is the run's)",
    "rate_per_s": "arrivals per second",
    "load_mbps": "offered load, payload Mbit/s (rate = load / mean size)",
    "size": 'size distribution: {dist = "fixed", bytes = N}, {dist = "exponential", mean_bytes = N}, '
    '{dist = "pareto", shape = A, mean_bytes = N} or {dist = "empirical", cdf = "FILE"}',
    "start_s": "first possible arrival (default 0)",
    "stop_s": "no arrivals after this (default run.duration_s)",
}
_APP_KEYS: dict[str, str] = {
    "scheme": "the flows' scheme",
    "count": "how many flows (default 1)",
    "rate_mbps": "each flow's application rate, payload Mbit/s (while on, for an on/off source)",
    "on_s": "on/off source: length of each on period (give with off_s)",
    "off_s": "on/off source: length of each off period",
    "start_s": "start (default 0)",
    "stop_s": "stop (default: the end of the run)",
    "spread_s": "each flow starts at start_s + a uniform draw in [0, spread_s) from the seed (default: one "
    "packet interval, 1448 B / rate_mbps; 0: all start together and send in step)",
}


@dataclass(frozen=True)
class Traffic:
    """The mixed traffic of one ``[schemes.NAME]`` entry."""

    mix: tuple[tuple[str, int], ...] | None = None
    arrivals: tuple[dict[str, Any], ...] = ()
    apps: tuple[dict[str, Any], ...] = ()


def _parse_traffic(c: _Checker, sdoc: Mapping[str, Any], where: str, base_dir: Path | None) -> Traffic | None:
    """The ``mix``/``arrivals``/``apps`` keys of a scheme table, checked (errors name file and key)."""
    if not any(k in sdoc for k in MIX_SCHEME_KEYS):
        return None
    from accelbrake.mix import parse_flow_mix, poisson_flows

    mix = None
    if "mix" in sdoc:
        raw = sdoc["mix"]
        text = ",".join(str(x) for x in raw) if isinstance(raw, list) else raw
        if not isinstance(text, str):
            raise c.fail(f"{where}.mix", f'expected "SCHEME:N,..." or a list of them, got {_type_name(raw)}')
        try:
            parsed = parse_flow_mix(text, key=f"{where}.mix")
        except ScenarioError as e:
            raise c.fail(f"{where}.mix", str(e).removeprefix(f"{where}.mix: ")) from None
        if isinstance(parsed, int):
            raise c.fail(
                f"{where}.mix",
                "expected SCHEME:N groups such as abc:3,cubic:3 (for a count use matrix.flows)",
            )
        mix = tuple(parsed)

    def tables(key: str, allowed: Mapping[str, str]) -> list[dict[str, Any]]:
        v = sdoc.get(key, [])
        if isinstance(v, dict):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
            raise c.fail(
                f"{where}.{key}", f"expected a list of tables ([[{where}.{key}]]), got {_type_name(v)}"
            )
        for i, t in enumerate(v):
            c.known(t, allowed, f"{where}.{key}[{i}]")
            if "scheme" not in t:
                raise c.fail(f"{where}.{key}[{i}].scheme", 'missing: the flows\' scheme, e.g. "cubic"')
            try:
                from accelbrake.schemes import scheme_preset

                scheme_preset(c.string(t["scheme"], f"{where}.{key}[{i}].scheme", "a scheme"))
            except ScenarioError as e:
                raise c.fail(f"{where}.{key}[{i}].scheme", str(e)) from None
        return [dict(x) for x in v]

    arrivals = tables("arrivals", _ARRIVAL_KEYS)
    for i, a in enumerate(arrivals):
        k = f"{where}.arrivals[{i}]"
        size = a.get("size")
        if not isinstance(size, dict):
            raise c.fail(
                f"{k}.size",
                f'expected a table such as {{dist = "fixed", bytes = 10000}}, got {_type_name(size)}',
            )
        size = dict(size)
        if size.get("dist") == "empirical" and isinstance(size.get("cdf"), str):
            cdf = Path(size["cdf"])
            if (
                not cdf.is_absolute()
                and not cdf.exists()
                and base_dir is not None
                and (base_dir / cdf).exists()
            ):
                size["cdf"] = str(base_dir / cdf)
        a["size"] = size
        for t in ("start_s", "stop_s"):
            if t in a:
                a[t] = c.number(a[t], f"{k}.{t}", "s")
        try:  # checks the rate, the size distribution and the number of arrivals
            poisson_flows(
                str(a["scheme"]),
                rate_per_s=a.get("rate_per_s"),
                load_mbps=a.get("load_mbps"),
                size=size,
                start_ms=1000.0 * a.get("start_s", 0.0),
                stop_ms=1000.0 * a.get("stop_s", 1e-3 + a.get("start_s", 0.0)),
                seed=0,
                key=k,
            )
        except ScenarioError as e:
            raise ExperimentError(f"{c.source}: {e}", key=k) from None
    apps = tables("apps", _APP_KEYS)
    for i, a in enumerate(apps):
        k = f"{where}.apps[{i}]"
        if "rate_mbps" not in a:
            raise c.fail(f"{k}.rate_mbps", "missing: each flow's application rate in Mbit/s")
        a["rate_mbps"] = c.number(a["rate_mbps"], f"{k}.rate_mbps", "Mbit/s", strict=True)
        a["count"] = c.integer(a.get("count", 1), f"{k}.count", "a flow count", minimum=1)
        if ("on_s" in a) != ("off_s" in a):
            raise c.fail(
                f"{k}.{'off_s' if 'on_s' in a else 'on_s'}", "missing: an on/off source needs on_s and off_s"
            )
        for t in ("start_s", "stop_s", "spread_s", "on_s", "off_s"):
            if t in a:
                a[t] = c.number(a[t], f"{k}.{t}", "s")
    return Traffic(mix, tuple(arrivals), tuple(apps))


def _traffic_flows(sc: dict[str, Any], traffic: Traffic, p: RunPoint, exp: Experiment) -> dict[str, Any]:
    """Add the entry's Poisson arrivals and application-limited flows to a built scenario.

    Application-limited flows start at random phases (``spread_s``, default one packet interval):
    constant-rate flows started together would each fill a packet at the same instants and arrive
    as one burst of ``count`` packets every interval."""
    import random

    from accelbrake.mix import MSS_BYTES, poisson_flows
    from accelbrake.schemes import scheme_preset

    sc = copy.deepcopy(sc)
    dur_ms = float(sc["duration_ms"])
    for i, a in enumerate(traffic.apps):
        preset = scheme_preset(str(a["scheme"]))
        spread_ms = 1000.0 * a.get("spread_s", MSS_BYTES * 8 / (a["rate_mbps"] * 1e6))
        rng = random.Random(f"apps/{p.seed}/{i}")
        start_ms = 1000.0 * a.get("start_s", 0.0)
        for _ in range(a["count"]):
            f: dict[str, Any] = {
                "scheme": preset.cc,
                "params": {},
                "fwd": [0],
                "rev": [1],
                "app": {
                    "type": "onoff",
                    "mbps": a["rate_mbps"],
                    "on_ms": 1000.0 * a["on_s"],
                    "off_ms": 1000.0 * a["off_s"],
                }
                if "on_s" in a
                else {"type": "rate", "mbps": a["rate_mbps"]},
                "start_ms": round(start_ms + rng.uniform(0.0, spread_ms), 6) if spread_ms > 0 else start_ms,
            }
            if "stop_s" in a:
                f["stop_ms"] = max(f["start_ms"], 1000.0 * a["stop_s"])
            sc["flows"].append(f)
    for i, a in enumerate(traffic.arrivals):
        sc["flows"].extend(
            poisson_flows(
                str(a["scheme"]),
                rate_per_s=a.get("rate_per_s"),
                load_mbps=a.get("load_mbps"),
                size=a["size"],
                start_ms=1000.0 * a.get("start_s", 0.0),
                stop_ms=min(dur_ms, 1000.0 * a.get("stop_s", dur_ms / 1000.0)),
                seed=p.seed,
                key=f"arrivals[{i}]",
            )
        )
    return _checked(sc, p, exp)


# ---------------------------------------------------------------------------------------------
# Several bottlenecks: [[hops]]. The matrix's trace, queue and delay make one data
# bottleneck; each [[hops]] table adds another in series on the data path, before or after it (in
# file order). Every flow crosses all of them; the ACKs go back over the matrix's ACK link. The
# core reports the path's slowest hop (lowest mean capacity) as the bottleneck.

#: ``[[hops]]`` keys.
HOP_KEYS: dict[str, str] = {
    "name": "a name for the hop (default hopN)",
    "link": 'its link: a trace, "const:12", or rate steps "steps:0=6,5=18,10=9" (from t s on, R Mbit/s)',
    "queue": 'its queue, Mahimahi-style, e.g. "droptail packets=100" or "abc"; "same": the queue the '
    "run's scheme has on the matrix's bottleneck (default: droptail with the matrix's buffer_packets)",
    "delay_ms": "its one-way propagation delay in ms (default 0), added to the matrix's",
    "position": '"after" (default) or "before" the matrix\'s bottleneck',
}


def _steps_link(c: _Checker, text: str, key: str) -> dict[str, Any]:
    """``steps:0=6,5=18`` → a schedule link: from 0 s 6 Mbit/s, from 5 s 18 Mbit/s."""
    body = text.split(":", 1)[1]
    steps: list[list[float]] = []
    for i, item in enumerate(x.strip() for x in body.replace(" ", ",").split(",") if x.strip()):
        t, eq, r = item.partition("=")
        try:
            t_s, mbps = float(t.removesuffix("s")), parse_rate(r)
        except ValueError:
            t_s = mbps = math.nan
        if not eq or not (math.isfinite(t_s) and t_s >= 0 and math.isfinite(mbps) and mbps > 0):
            raise c.fail(key, f"step {i + 1} '{item}': expected TIME=RATE, e.g. 5=18 (from 5 s on 18 Mbit/s)")
        if steps and t_s * 1000.0 <= steps[-1][0]:
            raise c.fail(key, f"step {i + 1} '{item}': times must increase")
        steps.append([t_s * 1000.0, mbps])
    if not steps or steps[0][0] != 0.0:
        raise c.fail(key, f"'{text}': expected steps starting at 0, e.g. steps:0=6,5=18")
    return {"type": "schedule", "steps": steps}


def _parse_hops(c: _Checker, v: Any, base_dir: Path | None) -> tuple[dict[str, Any], ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(h, dict) for h in v):
        raise c.fail("hops", f"expected [[hops]] tables (an array of tables), got {_type_name(v)}")
    out = []
    for i, h in enumerate(v):
        where = f"hops[{i}]"
        c.known(h, HOP_KEYS, where)
        if "link" not in h:
            raise c.fail(where, "missing: link (a trace, const:RATE or steps:...)")
        text = c.string(h["link"], f"{where}.link", "a link")
        if text.strip().lower().startswith("steps:"):
            link = _steps_link(c, text.strip(), f"{where}.link")
        else:
            try:
                link = link_spec(_resolve_trace_text(text, base_dir), what=f"{where}.link")
            except ScenarioError as e:
                raise c.fail(f"{where}.link", str(e).removeprefix(f"{where}.link: ")) from None
        if h.get("queue") == "same":
            queue: dict[str, Any] = {"type": "same"}
        elif "queue" in h:
            queue = parse_queue_spec(c.queue(h["queue"], f"{where}.queue"))
        else:
            queue = {"type": "droptail"}
        position = h.get("position", "after")
        if position not in ("after", "before"):
            raise c.fail(f"{where}.position", f"expected 'after' or 'before', got {position!r}")
        hop = {
            "name": c.string(h.get("name", f"hop{i + 1}"), f"{where}.name", "a name"),
            "link": link,
            "queue": queue,
            "delay_ms": c.number(h.get("delay_ms", 0.0), f"{where}.delay_ms", "ms"),
        }
        out.append({"position": position, "hop": hop})
    return tuple(out)


def _with_hops(sc: dict[str, Any], p: RunPoint, exp: Experiment) -> dict[str, Any]:
    """Insert the extra hops around the matrix's data hop (hop 0) and route every flow through them."""
    sc = copy.deepcopy(sc)
    data, *rest = sc["hops"]
    before = [copy.deepcopy(h["hop"]) for h in exp.hops if h["position"] == "before"]
    after = [copy.deepcopy(h["hop"]) for h in exp.hops if h["position"] == "after"]
    for hop in (*before, *after):
        if hop["queue"]["type"] == "same":
            hop["queue"] = copy.deepcopy(data["queue"])
        q = hop["queue"]
        if q["type"] != "infinite" and "packets" not in q and "bytes" not in q:
            q["packets"] = p.buffer_packets
    path = [*before, data, *after]
    sc["hops"] = [*path, *rest]
    shift = len(path) - 1
    for f in sc["flows"]:
        f["fwd"] = list(range(len(path)))
        f["rev"] = [h + shift for h in f["rev"]]
    from accelbrake import controllers

    try:
        controllers.validate_json(dumps_strict(sc))
    except SimulationError as e:
        raise ExperimentError(f"{exp.source}: hops: {p.describe()}: {e}", key="hops") from None
    return sc
