"""The ``--set KEY=VALUE`` overrides: the key table :data:`SET_KEYS`, its aliases, value parsing,
and applying overrides to a scenario (:func:`apply_sets`, :func:`set_applies`, :func:`sets_for_scheme`).

Self-contained on purpose (it needs only the units, the scheme presets and the error type), so that
the hand-written table can be replaced by one generated from the core's parameter catalog.
Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from accelbrake._text import did_you_mean
from accelbrake.errors import ScenarioError
from accelbrake.schemes import scheme_preset
from accelbrake.units import parse_bool, parse_duration, parse_float, parse_int, parse_rate, parse_size

__all__ = [
    "EXPECTED",
    "SET_KEYS",
    "Locations",
    "SetKey",
    "apply_sets",
    "parse_value",
    "set_applies",
    "sets_for_scheme",
    "split_sets",
]


@dataclass(frozen=True)
class SetKey:
    """One ``--set`` key (or ``--queue`` parameter): where it lands and how its value is parsed."""

    # "router" (every queue of type qtype), "param" (flow params), "queue" (data queue), "flow", "link"
    target: str
    field: str  # JSON key
    kind: str  # see parse_value
    help: str
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()  # for target "param": controllers accepting it
    qtype: str = "abc"  # for target "router": the queue type it configures
    listed: bool = True  # shown in --help (the -abe copies of the sender keys are not)


_ABC = ("abc", "abc-cubic")
_CUBIC = ("cubic", "cubic-abe")
_NEWRENO = ("newreno", "newreno-abe")
_PROPRATE = ("proprate", "proprate-l", "proprate-m", "proprate-h")


def _codel(field: str, kind: str, help: str) -> SetKey:
    return SetKey("router", field, kind, help, qtype="codel")


def _pie(field: str, kind: str, help: str) -> SetKey:
    return SetKey("router", field, kind, help, qtype="pie")


#: Every ``--set`` key. Durations take units (bare numbers are ms), booleans take true/false.
SET_KEYS: dict[str, SetKey] = {
    # ABC router (the abc queue on the data bottleneck)
    "abc.eta": SetKey("router", "eta", "float", "η, target utilisation (default 0.98)"),
    "abc.delta": SetKey("router", "delta_ms", "duration", "δ, time to drain excess queue (default 133ms)"),
    "abc.dt": SetKey("router", "dt_ms", "duration", "d_t, queueing-delay threshold (default 50ms)"),
    "abc.window": SetKey("router", "window_ms", "duration", "T, window for measuring rates (default 20ms)"),
    "abc.token_limit": SetKey("router", "token_limit", "float", "token bucket limit (default 5)"),
    "abc.rate_source": SetKey(
        "router", "rate_source", "choice", "rate measured at dequeue or enqueue", ("dequeue", "enqueue")
    ),
    "abc.delay_source": SetKey(
        "router", "delay_source", "choice", "queueing delay from queue length or sojourn", ("qlen", "sojourn")
    ),
    # ABC sender
    "abc.initial_window": SetKey(
        "param", "initial_window", "float", "initial window, segments", schemes=_ABC
    ),
    "abc.min_window": SetKey("param", "min_window", "float", "smallest window, segments", schemes=_ABC),
    "abc.additive_increase": SetKey(
        "param", "additive_increase", "bool", "Eq. 3 additive increase", schemes=_ABC
    ),
    "abc.pacing_gain": SetKey(
        "param", "pacing_gain", "float", "pacing gain over w/RTT (0: off)", schemes=_ABC
    ),
    "abc.ai_per_segment": SetKey(
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
    "cubic.initial_window": SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=_CUBIC
    ),
    "cubic.beta": SetKey("param", "beta", "float", "multiplicative decrease (default 0.7)", schemes=_CUBIC),
    "cubic.beta_ecn": SetKey(
        "param", "beta_ecn", "float", "decrease on ECN (default: as on loss; cubic-abe 0.85)", schemes=_CUBIC
    ),
    "cubic.abe_slow_start": SetKey(
        "param", "abe_slow_start", "bool", "beta_ecn also when a mark ends slow start", schemes=_CUBIC
    ),
    "cubic.c": SetKey("param", "c", "float", "cubic scaling constant (default 0.4)", schemes=_CUBIC),
    "cubic.fast_convergence": SetKey("param", "fast_convergence", "bool", "fast convergence", schemes=_CUBIC),
    "cubic.tcp_friendliness": SetKey(
        "param", "tcp_friendliness", "bool", "Reno-friendly region", schemes=_CUBIC
    ),
    "cubic.hystart": SetKey("param", "hystart", "bool", "hybrid slow start", schemes=_CUBIC),
    "cubic.hystart_detect": SetKey(
        "param", "hystart_detect", "int", "HyStart detectors bit set 0..3", schemes=_CUBIC
    ),
    "cubic.hystart_low_window": SetKey(
        "param", "hystart_low_window", "int", "HyStart acts from this window on", schemes=_CUBIC
    ),
    "cubic.hystart_ack_delta": SetKey(
        "param",
        "hystart_ack_delta_ms",
        "duration",
        "largest ACK spacing in a train (default 2ms)",
        schemes=_CUBIC,
    ),
    # NewReno (also newreno-abe)
    "newreno.initial_window": SetKey(
        "param", "initial_window", "int", "initial window, segments", schemes=_NEWRENO
    ),
    "newreno.beta": SetKey("param", "beta", "float", "decrease on loss (default 0.5)", schemes=_NEWRENO),
    "newreno.beta_ecn": SetKey(
        "param", "beta_ecn", "float", "decrease on ECN (default 0.5; newreno-abe 0.8)", schemes=_NEWRENO
    ),
    "newreno.abe_slow_start": SetKey(
        "param", "abe_slow_start", "bool", "beta_ecn also when a mark ends slow start", schemes=_NEWRENO
    ),
    # C2TCP (on top of Cubic; the cubic.* keys do not apply to it)
    "c2tcp.target": SetKey(
        "param",
        "target_ms",
        "duration",
        "application Target, average delay (default 50ms; 0: 2×minRTT)",
        schemes=("c2tcp",),
    ),
    "c2tcp.alpha_init": SetKey("param", "alpha_init", "float", "initial α (default 1.5)", schemes=("c2tcp",)),
    "c2tcp.alpha_min": SetKey(
        "param", "alpha_min", "float", "smallest α the tuner sets (default 1)", schemes=("c2tcp",)
    ),
    "c2tcp.alpha_max": SetKey(
        "param", "alpha_max", "float", "largest α the tuner sets (default 10)", schemes=("c2tcp",)
    ),
    "c2tcp.tuner": SetKey(
        "param", "tuner", "bool", "tune α from the Target every 0.5 s (default true)", schemes=("c2tcp",)
    ),
    "c2tcp.tuner_period": SetKey(
        "param", "tuner_period_ms", "duration", "tuning cycle (default 500ms)", schemes=("c2tcp",)
    ),
    "c2tcp.cubic_holdoff": SetKey(
        "param",
        "cubic_holdoff",
        "bool",
        "skip ACKs Cubic's delay bookkeeping skips (default true)",
        schemes=("c2tcp",),
    ),
    # PropRate (also proprate-l/m/h, whose presets set the target)
    "proprate.target": SetKey(
        "param", "target_ms", "duration", "target buffer delay t̄_buff (default 40ms)", schemes=_PROPRATE
    ),
    "proprate.lmax": SetKey(
        "param", "lmax_ms", "duration", "maximum tolerable latency L_max (default 100ms)", schemes=_PROPRATE
    ),
    "proprate.feedback": SetKey(
        "param", "feedback", "bool", "negative-feedback loop on T (default true)", schemes=_PROPRATE
    ),
    "proprate.guard_target": SetKey(
        "param",
        "guard_target",
        "bool",
        "2×BDP guard at min RTT + target (default true; else min RTT)",
        schemes=_PROPRATE,
    ),
    "proprate.guard_srtt": SetKey(
        "param",
        "guard_srtt",
        "bool",
        "2×BDP guard from the smoothed RTT (wins over guard_target)",
        schemes=_PROPRATE,
    ),
    "proprate.monitor_rebase": SetKey(
        "param",
        "monitor_rebase",
        "bool",
        "a good Monitor probe resets the base delay (default false)",
        schemes=_PROPRATE,
    ),
    # BBR, Copa, Vegas, LEDBAT
    "bbr.cwnd_gain": SetKey("param", "cwnd_gain", "float", "cwnd gain (default 2)", schemes=("bbr",)),
    "copa.delta": SetKey("param", "delta", "float", "δ (default 0.5)", schemes=("copa",)),
    "copa.competitive": SetKey(
        "param", "competitive", "bool", "competitive mode (default true)", schemes=("copa",)
    ),
    "vegas.alpha": SetKey("param", "alpha", "int", "α, packets (default 2)", schemes=("vegas",)),
    "vegas.beta": SetKey("param", "beta", "int", "β, packets (default 4)", schemes=("vegas",)),
    "vegas.gamma": SetKey("param", "gamma", "int", "γ, packets (default 1)", schemes=("vegas",)),
    "vegas.diff_by_rtt": SetKey(
        "param", "diff_by_rtt", "bool", "divide diff by RTT, not baseRTT", schemes=("vegas",)
    ),
    "ledbat.target": SetKey(
        "param", "target_ms", "duration", "target queueing delay (default 100ms)", schemes=("ledbat",)
    ),
    "ledbat.gain": SetKey("param", "gain", "float", "gain (default 1)", schemes=("ledbat",)),
    # Data queue and link
    "queue.packets": SetKey("queue", "packets", "int", "data queue limit, packets"),
    "queue.bytes": SetKey("queue", "bytes", "size", "data queue limit, bytes"),
    "link.once": SetKey("link", "once", "bool", "play the data trace once (mm-link --once)"),
    # Flows
    "flow.ecn": SetKey("flow", "ecn", "bool", "ECN for non-ABC schemes (a codel/pie bottleneck then marks)"),
    "flow.delayed_ack": SetKey("flow", "delayed_ack", "bool", "delayed ACKs (every 2nd segment / 40 ms)"),
    "flow.start": SetKey("flow", "start_ms", "duration", "start time"),
    "flow.stop": SetKey("flow", "stop_ms", "duration", "stop time (no new data after it)"),
    "flow.extra_delay": SetKey("flow", "extra_delay_ms", "duration", "extra one-way delay at the sender"),
    "flow.interval": SetKey("flow", "interval_ms", "duration", "stagger: flow i starts i·interval later"),
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
EXPECTED = {
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
    expected = EXPECTED[kind]
    try:
        if kind in ("time+", "time0"):
            v = parse_duration(raw)
        elif kind == "count":
            v = parse_int(raw)
        else:
            v = parse_float(raw)
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


def parse_value(k: SetKey, raw: Any) -> Any:
    if isinstance(raw, str) and not raw.strip():
        expected = EXPECTED.get(k.kind) or _EXPECTED_LOOSE.get(k.kind) or " or ".join(k.choices)
        raise ValueError(f"missing value; expected {expected}")
    if k.kind in ("time+", "time0", "real0", "real+", "prob", "count"):
        return _strict(k.kind, raw)
    if k.kind == "duration":
        return parse_duration(raw)
    if k.kind == "float":
        return parse_float(raw)
    if k.kind == "int":
        return parse_int(raw)
    if k.kind == "bool":
        return parse_bool(raw)
    if k.kind == "size":
        return parse_size(raw)
    if k.kind == "rate":
        return parse_rate(raw)
    s = str(raw).strip().lower()
    if s not in k.choices:
        raise ValueError(f"got '{raw}'{did_you_mean(s, k.choices)}; expected {' or '.join(k.choices)}")
    return s


def _canonical_key(key: str) -> str:
    key = key.strip().lower()
    prefix, dot, field = key.partition(".")
    prefix = prefix.replace("_", "-")
    if prefix == "abc-cubic":
        prefix = "abc"
    key = prefix + dot + field.replace("-", "_")
    return _ALIASES.get(key, key)


def split_sets(sets: Iterable[str] | Mapping[str, Any] | None) -> list[tuple[str, Any]]:
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
        f"unknown --set key '{key}'{did_you_mean(key, [*SET_KEYS, *_ALIASES])}; "
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
Locations = dict[str, tuple[str, str]]

_QUEUE_NAMES = {"abc": "the ABC router", "codel": "CoDel", "pie": "PIE"}


def apply_sets(
    scenario: Mapping[str, Any],
    sets: Iterable[str] | Mapping[str, Any] | None,
    *,
    strict: bool = True,
    _locations: Locations | None = None,
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
    for raw_key, raw_value in split_sets(sets):
        key = _canonical_key(raw_key)
        spec = SET_KEYS.get(key)
        if spec is None:
            raise ScenarioError(_unknown_key_message(raw_key.strip()), key=raw_key.strip())
        try:
            value = parse_value(spec, raw_value)
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
    for key, value in split_sets(sets):
        if set_applies(key, scheme, queue):
            keep.append((key, value))
        else:
            skipped.append(key)
    return keep, skipped
