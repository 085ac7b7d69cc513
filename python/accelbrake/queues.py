"""``--queue`` specs, Mahimahi style: ``"codel target=50,interval=100,packets=250"``.

:func:`parse_queue_spec` turns one into the core's queue JSON; :data:`QUEUE_KEYS` lists the
parameters of each queue type. Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from accelbrake._text import did_you_mean
from accelbrake.errors import ScenarioError
from accelbrake.setkeys import EXPECTED, Locations, SetKey, parse_value

__all__ = ["QUEUE_KEYS", "parse_queue_spec", "queue_from_arg"]


def _qk(field: str, kind: str, help: str, choices: tuple[str, ...] = ()) -> SetKey:
    return SetKey("queue", field, kind, help, choices)


_LIMIT_KEYS = {
    "packets": _qk("packets", "count", "limit in packets (default: --buffer)"),
    "bytes": _qk("bytes", "size", "limit in bytes instead (≥ 1500)"),
}

#: Parameters of each ``--queue`` type: name → how it lands in the queue's JSON. Times are ms
#: when bare (Mahimahi / ABC-artifact style) and accept units (``50ms``, ``0.05s``).
QUEUE_KEYS: dict[str, dict[str, SetKey]] = {
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


def _parse_queue_spec(spec: str, *, option: str = "--queue") -> tuple[dict[str, Any], Locations]:
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
            f"{did_you_mean(qtype, [*QUEUE_KEYS, *_QUEUE_TYPE_ALIASES])}; available: {types}",
            key="queue",
        )
    label = f"{option} {qtype}"
    keys, aliases = QUEUE_KEYS[qtype], _QUEUE_KEY_ALIASES[qtype]
    queue: dict[str, Any] = {"type": qtype}
    locations: Locations = {}
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
                f"{label}: key '{raw_key}' unknown{did_you_mean(name, [*keys, *aliases])}; "
                f"{qtype} keys: {', '.join(keys)}",
                key=raw_key,
            )
        if not eq:
            if k.kind != "bool":
                expected = EXPECTED.get(k.kind) or " or ".join(k.choices)
                raise ScenarioError(
                    f"{label}: {raw_key}: missing value ({raw_key}=...); expected {expected}", key=raw_key
                )
            raw_value = "true"
        if name in given:
            raise ScenarioError(f"{label}: key '{name}' given twice ({given[name]}, {item})", key=raw_key)
        try:
            value = parse_value(k, raw_value)
        except ValueError as e:
            raise ScenarioError(f"{label}: {raw_key}={raw_value}: {e}", key=raw_key) from None
        given[name] = item
        queue[k.field] = value
        locations[k.field] = (f"{label}: {item}", raw_key)
    if "packets" in queue and "bytes" in queue:
        raise ScenarioError(f"{label}: give packets or bytes, not both", key="bytes")
    return queue, locations


def queue_from_arg(queue: str | Mapping[str, Any]) -> tuple[dict[str, Any], Locations]:
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
