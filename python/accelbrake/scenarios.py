"""Build scenario dictionaries for the core, the way the ABC experiments set them up.

The topology is Mahimahi's ``mm-delay D mm-link DATA-TRACE ACK-TRACE``: the data direction crosses
hop 0 (the scheme's queue in front of the trace link, then ``D`` ms of propagation delay), the ACKs
cross hop 1 (an infinite queue in front of the ACK link, then ``D`` ms). The minimum RTT is ``2·D``.

>>> from accelbrake import build_scenario
>>> sc = build_scenario("abc", trace="const:24", duration_s=10, sets=["abc.delta=100ms"])
>>> sc["hops"][0]["queue"]["delta_ms"]
100.0

Overrides (``sets``) are ``key=value`` strings with units; :data:`SET_KEYS` lists every key.
``queue`` replaces the preset's bottleneck queue with a Mahimahi-style description
(:func:`parse_queue_spec`, :data:`QUEUE_KEYS`), e.g. ``"codel target=50,interval=100,packets=250"``.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
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
    "AQM_QUEUES",
    "ECN_CONTROLLERS",
    "QUEUE_KEYS",
    "canonical_scheme",
    "link_spec",
    "load_scenario_file",
    "parse_queue_spec",
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
    """What a user-facing scheme name means: the sender's controller, the bottleneck queue and ECN."""

    cc: str
    """Congestion-control scheme name in the core (``flows[].scheme``)."""
    queue: str
    """Queue type on the data bottleneck (``hops[0].queue.type``)."""
    ecn: bool = False
    """ECN on by default: the flow sends ECT(0) (``flows[].ecn``) and a CoDel/PIE bottleneck marks
    instead of dropping (``queue.ecn``). True for the ABE schemes, which react to ECN marks."""


#: User-facing scheme names → (controller in the core, queue type on the data bottleneck, ECN).
#: ABC needs the ABC router (the artifact's ``cellular`` queue); ``cubic`` and ``newreno`` use
#: drop-tail, as in the artifact's ``exp.sh``; ``X+codel`` / ``X+pie`` put that AQM (Linux
#: defaults, dropping) in front of the link; the ABE schemes (RFC 8511) use ECN with CoDel
#: (``+pie``: PIE), as in the ABE paper.
SCHEMES: dict[str, SchemePreset] = {
    "abc": SchemePreset("abc", "abc"),
    "abc-cubic": SchemePreset("abc-cubic", "abc"),
    "cubic": SchemePreset("cubic", "droptail"),
    "newreno": SchemePreset("newreno", "droptail"),
    "cubic+codel": SchemePreset("cubic", "codel"),
    "cubic+pie": SchemePreset("cubic", "pie"),
    "newreno+codel": SchemePreset("newreno", "codel"),
    "newreno+pie": SchemePreset("newreno", "pie"),
    "newreno-abe": SchemePreset("newreno-abe", "codel", ecn=True),
    "cubic-abe": SchemePreset("cubic-abe", "codel", ecn=True),
    "newreno-abe+pie": SchemePreset("newreno-abe", "pie", ecn=True),
    "cubic-abe+pie": SchemePreset("cubic-abe", "pie", ecn=True),
    # End-to-end delay-aware schemes and comparators (issue 4), all over drop-tail.
    "bbr": SchemePreset("bbr", "droptail"),
    "copa": SchemePreset("copa", "droptail"),
    "vegas": SchemePreset("vegas", "droptail"),
    "westwood": SchemePreset("westwood", "droptail"),
    "ledbat": SchemePreset("ledbat", "droptail"),
    "c2tcp": SchemePreset("c2tcp", "droptail"),
    "proprate": SchemePreset("proprate", "droptail"),
    "proprate-l": SchemePreset("proprate-l", "droptail"),
    "proprate-m": SchemePreset("proprate-m", "droptail"),
    "proprate-h": SchemePreset("proprate-h", "droptail"),
}

#: Controllers that always send ECT(0) (the core's ``cc::needs_ecn``): ABE reacts to ECN marks.
ECN_CONTROLLERS = frozenset({"newreno-abe", "cubic-abe"})
#: Controllers that use ABC's accelerate/brake marks (ECN settings do not apply to them).
ABC_CONTROLLERS = frozenset({"abc", "abc-cubic"})
#: Queue types that can mark ECN-capable packets instead of dropping them (``queue.ecn``).
AQM_QUEUES = ("codel", "pie")


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """A `` (did you mean 'x'?)`` suffix for the closest known word, or ``""``."""
    match = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


def canonical_scheme(scheme: str) -> str:
    """The :data:`SCHEMES` spelling of a scheme name: lower case, ``-`` for ``_``, no spaces."""
    return "".join(str(scheme).split()).lower().replace("_", "-")


