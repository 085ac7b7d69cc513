"""``--queue`` specs, Mahimahi style: ``"codel target=50,interval=100,packets=250"``.

:func:`parse_queue_spec` turns one into the core's queue JSON; :data:`QUEUE_KEYS` lists the
parameters of each queue type. Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from accelbrake import catalog
from accelbrake._text import did_you_mean
from accelbrake.errors import ScenarioError
from accelbrake.setkeys import EXPECTED, Locations, SetKey, parse_value

__all__ = ["QUEUE_KEYS", "parse_queue_spec", "queue_from_arg"]


def _queue_keys() -> tuple[dict[str, dict[str, SetKey]], dict[str, dict[str, str]], dict[str, str]]:
    keys: dict[str, dict[str, SetKey]] = {}
    aliases: dict[str, dict[str, str]] = {}
    type_aliases: dict[str, str] = {}
    for q in catalog.queues():
        keys[q.name] = {
            p.key: SetKey(
                "queue", p.name, "param", p.doc + f" (default {p.default_text()})", p.choices, param=p
            )
            for p in q.params
        }
        aliases[q.name] = {alt: p.key for p in q.params for alt in (p.name, *p.aliases) if alt != p.key}
        type_aliases.update({a: q.name for a in q.aliases})
    return keys, aliases, type_aliases


#: Parameters of each ``--queue`` type (from the core's catalog): key → how it lands in the queue's
#: JSON. Times are ms when bare (Mahimahi / ABC-artifact style) and accept units (``50ms``).
#: Other spellings: the scenario field names (``target_ms``) and Linux tc's / the artifact's
#: (``limit``, ``tupdate``, ``qdelay_ref``); queue types also by Mahimahi's names (``cellular``).
QUEUE_KEYS, _QUEUE_KEY_ALIASES, _QUEUE_TYPE_ALIASES = _queue_keys()

_QUEUE_EXAMPLE = '"codel target=5ms,interval=100ms,packets=1000"'


def parse_queue_spec(spec: str, *, option: str = "--queue") -> dict[str, Any]:
    """Parse a Mahimahi-style queue description into the core's queue JSON.

    ``"TYPE [key=value[,key=value...]]"`` (commas or spaces between parameters), TYPE one of
    ``droptail``, ``infinite``, ``codel``, ``pie``, ``abc`` (also Mahimahi's ``cellular``). Times
    are ms unless they carry a unit, as in Mahimahi and the ABC artifact::

        >>> parse_queue_spec("codel target=50,interval=100,packets=250")
        {'type': 'codel', 'target_ms': 50.0, 'interval_ms': 100.0, 'packets': 250}
        >>> parse_queue_spec("abc delta=133,qdelay_ref=50")  # the artifact's name for d_t
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
    from accelbrake import controllers

    if controllers.get_queue(raw_type) is not None:
        return _python_queue_spec(raw_type, rest, option)
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
            if k.param is None or k.param.kind != "flag":
                expected = k.param.expected if k.param is not None else EXPECTED.get(k.kind, "")
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


def _python_queue_spec(name: str, rest: str, option: str) -> tuple[dict[str, Any], Locations]:
    """``NAME key=value,...`` of a Python queue type: values as numbers, booleans or words (the
    class's defaults decide when the run is built)."""
    from accelbrake import controllers

    cls = controllers.get_queue(name)
    assert cls is not None
    queue: dict[str, Any] = {"type": name}
    locations: Locations = {}
    for item in (x for x in re.split(r"[,;\s]+", re.sub(r"\s*=\s*", "=", rest)) if x):
        key, eq, raw = item.partition("=")
        if key not in cls.params and key not in ("packets", "bytes"):
            raise ScenarioError(
                f"{option} {name}: key '{key}' unknown{did_you_mean(key, list(cls.params))}; "
                f"{name} keys: {', '.join(cls.params)}",
                key=key,
            )
        value: Any = raw
        if not eq:
            value = True
        else:
            try:
                value = float(raw)
                value = int(value) if value == int(value) else value
            except ValueError:
                if raw.lower() in ("true", "false"):
                    value = raw.lower() == "true"
        queue[key] = value
        locations[key] = (f"{option} {name}: {item}", key)
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
