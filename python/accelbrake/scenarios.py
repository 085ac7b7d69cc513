"""Build scenario dictionaries for the core, the way the ABC experiments set them up.

The topology is Mahimahi's ``mm-delay D mm-link DATA-TRACE ACK-TRACE``: the data direction crosses
hop 0 (the scheme's queue in front of the trace link, then ``D`` ms of propagation delay), the ACKs
cross hop 1 (an infinite queue in front of the ACK link, then ``D`` ms). The minimum RTT is ``2·D``.

>>> from accelbrake import build_scenario
>>> sc = build_scenario("abc", trace="const:24", duration_s=10, sets=["abc.delta=100ms"])
>>> sc["hops"][0]["queue"]["delta_ms"]
100.0

Overrides (``sets``) are ``key=value`` strings with units; :data:`SET_KEYS` lists every key.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from accelbrake import _core
from accelbrake._core import SimulationError
from accelbrake._io import find_upwards

__all__ = [
    "DEFAULT_TRACE",
    "SCHEMES",
    "SET_KEYS",
    "SchemePreset",
    "ScenarioError",
    "apply_sets",
    "build_scenario",
    "link_spec",
    "load_scenario_file",
    "parse_duration",
    "parse_rate",
    "resolve_trace",
    "scheme_preset",
    "set_applies",
    "sets_for_scheme",
]

#: The bundled Verizon LTE uplink trace the ABC artifact's experiments use (140 s, 5.96 Mbit/s).
DEFAULT_TRACE = "traces/Verizon-LTE-short.up"


class ScenarioError(SimulationError):
    """An invalid scenario argument, ``--set`` override or scenario file.

    A :class:`accelbrake.SimulationError` (hence a ``ValueError``); ``key`` names what was wrong
    (a ``--set`` key, an argument name or a file), or is ``None``.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key

    def __reduce__(self):  # keep `key` across pickling (process pools)
        return (type(self), (str(self), self.key))


class SchemePreset(NamedTuple):
    """What a user-facing scheme name means: the sender's controller and the bottleneck queue."""

    cc: str
    """Congestion-control scheme name in the core (``flows[].scheme``)."""
    queue: str
    """Queue type on the data bottleneck (``hops[0].queue.type``)."""


#: User-facing scheme names → (controller in the core, queue type on the data bottleneck).
#: ABC needs the ABC router (the artifact's ``cellular`` queue); the others use drop-tail, as in
#: the artifact's ``exp.sh``.
SCHEMES: dict[str, SchemePreset] = {
    "abc": SchemePreset("abc", "abc"),
    "abc-cubic": SchemePreset("abc-cubic", "abc"),
    "cubic": SchemePreset("cubic", "droptail"),
    "newreno": SchemePreset("newreno", "droptail"),
}


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """A `` (did you mean 'x'?)`` suffix for the closest known word, or ``""``."""
    match = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def scheme_preset(scheme: str) -> SchemePreset:
    """Look a user-facing scheme name up in :data:`SCHEMES` (case and ``_``/``-`` insensitive)."""
    name = str(scheme).strip().lower().replace("_", "-")
    try:
        return SCHEMES[name]
    except KeyError:
        raise ScenarioError(
            f"unknown scheme '{scheme}'{_did_you_mean(name, SCHEMES)}; available: {', '.join(SCHEMES)}",
            key="scheme",
        ) from None


# ---------------------------------------------------------------------------------------------
# Units


_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY_RE = re.compile(rf"^\s*({_NUMBER})\s*([^\d\s].*?)?\s*$")

_DURATION_UNITS_MS = {
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "μs": 1e-3,
    "ms": 1.0,
    "s": 1e3,
    "sec": 1e3,
    "min": 6e4,
}
_RATE_UNITS_MBPS = {
    "bps": 1e-6,
    "bit/s": 1e-6,
    "kbps": 1e-3,
    "kbit/s": 1e-3,
    "kbits/s": 1e-3,
    "mbps": 1.0,
    "mbit/s": 1.0,
    "mbits/s": 1.0,
    "gbps": 1e3,
    "gbit/s": 1e3,
    "gbits/s": 1e3,
}
_SIZE_UNITS_BYTES = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000**2, "mib": 1024**2}