def scheme_preset(scheme: str) -> SchemePreset:
    """Look a user-facing scheme name up in :data:`SCHEMES` (case, space and ``_``/``-`` insensitive:
    ``Cubic+CoDel``, ``cubic + codel`` and ``newreno_abe`` work)."""
    name = canonical_scheme(scheme)
    try:
        return SCHEMES[name]
    except KeyError:
        hint = _did_you_mean(name, SCHEMES)
        if name.startswith("abe-") and name[4:] + "-abe" in SCHEMES:  # the ABE paper's "abe-cubic"
            hint = f" (did you mean '{name[4:]}-abe'?)"
        raise ScenarioError(
            f"unknown scheme '{scheme}'{hint}; available: {', '.join(SCHEMES)}", key="scheme"
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
    """One ``--set`` key (or ``--queue`` parameter): where it lands and how its value is parsed."""

    # "router" (every queue of type qtype), "param" (flow params), "queue" (data queue), "flow", "link"
    target: str
    field: str  # JSON key
    kind: str  # see _parse_value
    help: str
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()  # for target "param": controllers accepting it
    qtype: str = "abc"  # for target "router": the queue type it configures
    listed: bool = True  # shown in --help (the -abe copies of the sender keys are not)


_ABC = ("abc", "abc-cubic")
_CUBIC = ("cubic", "cubic-abe")
_NEWRENO = ("newreno", "newreno-abe")
_PROPRATE = ("proprate", "proprate-l", "proprate-m", "proprate-h")


def _codel(field: str, kind: str, help: str) -> _SetKey:
    return _SetKey("router", field, kind, help, qtype="codel")


def _pie(field: str, kind: str, help: str) -> _SetKey:
    return _SetKey("router", field, kind, help, qtype="pie")


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
    "abc.ai_per_segment": _SetKey(
        "param",
        "ai_per_segment",
        "bool",
        "additive increase n/w per ACK of n segments (default 1/w)",
        schemes=_ABC,
    ),
    # CoDel (every codel queue)
    "codel.target": _codel("target_ms", "time+", "target sojourn time (default 5ms)"),
    "codel.interval": _codel("interval_ms", "time+", "interval (default 100ms)"),
    "codel.ecn": _codel("ecn", "bool", "mark ECT packets CE instead of dropping (default: the flow's ECN)"),
    "codel.mtu": _codel("mtu", "count", "bytes below which CoDel never drops (default 1514)"),
    # PIE (every pie queue)
    "pie.qdelay_ref": _pie("qdelay_ref_ms", "time+", "target queueing delay (default 15ms)"),
    "pie.t_update": _pie("t_update_ms", "time+", "probability update period (default 15ms)"),
    "pie.max_burst": _pie("max_burst_ms", "time0", "burst allowance (default 150ms)"),
    "pie.alpha": _pie("alpha", "real0", "α, 1/s (default 0.125)"),
    "pie.beta": _pie("beta", "real0", "β, 1/s (default 1.25)"),
    "pie.ecn": _pie("ecn", "bool", "mark ECT packets CE while p ≤ ecn_prob_max (default: the flow's ECN)"),
    "pie.ecn_prob_max": _pie("ecn_prob_max", "prob", "largest p at which PIE marks (default 0.1)"),
    "pie.derandomize": _pie("derandomize", "bool", "derandomised drops, RFC 8033 §5.4 (default false)"),
    "pie.bytemode": _pie("bytemode", "bool", "scale p by packet size (default false)"),
    "pie.dq_rate_estimator": _pie(
        "dq_rate_estimator", "bool", "Linux's departure-rate delay estimator (default false)"
    ),
    # Cubic (also cubic-abe)
    "cubic.initial_window": _SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=_CUBIC
    ),
    "cubic.beta": _SetKey("param", "beta", "float", "multiplicative decrease (default 0.7)", schemes=_CUBIC),
    "cubic.beta_ecn": _SetKey(
        "param", "beta_ecn", "float", "decrease on ECN (default: as on loss; cubic-abe 0.85)", schemes=_CUBIC
    ),
    "cubic.abe_slow_start": _SetKey(
        "param", "abe_slow_start", "bool", "beta_ecn also when a mark ends slow start", schemes=_CUBIC
    ),
    "cubic.c": _SetKey("param", "c", "float", "cubic scaling constant (default 0.4)", schemes=_CUBIC),
    "cubic.fast_convergence": _SetKey(
        "param", "fast_convergence", "bool", "fast convergence", schemes=_CUBIC
    ),
    "cubic.tcp_friendliness": _SetKey(
        "param", "tcp_friendliness", "bool", "Reno-friendly region", schemes=_CUBIC
    ),
    "cubic.hystart": _SetKey("param", "hystart", "bool", "hybrid slow start", schemes=_CUBIC),
    "cubic.hystart_detect": _SetKey(
        "param", "hystart_detect", "int", "HyStart detectors bit set 0..3", schemes=_CUBIC
    ),
    "cubic.hystart_low_window": _SetKey(
        "param", "hystart_low_window", "int", "HyStart acts from this window on", schemes=_CUBIC
    ),
    "cubic.hystart_ack_delta": _SetKey(
        "param",
        "hystart_ack_delta_ms",
        "duration",
        "largest ACK spacing in a train (default 2ms)",
        schemes=_CUBIC,
    ),
    # NewReno (also newreno-abe)
    "newreno.initial_window": _SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=_NEWRENO
    ),
    "newreno.beta": _SetKey("param", "beta", "float", "decrease on loss (default 0.5)", schemes=_NEWRENO),
    "newreno.beta_ecn": _SetKey(
        "param", "beta_ecn", "float", "decrease on ECN (default 0.5; newreno-abe 0.8)", schemes=_NEWRENO
    ),
    "newreno.abe_slow_start": _SetKey(
        "param", "abe_slow_start", "bool", "beta_ecn also when a mark ends slow start", schemes=_NEWRENO
    ),
    # C2TCP (on top of Cubic; the cubic.* keys do not apply to it)
    "c2tcp.target": _SetKey(
        "param",
        "target_ms",
        "duration",
        "application Target, average delay (default 50ms; 0: 2×minRTT)",
        schemes=("c2tcp",),
    ),
    "c2tcp.alpha_init": _SetKey(
        "param", "alpha_init", "float", "initial α (default 1.5)", schemes=("c2tcp",)
    ),
    "c2tcp.alpha_min": _SetKey(
        "param", "alpha_min", "float", "smallest α the tuner sets (default 1)", schemes=("c2tcp",)
    ),
    "c2tcp.alpha_max": _SetKey(
        "param", "alpha_max", "float", "largest α the tuner sets (default 10)", schemes=("c2tcp",)
    ),
    "c2tcp.tuner": _SetKey(
        "param", "tuner", "bool", "tune α from the Target every 0.5 s (default true)", schemes=("c2tcp",)
    ),
    "c2tcp.tuner_period": _SetKey(
        "param", "tuner_period_ms", "duration", "tuning cycle (default 500ms)", schemes=("c2tcp",)
    ),
    "c2tcp.cubic_holdoff": _SetKey(
        "param",
        "cubic_holdoff",
        "bool",
        "skip ACKs Cubic's delay bookkeeping skips (default true)",
        schemes=("c2tcp",),
    ),
    # PropRate (also proprate-l/m/h, whose presets set the target)
    "proprate.target": _SetKey(
        "param", "target_ms", "duration", "target buffer delay t̄_buff (default 40ms)", schemes=_PROPRATE
    ),
    "proprate.lmax": _SetKey(
        "param", "lmax_ms", "duration", "maximum tolerable latency L_max (default 100ms)", schemes=_PROPRATE
    ),
    "proprate.feedback": _SetKey(
        "param", "feedback", "bool", "negative-feedback loop on T (default true)", schemes=_PROPRATE
    ),
    "proprate.guard_target": _SetKey(
        "param",
        "guard_target",
        "bool",
        "2×BDP guard at min RTT + target (default true; else min RTT)",
        schemes=_PROPRATE,
    ),
    "proprate.guard_srtt": _SetKey(
        "param",
        "guard_srtt",
        "bool",
        "2×BDP guard from the smoothed RTT (wins over guard_target)",
        schemes=_PROPRATE,
    ),
    "proprate.monitor_rebase": _SetKey(
        "param",
        "monitor_rebase",
        "bool",
        "a good Monitor probe resets the base delay (default false)",
        schemes=_PROPRATE,
    ),
    # BBR, Copa, Vegas, LEDBAT
    "bbr.cwnd_gain": _SetKey("param", "cwnd_gain", "float", "cwnd gain (default 2)", schemes=("bbr",)),
    "copa.delta": _SetKey("param", "delta", "float", "δ (default 0.5)", schemes=("copa",)),
    "copa.competitive": _SetKey(
        "param", "competitive", "bool", "competitive mode (default true)", schemes=("copa",)
    ),
    "vegas.alpha": _SetKey("param", "alpha", "int", "α, packets (default 2)", schemes=("vegas",)),
    "vegas.beta": _SetKey("param", "beta", "int", "β, packets (default 4)", schemes=("vegas",)),
    "vegas.gamma": _SetKey("param", "gamma", "int", "γ, packets (default 1)", schemes=("vegas",)),
    "vegas.diff_by_rtt": _SetKey(
        "param", "diff_by_rtt", "bool", "divide diff by RTT, not baseRTT", schemes=("vegas",)
    ),
    "ledbat.target": _SetKey(
        "param", "target_ms", "duration", "target queueing delay (default 100ms)", schemes=("ledbat",)
    ),
    "ledbat.gain": _SetKey("param", "gain", "float", "gain (default 1)", schemes=("ledbat",)),
    # Data queue and link
    "queue.packets": _SetKey("queue", "packets", "int", "data queue limit, packets"),
    "queue.bytes": _SetKey("queue", "bytes", "size", "data queue limit, bytes"),
    "link.once": _SetKey("link", "once", "bool", "play the data trace once (mm-link --once)"),
    # Flows
    "flow.ecn": _SetKey("flow", "ecn", "bool", "ECN for non-ABC schemes (a codel/pie bottleneck then marks)"),
    "flow.delayed_ack": _SetKey("flow", "delayed_ack", "bool", "delayed ACKs (every 2nd segment / 40 ms)"),
    "flow.start": _SetKey("flow", "start_ms", "duration", "start time"),
    "flow.stop": _SetKey("flow", "stop_ms", "duration", "stop time (no new data after it)"),
    "flow.extra_delay": _SetKey("flow", "extra_delay_ms", "duration", "extra one-way delay at the sender"),
    "flow.interval": _SetKey("flow", "interval_ms", "duration", "stagger: flow i starts i·interval later"),
}

