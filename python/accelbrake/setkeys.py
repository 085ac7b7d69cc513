"""The ``--set KEY=VALUE`` overrides: the key table :data:`SET_KEYS`, its aliases, value parsing,
and applying overrides to a scenario (:func:`apply_sets`, :func:`set_applies`, :func:`sets_for_scheme`).

Self-contained on purpose (it needs only the units, the scheme presets and the error type), so that
the hand-written table can be replaced by one generated from the core's parameter catalog.
Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accelbrake import catalog
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
    kind: str  # "param" (a registry parameter: `param` decides), or bool / duration / int / size
    help: str
    choices: tuple[str, ...] = ()
    schemes: tuple[str, ...] = ()  # for target "param": controllers accepting it
    qtype: str = "abc"  # for target "router": the queue type it configures
    listed: bool = True  # shown in --help (the per-scheme copies of family keys are not)
    param: catalog.Param | None = None  # the core's description: unit, range, default, doc


def _param_help(p: catalog.Param) -> str:
    # The default carries the unit; an unset one does not.
    unit = f", {p.unit}" if p.default is None and p.unit and p.unit not in ("ms", "s", "us") else ""
    return f"{p.doc}{unit} (default {p.default_text()})"


def _registry_keys() -> tuple[dict[str, SetKey], dict[str, str]]:
    """The ``--set`` keys of every registry parameter, and their other spellings.

    * ``QUEUE.key`` for each queue type's parameters (``abc.eta``, ``codel.target``): every queue
      of that type;
    * ``FAMILY.key`` for each scheme family's parameters (``cubic.beta``): every flow whose scheme
      is of that family (``cubic`` and ``cubic-abe``);
    * ``SCHEME.key`` (unlisted) for a scheme whose name is not its family (``cubic-abe.beta_ecn``):
      only that scheme's flows.

    Aliases: the scenario field name (``abc.delta_ms``) and the table's own (``abc.qdelay_ref``).
    """
    keys: dict[str, SetKey] = {}
    aliases: dict[str, str] = {}

    def add(key: str, spec: SetKey, p: catalog.Param, prefix: str) -> None:
        if key in keys:
            raise RuntimeError(f"registry: --set key {key} is defined twice")  # caught by a test
        keys[key] = spec
        for alt in (p.name, *p.aliases):
            if alt != p.key:
                aliases[f"{prefix}.{alt}"] = key

    for q in catalog.queues():
        for p in q.params:
            spec = SetKey("router", p.name, "param", _param_help(p), p.choices, qtype=q.name, param=p)
            add(f"{q.name}.{p.key}", spec, p, q.name)
    families: dict[str, list[catalog.Scheme]] = {}
    for s in catalog.schemes():
        families.setdefault(s.family, []).append(s)
    for family, members in families.items():
        names = tuple(m.name for m in members)
        for p in members[0].params:
            spec = SetKey("param", p.name, "param", _param_help(p), p.choices, schemes=names, param=p)
            add(f"{family}.{p.key}", spec, p, family)
        for m in members:
            if m.name == family:
                continue
            for p in m.params:
                spec = SetKey(
                    "param",
                    p.name,
                    "param",
                    _param_help(p),
                    p.choices,
                    schemes=(m.name,),
                    listed=False,
                    param=p,
                )
                add(f"{m.name}.{p.key}", spec, p, m.name)
    return keys, aliases


_REGISTRY_KEYS, _REGISTRY_ALIASES = _registry_keys()

#: Every ``--set`` key: the registry's parameters (from the core's catalog), then the scenario's own
#: knobs (data queue limit, data link, flows). Durations take units (bare numbers are in the
#: parameter's unit, ms for most), booleans take true/false.
SET_KEYS: dict[str, SetKey] = {
    **_REGISTRY_KEYS,
    # Data queue and link
    "queue.packets": SetKey("queue", "packets", "int", "data queue limit, packets"),
    "queue.bytes": SetKey("queue", "bytes", "size", "data queue limit, bytes"),
    "link.once": SetKey("link", "once", "bool", "play the data trace once (mm-link --once)"),
    "link.offset": SetKey(
        "link",
        "offset_ms",
        "duration",
        "pin how far into its trace every trace link is when the flows start, whole ms "
        "(0: the trace's first line, as before seeds drew it; default: drawn from the seed, "
        "uniform over one trace period)",
    ),
    # Flows
    "flow.ecn": SetKey("flow", "ecn", "bool", "ECN for non-ABC schemes (a codel/pie bottleneck then marks)"),
    "flow.delayed_ack": SetKey("flow", "delayed_ack", "bool", "delayed ACKs (every 2nd segment / 40 ms)"),
    "flow.start": SetKey("flow", "start_ms", "duration", "start time"),
    "flow.stop": SetKey("flow", "stop_ms", "duration", "stop time (no new data after it)"),
    "flow.extra_delay": SetKey("flow", "extra_delay_ms", "duration", "extra one-way delay at the sender"),
    "flow.interval": SetKey("flow", "interval_ms", "duration", "stagger: flow i starts i·interval later"),
}

#: Alternative spellings: the scenario field names, the artifact's ``qdelay_ref``, Linux's names.
_ALIASES = {
    **_REGISTRY_ALIASES,
    "flow.start_ms": "flow.start",
    "flow.stop_ms": "flow.stop",
    "flow.extra_delay_ms": "flow.extra_delay",
    "flow.interval_ms": "flow.interval",
    "link.offset_ms": "link.offset",
}

_TIME_EXAMPLE = "like 50 or 50ms (bare numbers are ms)"
#: What each kind of the scenario's own keys (``queue.*``, ``link.*``, ``flow.*``) accepts, for
#: error messages; registry keys say it themselves (:attr:`catalog.Param.expected`).
EXPECTED = {
    "bool": "true or false (also yes/no, on/off, 1/0)",
    "duration": "a duration like 100ms, 0.1s or 100 (ms)",
    "int": "a whole number",
    "size": "a size in bytes like 150000, 150kB or 1MiB",
}


def _param_expected(p: catalog.Param) -> str:
    if p.unit in ("ms", "s", "us"):
        return f"{p.expected} ({_TIME_EXAMPLE.replace('ms', p.unit)})"
    if p.kind == "flag":
        return EXPECTED["bool"]
    return p.expected


def _parse_param(p: catalog.Param, raw: Any) -> Any:
    """Parse a value of a registry parameter into the unit of its scenario field, checking the
    core's range here so the error names the user's key."""
    expected = _param_expected(p)
    if p.kind == "flag":
        return parse_bool(raw)
    if p.kind == "choice":
        w = str(raw).strip().lower()
        if w not in p.choices:
            raise ValueError(f"got '{raw}'{did_you_mean(w, p.choices)}; expected {' or '.join(p.choices)}")
        return w
    try:
        if p.unit == "ms":
            v = parse_duration(raw)
        elif p.unit == "s":
            v = parse_duration(raw, "s") / 1e3
        elif p.unit == "us":
            v = parse_duration(raw, "us") * 1e3
        elif p.unit == "bytes":
            v = float(parse_size(raw))
        elif p.unit == "Mbit/s":
            v = parse_rate(raw)
        else:
            v = parse_float(raw)
    except ValueError as e:
        if "unknown unit" in str(e):
            raise ValueError(f"{str(e).partition(';')[0]}; expected {expected}") from None
        raise ValueError(f"expected {expected}, got '{raw}'") from None
    if not p.in_range(v) or (p.kind == "whole" and v != int(v)):
        raise ValueError(f"expected {expected}, got '{raw}'")
    return int(v) if p.kind == "whole" else v


def parse_value(k: SetKey, raw: Any) -> Any:
    if isinstance(raw, str) and not raw.strip():
        if k.param is not None:
            raise ValueError(f"missing value; expected {_param_expected(k.param)}")
        raise ValueError(f"missing value; expected {EXPECTED[k.kind]}")
    if k.param is not None:
        return _parse_param(k.param, raw)
    parse = {"bool": parse_bool, "duration": parse_duration, "int": parse_int, "size": parse_size}[k.kind]
    return parse(raw)


def _canonical_key(key: str) -> str:
    key = key.strip().lower()
    prefix, dot, field = key.partition(".")
    prefix = prefix.replace("_", "-")
    field = field.replace("-", "_")
    key = _ALIASES.get(prefix + dot + field, prefix + dot + field)
    if key not in SET_KEYS:
        # A scheme's name for its family's keys (abc-cubic.eta → abc.eta, the router it runs over).
        try:
            family = catalog.scheme(prefix).family
        except KeyError:
            return key
        alt = _ALIASES.get(f"{family}.{field}", f"{family}.{field}")
        if alt in SET_KEYS:
            return alt
    return key


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

    * ``QUEUE.*`` keys (``abc.eta``, ``codel.target``, ``pie.alpha``) set every queue of that type;
    * ``FAMILY.*`` keys (``abc.pacing_gain``, ``cubic.beta``, ``bbr.cwnd_gain``) set ``params`` of
      every flow whose scheme is of that family (booleans become 1.0/0.0): ``cubic.*`` also reaches
      ``cubic-abe``; ``SCHEME.*`` (``cubic-abe.beta_ecn``) only that scheme's flows;
    * ``queue.packets`` / ``queue.bytes`` set the data queue limit (the first hop on flow 0's data
      path with a finite queue); ``link.once`` plays that hop's trace once; ``link.offset`` pins
      the trace offset (``offset_ms``) of every trace link, so that the seed no longer draws it;
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
        if spec is None and _python_set(raw_key.strip(), raw_value, flows, strict, _locations):
            continue
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
                    if spec.field in ("packets", "bytes"):  # one limit replaces the other
                        q.pop("bytes" if spec.field == "packets" else "packets", None)
                        if _locations is not None:
                            _locations[f"hops[{i}].queue"] = where
                    q[spec.field] = value
                    applied = True
                    if _locations is not None:
                        _locations[f"hops[{i}].queue.{spec.field}"] = where
            name = _QUEUE_NAMES.get(spec.qtype, spec.qtype)
            why = f"it sets {name}, but no hop has a{'n' * (spec.qtype[0] in 'aeiou')} {spec.qtype} queue"
        elif spec.target == "param":
            for j, f in enumerate(flows):
                if f.get("scheme") in spec.schemes:
                    # A choice stays a word (pcc-vivace.utility); numbers and flags as numbers.
                    f.setdefault("params", {})[spec.field] = value if isinstance(value, str) else float(value)
                    applied = True
                    if _locations is not None:
                        _locations[f"flows[{j}].params.{spec.field}"] = where
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
                elif spec.field == "offset_ms":
                    # Every trace link: one Mahimahi shell starts all its traces at once.
                    if value < 0 or value != round(value):
                        raise ScenarioError(
                            f"--set {item}: expected a whole number of ms ≥ 0, found {value:g} ms", key=key
                        )
                    for j, h in enumerate(hops):
                        link = h.get("link", {})
                        if link.get("type") == "trace":
                            link["offset_ms"] = int(round(value))
                            applied = True
                            if _locations is not None:
                                _locations[f"hops[{j}].link.offset_ms"] = where
                    why = "the scenario has no trace link"
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


def _python_controller_key(key: str) -> tuple[Any, str] | None:
    """``(class, param)`` when ``key`` is ``NAME.PARAM`` of a registered Python controller."""
    name, dot, field = key.partition(".")
    if not dot:
        return None
    from accelbrake import controllers

    cls = controllers.get_controller(name) if ":" not in name else None
    return (cls, field) if cls is not None else None


def _python_set(
    key: str, raw: Any, flows: list[dict[str, Any]], strict: bool, locations: Locations | None
) -> bool:
    """Apply ``NAME.PARAM=VALUE`` to the flows of Python controller ``NAME``; False if ``key`` is
    not such a key. Values are parsed as numbers, booleans or kept as words; the controller's
    defaults decide the type when the run is built (errors name the key)."""
    found = _python_controller_key(key)
    if found is None:
        return False
    cls, field = found
    if field not in cls.params:
        known = ", ".join(cls.params) or "none"
        raise ScenarioError(
            f"--set {key}={raw}: '{field}' is not a parameter of controller '{cls.name}'"
            f"{did_you_mean(field, list(cls.params))}; its parameters: {known}",
            key=key,
        )
    default = cls.params[field]
    try:
        if isinstance(default, bool):
            value: Any = parse_bool(raw) if isinstance(raw, str) else bool(raw)
        elif isinstance(default, (int, float)):
            value = float(raw) if isinstance(raw, str) else raw
        else:
            value = str(raw)
    except ValueError as e:
        raise ScenarioError(f"--set {key}={raw}: {e}", key=key) from None
    name = key.partition(".")[0]
    applied = False
    for j, f in enumerate(flows):
        if f.get("scheme") == name:
            f.setdefault("params", {})[field] = value
            applied = True
            if locations is not None:
                locations[f"flows[{j}].params.{field}"] = (f"--set {key}={raw}", key)
    if not applied and strict:
        used = sorted({str(f.get("scheme")) for f in flows})
        raise ScenarioError(
            f"--set {key}={raw}: it applies to {name} flows, but the flows use {', '.join(used)}", key=key
        )
    return True


def set_applies(key: str, scheme: str, queue: str | None = None) -> bool:
    """Whether ``--set`` key ``key`` means anything for the preset ``scheme`` (unknown keys: True,
    so that they are reported by :func:`apply_sets`). ``queue`` is the data queue type when an
    explicit ``--queue`` replaces the preset's."""
    spec = SET_KEYS.get(_canonical_key(key))
    if spec is None:
        py = _python_controller_key(key.strip())
        if py is not None:
            return scheme_preset(scheme).cc == key.strip().partition(".")[0]
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