def _quantity(text: Any, units: Mapping[str, float], default_unit: str, expected: str) -> float:
    """Parse ``number[unit]`` into the base unit; raise ``ValueError(expected ...)`` otherwise."""
    if isinstance(text, bool):
        raise ValueError(f"expected {expected}, got {text!r}")
    if isinstance(text, int | float):
        value, unit = float(text), ""
    else:
        m = _QUANTITY_RE.match(str(text))
        if not m:
            raise ValueError(f"expected {expected}, got '{text}'")
        value, unit = float(m.group(1)), (m.group(2) or "").lower()
    scale = units.get(unit or default_unit)
    if scale is None:
        raise ValueError(f"unknown unit '{unit}'{_did_you_mean(unit, units)}; expected {expected}")
    value *= scale
    if not math.isfinite(value):
        raise ValueError(f"expected {expected}, got '{text}' (not a finite number)")
    return value


def parse_duration(text: Any, default_unit: str = "ms") -> float:
    """Parse a duration into milliseconds: ``"100ms"``, ``"0.1s"``, ``"250us"``, or a bare number
    in ``default_unit`` (ms unless told otherwise). Raises ``ValueError`` on anything else."""
    return _quantity(text, _DURATION_UNITS_MS, default_unit, "a duration like 100ms, 0.1s or 100 (ms)")


def parse_rate(text: Any) -> float:
    """Parse a rate into Mbit/s (10^6 bit/s): ``"12mbps"``, ``"12Mbit/s"``, ``"500kbps"``,
    ``"1gbps"``, or a bare number in Mbit/s. Raises ``ValueError`` on anything else."""
    return _quantity(text, _RATE_UNITS_MBPS, "mbps", "a rate like 12mbps, 12Mbit/s or 12 (Mbit/s)")


def _parse_size(text: Any) -> int:
    """Parse a byte count: ``"150000"``, ``"150kB"``, ``"1MiB"``."""
    v = _quantity(text, _SIZE_UNITS_BYTES, "b", "a size in bytes like 150000, 150kB or 1MiB")
    if v != int(v) or v < 0:
        raise ValueError(f"expected a whole number of bytes ≥ 0, got '{text}'")
    return int(v)


def _parse_int(text: Any) -> int:
    if isinstance(text, bool):
        raise ValueError(f"expected a whole number, got {text!r}")
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ValueError(f"expected a whole number, got '{text}'") from None
    if not math.isfinite(v) or v != int(v):
        raise ValueError(f"expected a whole number, got '{text}'")
    return int(v)


def _parse_float(text: Any) -> float:
    if isinstance(text, bool):
        raise ValueError(f"expected a number, got {text!r}")
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ValueError(f"expected a number like 0.95, got '{text}'") from None
    if not math.isfinite(v):
        raise ValueError(f"expected a finite number, got '{text}'")
    return v


_TRUE = {"true", "yes", "on", "1", "1.0"}
_FALSE = {"false", "no", "off", "0", "0.0"}