# newreno-abe.* and cubic-abe.*: the same sender keys, for the ABE flows only.
for _base, _abe in (("newreno", "newreno-abe"), ("cubic", "cubic-abe")):
    for _key, _spec in list(SET_KEYS.items()):
        if _key.startswith(_base + "."):
            SET_KEYS[_abe + _key[len(_base) :]] = replace(_spec, schemes=(_abe,), listed=False)
del _base, _abe, _key, _spec

#: Alternative spellings: the JSON field names, the artifact's ``qdelay_ref`` and Linux's names.
_ALIASES = {
    "abc.delta_ms": "abc.delta",
    "abc.dt_ms": "abc.dt",
    "abc.qdelay_ref": "abc.dt",
    "abc.window_ms": "abc.window",
    "codel.target_ms": "codel.target",
    "codel.interval_ms": "codel.interval",
    "pie.qdelay_ref_ms": "pie.qdelay_ref",
    "pie.target": "pie.qdelay_ref",
    "pie.t_update_ms": "pie.t_update",
    "pie.tupdate": "pie.t_update",
    "pie.max_burst_ms": "pie.max_burst",
    "cubic.hystart_ack_delta_ms": "cubic.hystart_ack_delta",
    "cubic-abe.hystart_ack_delta_ms": "cubic-abe.hystart_ack_delta",
    "flow.start_ms": "flow.start",
    "flow.stop_ms": "flow.stop",
    "flow.extra_delay_ms": "flow.extra_delay",
    "flow.interval_ms": "flow.interval",
}

#: The core's name for a controller's parameters (``parameter cubic.beta: ...`` in its errors).
_CORE_PARAM_PREFIX = {
    "abc": "abc",
    "abc-cubic": "abc",
    "cubic": "cubic",
    "cubic-abe": "cubic",
    "newreno": "newreno",
    "newreno-abe": "newreno",
}

_TIME_EXAMPLE = "like 50 or 50ms (bare numbers are ms)"
#: What each strict kind accepts, for error messages.
_EXPECTED = {
    "time+": f"a positive time {_TIME_EXAMPLE}",
    "time0": f"a time ≥ 0 {_TIME_EXAMPLE}",
    "real0": "a number ≥ 0",
    "real+": "a number > 0",
    "prob": "a probability in [0, 1]",
    "count": "a whole number ≥ 1",
    "size": "a size in bytes like 150000, 150kB or 1MiB",
    "bool": "true or false (also yes/no, on/off, 1/0)",
}

_EXPECTED_LOOSE = {
    "duration": "a duration like 100ms, 0.1s or 100 (ms)",
    "float": "a number",
    "int": "a whole number",
    "rate": "a rate like 12mbps",
}


def _strict(kind: str, raw: Any) -> Any:
    """Parse a value of a strict kind (range-checked here, not only by the core)."""
    expected = _EXPECTED[kind]
    try:
        if kind in ("time+", "time0"):
            v = parse_duration(raw)
        elif kind == "count":
            v = _parse_int(raw)
        else:
            v = _parse_float(raw)
    except ValueError as e:
        if "unknown unit" in str(e):
            raise ValueError(f"{str(e).partition(';')[0]}; expected {expected}") from None
        raise ValueError(f"expected {expected}, got '{raw}'") from None
    ok = {
        "time+": v > 0,
        "time0": v >= 0,
        "real0": v >= 0,
        "real+": v > 0,
        "prob": 0 <= v <= 1,
        "count": v >= 1,
    }[kind]
    if not ok:
        raise ValueError(f"expected {expected}, got '{raw}'")
    return v


def _parse_value(k: _SetKey, raw: Any) -> Any:
    if isinstance(raw, str) and not raw.strip():
        expected = _EXPECTED.get(k.kind) or _EXPECTED_LOOSE.get(k.kind) or " or ".join(k.choices)
        raise ValueError(f"missing value; expected {expected}")
    if k.kind in ("time+", "time0", "real0", "real+", "prob", "count"):
        return _strict(k.kind, raw)
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
    prefix = prefix.replace("_", "-")
    if prefix == "abc-cubic":
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
    listing = same_prefix if same_prefix else sorted(k for k, v in SET_KEYS.items() if v.listed)
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


#: Where a value in the scenario came from, for error messages: core key (``hops[0].queue.eta``,
#: ``cubic.beta``) → (label such as ``--set abc.eta=5``, the key to report).
_Locations = dict[str, tuple[str, str]]

_QUEUE_NAMES = {"abc": "the ABC router", "codel": "CoDel", "pie": "PIE"}