def _parse_bool(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    s = str(text).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise ValueError(f"expected true or false (also yes/no, on/off, 1/0), got '{text}'")


# ---------------------------------------------------------------------------------------------
# --set keys


@dataclass(frozen=True)
class _SetKey:
    """One ``--set`` key: where it lands in the scenario and how its value is parsed."""

    target: str  # "router" (every abc queue), "param" (flow params), "queue" (data queue), "flow", "link"
    field: str  # JSON key
    kind: str  # duration | float | int | bool | size | choice | rate
    help: str
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()  # for target "param": controllers accepting it


_ABC = ("abc", "abc-cubic")

#: Every ``--set`` key. Durations take units (bare numbers are ms), booleans take true/false.
SET_KEYS: dict[str, _SetKey] = {
    # ABC router (the abc queue on the data bottleneck)
    "abc.eta": _SetKey("router", "eta", "float", "η, target utilisation (default 0.98)"),
    "abc.delta": _SetKey("router", "delta_ms", "duration", "δ, time to drain excess queue (default 133ms)"),
    "abc.dt": _SetKey("router", "dt_ms", "duration", "d_t, queueing-delay threshold (default 50ms)"),
    "abc.window": _SetKey("router", "window_ms", "duration", "T, window for measuring rates (default 20ms)"),
    "abc.token_limit": _SetKey("router", "token_limit", "float", "token bucket limit (default 5)"),
    "abc.rate_source": _SetKey(
        "router", "rate_source", "choice", "rate measured at dequeue or enqueue", ("dequeue", "enqueue")
    ),
    "abc.delay_source": _SetKey(
        "router", "delay_source", "choice", "queueing delay from queue length or sojourn", ("qlen", "sojourn")
    ),
    # ABC sender
    "abc.initial_window": _SetKey(
        "param", "initial_window", "float", "initial window, segments", schemes=_ABC
    ),
    "abc.min_window": _SetKey("param", "min_window", "float", "smallest window, segments", schemes=_ABC),
    "abc.additive_increase": _SetKey(
        "param", "additive_increase", "bool", "Eq. 3 additive increase", schemes=_ABC
    ),
    "abc.pacing_gain": _SetKey(
        "param", "pacing_gain", "float", "pacing gain over w/RTT (0: off)", schemes=_ABC
    ),
    # Cubic
    "cubic.initial_window": _SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=("cubic",)
    ),
    "cubic.beta": _SetKey(
        "param", "beta", "float", "multiplicative decrease (default 0.7)", schemes=("cubic",)
    ),
    "cubic.c": _SetKey("param", "c", "float", "cubic scaling constant (default 0.4)", schemes=("cubic",)),
    "cubic.fast_convergence": _SetKey(
        "param", "fast_convergence", "bool", "fast convergence", schemes=("cubic",)
    ),
    "cubic.tcp_friendliness": _SetKey(
        "param", "tcp_friendliness", "bool", "Reno-friendly region", schemes=("cubic",)
    ),
    "cubic.hystart": _SetKey("param", "hystart", "bool", "hybrid slow start", schemes=("cubic",)),
    "cubic.hystart_detect": _SetKey(
        "param", "hystart_detect", "int", "HyStart detectors bit set 0..3", schemes=("cubic",)
    ),
    "cubic.hystart_low_window": _SetKey(
        "param", "hystart_low_window", "int", "HyStart acts from this window on", schemes=("cubic",)
    ),
    "cubic.hystart_ack_delta": _SetKey(
        "param",
        "hystart_ack_delta_ms",
        "duration",
        "largest ACK spacing in a train (default 2ms)",
        schemes=("cubic",),
    ),
    # NewReno
    "newreno.initial_window": _SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=("newreno",)
    ),
    "newreno.beta": _SetKey("param", "beta", "float", "decrease on loss (default 0.5)", schemes=("newreno",)),
    "newreno.beta_ecn": _SetKey(
        "param", "beta_ecn", "float", "decrease on ECN (default 0.5)", schemes=("newreno",)
    ),
    # Data queue and link
    "queue.packets": _SetKey("queue", "packets", "int", "data queue limit, packets"),
    "queue.bytes": _SetKey("queue", "bytes", "size", "data queue limit, bytes"),
    "link.once": _SetKey("link", "once", "bool", "play the data trace once (mm-link --once)"),
    # Flows
    "flow.ecn": _SetKey("flow", "ecn", "bool", "ECN for non-ABC schemes"),
    "flow.delayed_ack": _SetKey("flow", "delayed_ack", "bool", "delayed ACKs (every 2nd segment / 40 ms)"),
    "flow.start": _SetKey("flow", "start_ms", "duration", "start time"),
    "flow.stop": _SetKey("flow", "stop_ms", "duration", "stop time (no new data after it)"),
    "flow.extra_delay": _SetKey("flow", "extra_delay_ms", "duration", "extra one-way delay at the sender"),
    "flow.interval": _SetKey("flow", "interval_ms", "duration", "stagger: flow i starts i·interval later"),
}

#: Alternative spellings: the JSON field names and the artifact's ``qdelay_ref``.
_ALIASES = {
    "abc.delta_ms": "abc.delta",
    "abc.dt_ms": "abc.dt",
    "abc.qdelay_ref": "abc.dt",
    "abc.window_ms": "abc.window",
    "cubic.hystart_ack_delta_ms": "cubic.hystart_ack_delta",
    "flow.start_ms": "flow.start",
    "flow.stop_ms": "flow.stop",
    "flow.extra_delay_ms": "flow.extra_delay",
    "flow.interval_ms": "flow.interval",
}


def _parse_value(k: _SetKey, raw: Any) -> Any:
    if k.kind == "duration":
        return parse_duration(raw)
    if k.kind == "float":
        return _parse_float(raw)
    if k.kind == "int":
        return _parse_int(raw)
    if k.kind == "bool":
        return _parse_bool(raw)
    if k.kind == "size":
        return _parse_size(raw)
    if k.kind == "rate":
        return parse_rate(raw)
    s = str(raw).strip().lower()
    if s not in k.choices:
        raise ValueError(f"got '{raw}'{_did_you_mean(s, k.choices)}; expected {' or '.join(k.choices)}")
    return s