def apply_sets(
    scenario: Mapping[str, Any],
    sets: Iterable[str] | Mapping[str, Any] | None,
    *,
    strict: bool = True,
    _locations: _Locations | None = None,
) -> dict[str, Any]:
    """Return a copy of ``scenario`` with ``key=value`` overrides applied (see :data:`SET_KEYS`).

    * ``abc.eta/delta/dt/window/token_limit/rate_source/delay_source`` set every ``abc`` queue,
      ``codel.*`` every ``codel`` queue, ``pie.*`` every ``pie`` queue;
    * ``abc.*``, ``cubic.*``, ``newreno.*`` sender keys set ``params`` of every flow whose
      controller accepts them (booleans become 1.0/0.0); ``cubic.*`` and ``newreno.*`` also reach
      ``cubic-abe`` and ``newreno-abe`` flows, ``cubic-abe.*`` and ``newreno-abe.*`` only those;
    * ``queue.packets`` / ``queue.bytes`` set the data queue limit (the first hop on flow 0's data
      path with a finite queue); ``link.once`` plays that hop's trace once;
    * ``flow.*`` set fields of every flow; ``flow.interval`` staggers flow starts.

    Unknown keys or bad values raise :class:`ScenarioError` naming the key and the expected form.
    With ``strict`` a key that applies to nothing in the scenario (e.g. ``cubic.beta`` for an ABC
    flow) is an error too; without it such keys are skipped. Nothing else changes: unlike
    :func:`build_scenario`, ``flow.ecn`` does not switch a CoDel/PIE queue to marking here.
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
        where = (f"--set {item}", raw_key.strip())
        applied = False
        if spec.target == "router":
            for i, h in enumerate(hops):
                q = h.get("queue", {})
                if q.get("type") == spec.qtype:
                    q[spec.field] = value
                    applied = True
                    if _locations is not None:
                        _locations[f"hops[{i}].queue.{spec.field}"] = where
            name = _QUEUE_NAMES.get(spec.qtype, spec.qtype)
            why = f"it sets {name}, but no hop has a{'n' * (spec.qtype[0] in 'aeiou')} {spec.qtype} queue"
        elif spec.target == "param":
            for f in flows:
                if f.get("scheme") in spec.schemes:
                    f.setdefault("params", {})[spec.field] = float(value)
                    applied = True
            if _locations is not None:
                for scheme in spec.schemes:
                    _locations[f"{_CORE_PARAM_PREFIX.get(scheme, scheme)}.{spec.field}"] = where
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
                            _locations[f"hops[{i}].queue"] = where
                            _locations[f"hops[{i}].queue.{spec.field}"] = where
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
                        _locations[f"flows[{j}].start_ms"] = where
            else:
                for j, f in enumerate(flows):
                    f[spec.field] = value
                    if _locations is not None:
                        _locations[f"flows[{j}].{spec.field}"] = where
            applied = bool(flows)
            why = "the scenario has no flows"
        if not applied and strict:
            raise ScenarioError(f"--set {item}: {why}", key=key)
    return sc


def set_applies(key: str, scheme: str, queue: str | None = None) -> bool:
    """Whether ``--set`` key ``key`` means anything for the preset ``scheme`` (unknown keys: True,
    so that they are reported by :func:`apply_sets`). ``queue`` is the data queue type when an
    explicit ``--queue`` replaces the preset's."""
    spec = SET_KEYS.get(_canonical_key(key))
    if spec is None:
        return True
    preset = scheme_preset(scheme)
    if spec.target == "router":
        return (queue or preset.queue) == spec.qtype
    if spec.target == "param":
        return preset.cc in spec.schemes
    if spec.target == "queue":
        return (queue or preset.queue) != "infinite"
    return True


def sets_for_scheme(
    sets: Iterable[str] | Mapping[str, Any] | None, scheme: str, queue: str | None = None
) -> tuple[list[tuple[str, Any]], list[str]]:
    """Split overrides into those that apply to ``scheme`` (with data queue type ``queue``, if an
    explicit ``--queue`` replaces the preset's) and the keys that do not."""
    keep: list[tuple[str, Any]] = []
    skipped: list[str] = []
    for key, value in _split_sets(sets):
        if set_applies(key, scheme, queue):
            keep.append((key, value))
        else:
            skipped.append(key)
    return keep, skipped


_UNKNOWN_FIELD_RE = re.compile(
    r"unknown (field|variant) `([^`]*)`, expected (?:one of )?(.*?)(?: at line \d+ column \d+)?$"
)


_POSITION_RE = re.compile(r" at line \d+ column \d+$")


def _objects_with_key(doc: Any, field: str, trail: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    """The key paths (``("hops", 0, "queue")``) of the objects in ``doc`` holding key ``field``."""
    if isinstance(doc, Mapping):
        if field in doc:
            yield trail
        for k, v in doc.items():
            yield from _objects_with_key(v, field, (*trail, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _objects_with_key(v, field, (*trail, i))


def _path_text(trail: Sequence[Any]) -> str:
    out = ""
    for k in trail:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else str(k))
    return out or "(top level)"


def _where_is_field(doc: Mapping[str, Any], field: str, error: str) -> str | None:
    """The path (``hops[0].queue``) of the object serde rejected for holding ``field``: the only
    object with that key, or the one whose removal of it changes the core's ``error``."""
    trails = list(_objects_with_key(doc, field))
    if len(trails) <= 1:
        return _path_text(trails[0]) if trails else None
    for trail in trails:
        probe = copy.deepcopy(dict(doc))
        obj: Any = probe
        for k in trail:
            obj = obj[k]
        del obj[field]
        try:
            _core.validate(json.dumps(probe, allow_nan=False))
        except (SimulationError, ValueError, TypeError) as e:
            if _POSITION_RE.sub("", str(e)) == _POSITION_RE.sub("", error):
                continue
        return _path_text(trail)
    return None


def _where_is_value(doc: Any, value: str, path: str = "") -> str | None:
    """The path of the first ``type`` field in ``doc`` whose value is ``value``."""
    if isinstance(doc, Mapping):
        if doc.get("type") == value:
            return f"{path}.type" if path else "type"
        for k, v in doc.items():
            found = _where_is_value(v, value, f"{path}.{k}" if path else str(k))
            if found:
                return found
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found = _where_is_value(v, value, f"{path}[{i}]")
            if found:
                return found
    return None


def _explain_schema_error(scenario: Mapping[str, Any], msg: str) -> str:
    """Turn serde's ``unknown field `x`, expected one of ... at line 1 column N`` (positions in
    our own serialisation, useless to the user) into ``hops[0].queue: unknown field 'x' (did you
    mean 'y'?); expected one of ...``."""
    m = _UNKNOWN_FIELD_RE.search(msg)
    if not m:
        return msg
    what, name, expected = m.groups()
    known = re.findall(r"`([^`]*)`", expected)
    # Newer cores name the JSON path themselves ("hops[1].queue: unknown field ..."); older ones
    # do not, and we find the object ourselves.
    core_path = msg[: m.start()].strip().rstrip(":").strip() or None
    if what == "field":
        where = core_path or _where_is_field(scenario, name, f"scenario: {msg}")
        label = f"unknown key '{name}'"
    else:
        where = core_path or _where_is_value(scenario, name)
        label = f"unknown type '{name}'"
    prefix = f"{where}: " if where else ""
    listing = ", ".join(known) if known else expected
    return f"{prefix}{label}{_did_you_mean(name, known)}; expected one of {listing}"


def _validate(scenario: Mapping[str, Any], locations: _Locations, context: str | None = None) -> None:
    """Run the core's validation; name the ``--set`` item / ``--queue`` parameter (or ``context``)
    behind a failure."""
    try:
        _core.validate(json.dumps(scenario, allow_nan=False))
    except SimulationError as e:
        msg = str(e)
        m = re.match(r"parameter (\S+):", msg)
        where = locations.get(m.group(1)) if m else None
        if where is not None:
            raise ScenarioError(f"{where[0]}: {msg}", key=where[1]) from None
        if msg.startswith("scenario: "):
            # serde's message; its "line 1 column N" is a position in our own serialisation.
            detail = _explain_schema_error(scenario, msg[len("scenario: ") :])
            detail = _POSITION_RE.sub("", detail)
            msg = detail if context else f"scenario: {detail}"
        if context:
            raise ScenarioError(f"{context}: {msg}", key=m.group(1) if m else None) from None
        if msg != str(e):
            raise SimulationError(msg) from None
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
# Queue specs (Mahimahi style: "codel target=50,interval=100,packets=250")


def _qk(field: str, kind: str, help: str, choices: tuple[str, ...] = ()) -> _SetKey:
    return _SetKey("queue", field, kind, help, choices)


_LIMIT_KEYS = {
    "packets": _qk("packets", "count", "limit in packets (default: --buffer)"),
    "bytes": _qk("bytes", "size", "limit in bytes instead (≥ 1500)"),
}

#: Parameters of each ``--queue`` type: name → how it lands in the queue's JSON. Times are ms
#: when bare (Mahimahi / ABC-artifact style) and accept units (``50ms``, ``0.05s``).
QUEUE_KEYS: dict[str, dict[str, _SetKey]] = {
    "droptail": dict(_LIMIT_KEYS),
    "infinite": {},
    "codel": {
        **_LIMIT_KEYS,
        "target": _qk("target_ms", "time+", "target sojourn time (default 5ms)"),
        "interval": _qk("interval_ms", "time+", "interval (default 100ms)"),
        "mtu": _qk("mtu", "count", "bytes below which CoDel never drops (default 1514)"),
        "ecn": _qk("ecn", "bool", "mark ECT packets instead of dropping (default: the flow's ECN)"),
    },
    "pie": {
        **_LIMIT_KEYS,
        "qdelay_ref": _qk("qdelay_ref_ms", "time+", "target queueing delay (default 15ms)"),
        "t_update": _qk("t_update_ms", "time+", "update period (default 15ms)"),
        "max_burst": _qk("max_burst_ms", "time0", "burst allowance (default 150ms)"),
        "alpha": _qk("alpha", "real0", "α, 1/s (default 0.125)"),
        "beta": _qk("beta", "real0", "β, 1/s (default 1.25)"),
        "ecn": _qk("ecn", "bool", "mark ECT packets while p ≤ ecn_prob_max (default: the flow's ECN)"),
        "ecn_prob_max": _qk("ecn_prob_max", "prob", "largest p at which PIE marks (default 0.1)"),
        "derandomize": _qk("derandomize", "bool", "derandomised drops (default false)"),
        "bytemode": _qk("bytemode", "bool", "scale p by packet size (default false)"),
        "dq_rate_estimator": _qk("dq_rate_estimator", "bool", "departure-rate estimator (default false)"),
    },
    "abc": {
        **_LIMIT_KEYS,
        "eta": _qk("eta", "real+", "η, target utilisation (default 0.98)"),
        "delta": _qk("delta_ms", "time+", "δ, time to drain excess queue (default 133ms)"),
        "qdelay_ref": _qk("dt_ms", "time0", "d_t, queueing-delay threshold (default 50ms)"),
        "window": _qk("window_ms", "time+", "T, rate-measurement window (default 20ms)"),
        "token_limit": _qk("token_limit", "real0", "token bucket limit (default 5)"),
        "rate_source": _qk("rate_source", "choice", "dequeue or enqueue", ("dequeue", "enqueue")),
        "delay_source": _qk("delay_source", "choice", "qlen or sojourn", ("qlen", "sojourn")),
    },
}

#: Other spellings of queue parameters: the JSON names and Linux tc's names.
_QUEUE_KEY_ALIASES: dict[str, dict[str, str]] = {
    "droptail": {"limit": "packets"},
    "infinite": {},
    "codel": {"limit": "packets", "target_ms": "target", "interval_ms": "interval"},
    "pie": {
        "limit": "packets",
        "qdelay_ref_ms": "qdelay_ref",
        "target": "qdelay_ref",
        "t_update_ms": "t_update",
        "tupdate": "t_update",
        "max_burst_ms": "max_burst",
    },
    "abc": {
        "limit": "packets",
        "dt": "qdelay_ref",
        "dt_ms": "qdelay_ref",
        "delta_ms": "delta",
        "window_ms": "window",
    },
}

#: Other names of queue types: Mahimahi's ``cellular`` (the ABC artifact's router) and spellings.
_QUEUE_TYPE_ALIASES = {"drop-tail": "droptail", "fifo": "droptail", "inf": "infinite", "cellular": "abc"}

_QUEUE_EXAMPLE = '"codel target=5ms,interval=100ms,packets=1000"'


def parse_queue_spec(spec: str, *, option: str = "--queue") -> dict[str, Any]:
    """Parse a Mahimahi-style queue description into the core's queue JSON.

    ``"TYPE [key=value[,key=value...]]"`` (commas or spaces between parameters), TYPE one of
    ``droptail``, ``infinite``, ``codel``, ``pie``, ``abc`` (also Mahimahi's ``cellular``). Times
    are ms unless they carry a unit, as in Mahimahi and the ABC artifact::

        >>> parse_queue_spec("codel target=50,interval=100,packets=250")
        {'type': 'codel', 'target_ms': 50.0, 'interval_ms': 100.0, 'packets': 250}
        >>> parse_queue_spec("abc delta=133,qdelay_ref=50")
        {'type': 'abc', 'delta_ms': 133.0, 'dt_ms': 50.0}

    :data:`QUEUE_KEYS` lists the parameters of each type. A bare boolean key (``ecn``) means
    ``ecn=true``. Raises :class:`ScenarioError` naming the type or key and the expected form.
    """
    return _parse_queue_spec(spec, option=option)[0]


def _parse_queue_spec(spec: str, *, option: str = "--queue") -> tuple[dict[str, Any], _Locations]:
    text = str(spec).strip()
    m = re.match(r"^([A-Za-z][\w-]*)(?:\s*[\s,:]\s*(.*))?$", text, re.S)
    types = ", ".join(QUEUE_KEYS)
    if not m:
        raise ScenarioError(
            f"{option} '{spec}': expected TYPE [key=value,...], e.g. {_QUEUE_EXAMPLE}; types: {types}",
            key="queue",
        )
    raw_type, rest = m.group(1), m.group(2) or ""
    qtype = raw_type.lower().replace("_", "-")
    qtype = _QUEUE_TYPE_ALIASES.get(qtype, qtype)
    if qtype not in QUEUE_KEYS:
        raise ScenarioError(
            f"{option} {raw_type}: unknown queue type '{raw_type}'"
            f"{_did_you_mean(qtype, [*QUEUE_KEYS, *_QUEUE_TYPE_ALIASES])}; available: {types}",
            key="queue",
        )
    label = f"{option} {qtype}"
    keys, aliases = QUEUE_KEYS[qtype], _QUEUE_KEY_ALIASES[qtype]
    queue: dict[str, Any] = {"type": qtype}
    locations: _Locations = {}
    given: dict[str, str] = {}
    for item in (x for x in re.split(r"[,;\s]+", re.sub(r"\s*=\s*", "=", rest)) if x):
        raw_key, eq, raw_value = item.partition("=")
        name = raw_key.strip().lower().replace("-", "_")
        name = aliases.get(name, name)
        if not keys:
            raise ScenarioError(f"{label}: takes no parameters (got '{item}')", key=raw_key)
        k = keys.get(name)
        if k is None:
            raise ScenarioError(
                f"{label}: key '{raw_key}' unknown{_did_you_mean(name, [*keys, *aliases])}; "
                f"{qtype} keys: {', '.join(keys)}",
                key=raw_key,
            )
        if not eq:
            if k.kind != "bool":
                expected = _EXPECTED.get(k.kind) or " or ".join(k.choices)
                raise ScenarioError(
                    f"{label}: {raw_key}: missing value ({raw_key}=...); expected {expected}", key=raw_key
                )
            raw_value = "true"
        if name in given:
            raise ScenarioError(f"{label}: key '{name}' given twice ({given[name]}, {item})", key=raw_key)
        try:
            value = _parse_value(k, raw_value)
        except ValueError as e:
            raise ScenarioError(f"{label}: {raw_key}={raw_value}: {e}", key=raw_key) from None
        given[name] = item
        queue[k.field] = value
        locations[k.field] = (f"{label}: {item}", raw_key)
    if "packets" in queue and "bytes" in queue:
        raise ScenarioError(f"{label}: give packets or bytes, not both", key="bytes")
    return queue, locations


def _queue_arg(queue: str | Mapping[str, Any]) -> tuple[dict[str, Any], _Locations]:
    """The data queue from build_scenario's ``queue`` argument (a spec string or a JSON object)."""
    if isinstance(queue, Mapping):
        q = copy.deepcopy(dict(queue))
        if not isinstance(q.get("type"), str):
            raise ScenarioError(f"queue {q}: expected a 'type' ({', '.join(QUEUE_KEYS)})", key="queue")
        return q, {f: (f"queue {f}={v!r}", f) for f, v in q.items() if f != "type"}
    if not isinstance(queue, str):
        raise ScenarioError(
            f"queue: expected a queue description like {_QUEUE_EXAMPLE}, got {queue!r}", key="queue"
        )
    return _parse_queue_spec(queue)


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
    queue: str | Mapping[str, Any] | None = None,
    ecn: bool | None = None,
) -> dict[str, Any]:
    """Build the scenario of the ABC artifact's experiments (``exp.sh``) for one scheme.

    Args:
        scheme: a key of :data:`SCHEMES` (``abc``, ``abc-cubic``, ``cubic``, ``newreno``,
            ``cubic+codel``, ``cubic+pie``, ``newreno+codel``, ``newreno+pie``, ``newreno-abe``,
            ``cubic-abe``, ...): the controller, the bottleneck queue and whether ECN is on.
        trace: data-direction link: a Mahimahi trace file (``.up``, ``.down``, ``.mahi``...), or a
            constant rate (``"const:24"``, ``"24mbps"`` or a number, Mbit/s). Relative paths are
            looked up in the current directory, then in the repository (see :func:`resolve_trace`).
        ack_trace: ACK-direction trace; default: a constant ``ack_mbps`` link.
        ack_mbps: ACK link rate in Mbit/s when there is no ``ack_trace`` (artifact: ``bw12.mahi``).
        delay_ms: one-way propagation delay in ms, applied in each direction like ``mm-delay``
            (minimum RTT = 2·delay_ms).
        buffer_packets: data queue limit in packets, for every queue type (``queue.bytes`` in
            ``sets`` switches to bytes; a ``queue`` with ``packets``/``bytes`` has its own).
        duration_s: simulated time in seconds.
        flows: number of identical bulk flows sharing the link.
        seed: master random seed.
        sets: ``key=value`` overrides with units (see :data:`SET_KEYS`), e.g.
            ``["abc.delta=100ms", "abc.eta=0.95", "queue.packets=100"]``.
        record_packets: keep per-packet records (``packets``/``hop_packets`` tables).
        sample_ms: time-series bin width in ms.
        strict: reject ``sets`` keys that do not apply to this scheme.
        queue: replace the preset's data queue: a Mahimahi-style description such as
            ``"codel target=50,interval=100,packets=250"`` (see :func:`parse_queue_spec`) or a
            queue object in the core's JSON schema.
        ecn: ECN on (``True``) or off (``False``) for the flows; ``None``: the preset's (on for
            the ABE schemes, which cannot turn it off). Same as ``flow.ecn`` in ``sets``.

    ECN and the AQMs: when the flows use ECN (``ecn=True``, ``flow.ecn=true`` or an ABE scheme), a
    ``codel`` or ``pie`` data queue gets ``ecn: true`` (it marks instead of dropping), otherwise
    ``ecn: false`` — unless the queue's ``ecn`` was given explicitly (``queue``, ``codel.ecn``,
    ``pie.ecn``).

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
    locations: _Locations = {}
    if queue is None:
        data_queue: dict[str, Any] = {"type": preset.queue}
    else:
        data_queue, queue_locations = _queue_arg(queue)
        locations.update({f"hops[0].queue.{f}": where for f, where in queue_locations.items()})
    explicit_queue_ecn = "ecn" in data_queue
    if data_queue["type"] != "infinite" and "packets" not in data_queue and "bytes" not in data_queue:
        data_queue["packets"] = buf
    flow: dict[str, Any] = {"scheme": preset.cc, "params": {}, "fwd": [0], "rev": [1]}
    if n_flows > 1:
        flow["count"] = n_flows
    if ecn is not None and not isinstance(ecn, bool):
        raise ScenarioError(f"ecn: expected True, False or None, got {ecn!r}", key="ecn")
    if ecn is False and preset.cc in ECN_CONTROLLERS:
        raise ScenarioError(_abe_needs_ecn(preset.cc, "ecn=False"), key="ecn")
    if preset.ecn if ecn is None else ecn:
        flow["ecn"] = True
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
    scenario = apply_sets(scenario, sets, strict=strict, _locations=locations)
    flows_out = scenario["flows"]
    for j, f in enumerate(flows_out):
        if preset.cc in ECN_CONTROLLERS and f.get("ecn") is False:
            item = locations.get(f"flows[{j}].ecn", ("flow.ecn=false", "flow.ecn"))
            raise ScenarioError(_abe_needs_ecn(preset.cc, item[0]), key=item[1])
    q = scenario["hops"][0]["queue"]
    if q.get("type") in AQM_QUEUES and not explicit_queue_ecn and "hops[0].queue.ecn" not in locations:
        q["ecn"] = preset.cc in ECN_CONTROLLERS or any(bool(f.get("ecn")) for f in flows_out)
    _validate(scenario, locations)
    return scenario


def _abe_needs_ecn(cc: str, what: str) -> str:
    plain = cc.removesuffix("-abe")
    return (
        f"{what}: {cc} always uses ECN (ABE answers ECN marks with beta_ecn); "
        f"use {plain} or {plain}+codel for a flow without ECN"
    )


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
        locations: _Locations = {}
        data = apply_sets(data, sets, _locations=locations)
        _validate(data, locations, context=f"scenario file {p}")
    return data