def _canonical_key(key: str) -> str:
    key = key.strip().lower()
    prefix, dot, field = key.partition(".")
    if prefix.replace("_", "-") == "abc-cubic":
        prefix = "abc"
    key = prefix + dot + field.replace("-", "_")
    return _ALIASES.get(key, key)


def _split_sets(sets: Iterable[str] | Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    if sets is None:
        return []
    if isinstance(sets, Mapping):
        return [(str(k), v) for k, v in sets.items()]
    if isinstance(sets, str):
        sets = [sets]
    out = []
    for item in sets:
        if isinstance(item, tuple) and len(item) == 2:
            out.append((str(item[0]), item[1]))
            continue
        key, eq, value = str(item).partition("=")
        if not eq or not key.strip():
            raise ScenarioError(
                f"--set '{item}': expected key=value, e.g. abc.delta=100ms or cubic.beta=0.7",
                key=key.strip() or None,
            )
        out.append((key.strip(), value.strip()))
    return out


def _unknown_key_message(key: str) -> str:
    prefix = key.partition(".")[0]
    same_prefix = [k for k in SET_KEYS if k.startswith(prefix + ".")]
    listing = same_prefix if same_prefix else sorted(SET_KEYS)
    return (
        f"unknown --set key '{key}'{_did_you_mean(key, [*SET_KEYS, *_ALIASES])}; "
        f"{'known ' + prefix + ' keys' if same_prefix else 'known keys'}: {', '.join(listing)}"
    )


def _data_hop(scenario: Mapping[str, Any]) -> int:
    """The data bottleneck queue: first hop on flow 0's data path with a finite queue."""
    hops = scenario.get("hops") or []
    flows = scenario.get("flows") or []
    path = list(flows[0].get("fwd", [])) if flows else []
    for h in path:
        if isinstance(h, int) and 0 <= h < len(hops) and hops[h].get("queue", {}).get("type") != "infinite":
            return h
    return path[0] if path and isinstance(path[0], int) else 0


def _expand_flow_counts(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in flows:
        n = int(f.get("count", 1))
        for _ in range(max(n, 1)):
            g = copy.deepcopy(f)
            g.pop("count", None)
            out.append(g)
    return out


def apply_sets(
    scenario: Mapping[str, Any],
    sets: Iterable[str] | Mapping[str, Any] | None,
    *,
    strict: bool = True,
    _locations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Return a copy of ``scenario`` with ``key=value`` overrides applied (see :data:`SET_KEYS`).

    * ``abc.eta/delta/dt/window/token_limit/rate_source/delay_source`` set every ``abc`` queue;
    * ``abc.*``, ``cubic.*``, ``newreno.*`` sender keys set ``params`` of every flow whose
      controller accepts them (booleans become 1.0/0.0);
    * ``queue.packets`` / ``queue.bytes`` set the data queue limit (the first hop on flow 0's data
      path with a finite queue); ``link.once`` plays that hop's trace once;
    * ``flow.*`` set fields of every flow; ``flow.interval`` staggers flow starts.

    Unknown keys or bad values raise :class:`ScenarioError` naming the key and the expected form.
    With ``strict`` a key that applies to nothing in the scenario (e.g. ``cubic.beta`` for an ABC
    flow) is an error too; without it such keys are skipped.
    """
    sc: dict[str, Any] = copy.deepcopy(dict(scenario))
    hops: list[dict[str, Any]] = sc.get("hops") or []
    flows: list[dict[str, Any]] = sc.get("flows") or []
    for raw_key, raw_value in _split_sets(sets):
        key = _canonical_key(raw_key)
        spec = SET_KEYS.get(key)
        if spec is None:
            raise ScenarioError(_unknown_key_message(raw_key.strip()), key=raw_key.strip())
        try:
            value = _parse_value(spec, raw_value)
        except ValueError as e:
            raise ScenarioError(f"--set {raw_key.strip()}={raw_value}: {e}", key=key) from None
        item = f"{raw_key.strip()}={raw_value}"
        applied = False
        if spec.target == "router":
            for i, h in enumerate(hops):
                q = h.get("queue", {})
                if q.get("type") == "abc":
                    q[spec.field] = value
                    applied = True
                    if _locations is not None:
                        _locations[f"hops[{i}].queue.{spec.field}"] = item
            why = "it sets the ABC router, but no hop has an abc queue"
        elif spec.target == "param":
            for f in flows:
                if f.get("scheme") in spec.schemes:
                    f.setdefault("params", {})[spec.field] = float(value)
                    applied = True
            if _locations is not None:
                _locations[key] = item
            used = sorted({str(f.get("scheme")) for f in flows})
            why = f"it applies to {' / '.join(spec.schemes)} flows, but the flows use {', '.join(used)}"
        elif spec.target in ("queue", "link"):
            if hops:
                i = _data_hop(sc)
                if spec.target == "queue":
                    q = hops[i].setdefault("queue", {})
                    if q.get("type") == "infinite":
                        why = "the data queue is infinite; it has no limit"
                    else:
                        q.pop("bytes" if spec.field == "packets" else "packets", None)
                        q[spec.field] = value
                        applied = True
                        if _locations is not None:
                            _locations[f"hops[{i}].queue"] = item
                            _locations[f"hops[{i}].queue.{spec.field}"] = item
                else:
                    link = hops[i].setdefault("link", {})
                    if link.get("type") == "trace":
                        link["once"] = value
                        applied = True
                    else:
                        why = "the data link is not a trace"
            else:
                why = "the scenario has no hops"
        else:  # flow
            if spec.field == "interval_ms":
                flows = _expand_flow_counts(flows)
                sc["flows"] = flows
                for j, f in enumerate(flows):
                    f["start_ms"] = float(f.get("start_ms", 0.0)) + j * value
                    if _locations is not None:
                        _locations[f"flows[{j}].start_ms"] = item
            else:
                for j, f in enumerate(flows):
                    f[spec.field] = value
                    if _locations is not None:
                        _locations[f"flows[{j}].{spec.field}"] = item
            applied = bool(flows)
            why = "the scenario has no flows"
        if not applied and strict:
            raise ScenarioError(f"--set {item}: {why}", key=key)
    return sc


def set_applies(key: str, scheme: str) -> bool:
    """Whether ``--set`` key ``key`` means anything for the preset ``scheme`` (unknown keys: True,
    so that they are reported by :func:`apply_sets`)."""
    spec = SET_KEYS.get(_canonical_key(key))
    if spec is None:
        return True
    preset = scheme_preset(scheme)
    if spec.target == "router":
        return preset.queue == "abc"
    if spec.target == "param":
        return preset.cc in spec.schemes
    return True


def sets_for_scheme(
    sets: Iterable[str] | Mapping[str, Any] | None, scheme: str
) -> tuple[list[tuple[str, Any]], list[str]]:
    """Split overrides into those that apply to ``scheme`` and the keys that do not."""
    keep: list[tuple[str, Any]] = []
    skipped: list[str] = []
    for key, value in _split_sets(sets):
        if set_applies(key, scheme):
            keep.append((key, value))
        else:
            skipped.append(key)
    return keep, skipped


def _validate(scenario: Mapping[str, Any], locations: Mapping[str, str], context: str | None = None) -> None:
    """Run the core's validation; name the ``--set`` item (or ``context``) behind a failure."""
    try:
        _core.validate(json.dumps(scenario, allow_nan=False))
    except SimulationError as e:
        msg = str(e)
        m = re.match(r"parameter (\S+):", msg)
        item = locations.get(m.group(1)) if m else None
        if item is not None:
            raise ScenarioError(f"--set {item}: {msg}", key=item.partition("=")[0]) from None
        if context:
            raise ScenarioError(f"{context}: {msg}", key=m.group(1) if m else None) from None
        raise


# ---------------------------------------------------------------------------------------------
# Links and traces


def resolve_trace(path: str | os.PathLike[str]) -> str | None:
    """Find a trace file: as given (relative to the current directory), else relative to the
    repository the package lives in (walking up from the package directory), else in that
    repository's ``traces`` folder. Returns the path to use, or ``None`` if there is no such file."""
    p = Path(path).expanduser()
    if p.is_file():
        return str(p)
    if p.is_absolute():
        return None
    for rel in (p, Path("traces") / p):
        found = find_upwards(rel)
        if found is not None and found.is_file():
            return str(found)
    return None


def link_spec(spec: str | float | os.PathLike[str], *, what: str = "trace") -> dict[str, Any]:
    """A link for the scenario JSON from a user's description.

    ``"const:24"`` / ``"const:24mbps"`` / a number (Mbit/s) give a constant-rate link; anything
    else is a Mahimahi trace file (``.up``/``.down``/``.mahi``/...), found with
    :func:`resolve_trace`. A missing file raises :class:`ScenarioError` naming it.
    """
    if isinstance(spec, bool):
        raise ScenarioError(f"{what}: expected a trace file or a rate, got {spec!r}", key=what)
    if isinstance(spec, int | float):
        mbps = float(spec)
        if not (math.isfinite(mbps) and mbps > 0):
            raise ScenarioError(f"{what}: expected a rate > 0 Mbit/s, got {spec}", key=what)
        return {"type": "constant", "mbps": mbps}
    text = os.fspath(spec).strip()
    lower = text.lower()
    for prefix in ("const:", "constant:"):
        if lower.startswith(prefix):
            try:
                mbps = parse_rate(text[len(prefix) :])
            except ValueError as e:
                raise ScenarioError(f"{what} '{text}': {e}", key=what) from None
            if mbps <= 0:
                raise ScenarioError(f"{what} '{text}': expected a rate > 0 Mbit/s", key=what)
            return {"type": "constant", "mbps": mbps}
    found = resolve_trace(text)
    if found is not None:
        return {"type": "trace", "path": found}
    try:
        mbps = parse_rate(text)
    except ValueError:
        raise ScenarioError(
            f"{what}: trace file '{text}' not found (looked in the current directory and the repository's "
            "traces folder); give a Mahimahi trace file, or a constant rate like const:24 or 24mbps",
            key=what,
        ) from None
    if mbps <= 0:
        raise ScenarioError(f"{what} '{text}': expected a rate > 0 Mbit/s", key=what)
    return {"type": "constant", "mbps": mbps}


# ---------------------------------------------------------------------------------------------
# Scenarios


def _positive(
    name: str, value: Any, parse, expected: str, minimum: float = 0.0, inclusive: bool = False
) -> float:
    try:
        v = parse(value)
    except ValueError as e:
        raise ScenarioError(f"{name}: {e}", key=name) from None
    if not (v >= minimum if inclusive else v > minimum):
        raise ScenarioError(f"{name}: got {value}; expected {expected}", key=name)
    return v


def build_scenario(
    scheme: str,
    trace: str | float | os.PathLike[str] = DEFAULT_TRACE,
    ack_trace: str | float | os.PathLike[str] | None = None,
    ack_mbps: float | str = 12.0,
    delay_ms: float | str = 50.0,
    buffer_packets: int = 250,
    duration_s: float | str = 140.0,
    flows: int = 1,
    seed: int = 0,
    sets: Iterable[str] | Mapping[str, Any] = (),
    record_packets: bool = True,
    sample_ms: float | str = 100.0,
    *,
    strict: bool = True,
) -> dict[str, Any]:
    """Build the scenario of the ABC artifact's experiments (``exp.sh``) for one scheme.

    Args:
        scheme: a key of :data:`SCHEMES` (``abc``, ``abc-cubic``, ``cubic``, ``newreno``).
        trace: data-direction link: a Mahimahi trace file (``.up``, ``.down``, ``.mahi``...), or a
            constant rate (``"const:24"``, ``"24mbps"`` or a number, Mbit/s). Relative paths are
            looked up in the current directory, then in the repository (see :func:`resolve_trace`).
        ack_trace: ACK-direction trace; default: a constant ``ack_mbps`` link.
        ack_mbps: ACK link rate in Mbit/s when there is no ``ack_trace`` (artifact: ``bw12.mahi``).
        delay_ms: one-way propagation delay in ms, applied in each direction like ``mm-delay``
            (minimum RTT = 2·delay_ms).
        buffer_packets: data queue limit in packets (``queue.bytes`` in ``sets`` switches to bytes).
        duration_s: simulated time in seconds.
        flows: number of identical bulk flows sharing the link.
        seed: master random seed.
        sets: ``key=value`` overrides with units (see :data:`SET_KEYS`), e.g.
            ``["abc.delta=100ms", "abc.eta=0.95", "queue.packets=100"]``.
        record_packets: keep per-packet records (``packets``/``hop_packets`` tables).
        sample_ms: time-series bin width in ms.
        strict: reject ``sets`` keys that do not apply to this scheme.

    Returns:
        The scenario as a dict, already checked by the core (``_core.validate``).

    Raises:
        ScenarioError: naming the argument or ``--set`` key and the expected form.
    """
    preset = scheme_preset(scheme)
    d_ms = _positive("delay_ms", delay_ms, parse_duration, "a delay ≥ 0 ms", inclusive=True)
    dur_ms = _positive("duration_s", duration_s, lambda v: parse_duration(v, "s"), "a duration > 0 s")
    smp_ms = _positive("sample_ms", sample_ms, parse_duration, "a bin width ≥ 1 ms", 1.0, inclusive=True)
    buf = int(
        _positive("buffer_packets", buffer_packets, _parse_int, "a limit ≥ 1 packet", 1, inclusive=True)
    )
    n_flows = int(_positive("flows", flows, _parse_int, "1 or more flows", 1, inclusive=True))
    seed_v = int(_positive("seed", seed, _parse_int, "a seed ≥ 0", 0, inclusive=True))
    if ack_trace is None:
        ack_rate = _positive("ack_mbps", ack_mbps, parse_rate, "a rate > 0 Mbit/s")
        ack_link = {"type": "constant", "mbps": ack_rate}
    else:
        ack_link = link_spec(ack_trace, what="ack_trace")
    data_queue: dict[str, Any] = {"type": preset.queue, "packets": buf}
    flow: dict[str, Any] = {"scheme": preset.cc, "params": {}, "fwd": [0], "rev": [1]}
    if n_flows > 1:
        flow["count"] = n_flows
    scenario: dict[str, Any] = {
        "duration_ms": dur_ms,
        "seed": seed_v,
        "sample_ms": smp_ms,
        "record_packets": bool(record_packets),
        "hops": [
            {"name": "data", "link": link_spec(trace), "queue": data_queue, "delay_ms": d_ms},
            {"name": "ack", "link": ack_link, "queue": {"type": "infinite"}, "delay_ms": d_ms},
        ],
        "flows": [flow],
    }
    locations: dict[str, str] = {}
    scenario = apply_sets(scenario, sets, strict=strict, _locations=locations)
    _validate(scenario, locations)
    return scenario


def _parse_toml(text: str) -> dict[str, Any]:
    try:
        import tomllib  # Python ≥ 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise ScenarioError("reading TOML needs Python ≥ 3.11 or the 'tomli' package") from None
    return tomllib.loads(text)


def load_scenario_file(
    path: str | os.PathLike[str], sets: Iterable[str] | Mapping[str, Any] = ()
) -> dict[str, Any]:
    """Read a scenario file (JSON, or TOML for ``.toml``) in the core's schema and check it.

    The document is passed to the core unchanged, except that a relative trace path which does not
    exist relative to the current directory but does relative to the file's directory is rewritten
    to the latter. ``sets`` are applied as by :func:`apply_sets`. Errors (a missing
    file, bad syntax, an invalid value) name the file.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(2, "scenario file not found", str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"scenario file {p}: not UTF-8 text ({e.reason})", key=str(p)) from None
    suffix = p.suffix.lower()
    data: Any
    if suffix == ".toml":
        try:
            data = _parse_toml(text)
        except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
            raise ScenarioError(f"scenario file {p}: invalid TOML: {e}", key=str(p)) from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            if suffix == ".json":
                raise ScenarioError(
                    f"scenario file {p}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}",
                    key=str(p),
                ) from None
            try:
                data = _parse_toml(text)
            except ValueError:
                raise ScenarioError(
                    f"scenario file {p}: neither JSON (line {e.lineno}, column {e.colno}: {e.msg}) nor TOML",
                    key=str(p),
                ) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"scenario file {p}: expected an object/table at the top level", key=str(p))
    for hop in data.get("hops") or []:
        link = hop.get("link") if isinstance(hop, dict) else None
        if isinstance(link, dict) and link.get("type") == "trace" and isinstance(link.get("path"), str):
            tp = Path(link["path"])
            if not tp.is_absolute() and not tp.exists() and (p.parent / tp).exists():
                link["path"] = str(p.parent / tp)
    _validate(data, {}, context=f"scenario file {p}")
    if sets:
        locations: dict[str, str] = {}
        data = apply_sets(data, sets, _locations=locations)
        _validate(data, locations, context=f"scenario file {p}")
    return data
