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

This module builds scenarios, resolves links and traces, loads scenario files and re-explains the
core's validation errors. The pieces it uses live in their own modules and are re-exported here:
:mod:`accelbrake.units` (numbers with units), :mod:`accelbrake.schemes` (the presets),
:mod:`accelbrake.setkeys` (``--set`` keys), :mod:`accelbrake.queues` (``--queue`` specs) and
:mod:`accelbrake.errors` (:class:`ScenarioError`).
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accelbrake import catalog
from accelbrake._core import SimulationError
from accelbrake._io import DocumentError, find_upwards, package_dir, parse_json_document, parse_toml_document
from accelbrake.errors import ScenarioError
from accelbrake.queues import QUEUE_KEYS, parse_queue_spec, queue_from_arg
from accelbrake.schemes import (
    ABC_CONTROLLERS,
    AQM_QUEUES,
    ECN_CONTROLLERS,
    SCHEMES,
    SchemePreset,
    canonical_scheme,
    scheme_preset,
)
from accelbrake.setkeys import SET_KEYS, Locations, apply_sets, set_applies, sets_for_scheme
from accelbrake.units import parse_duration, parse_int, parse_rate

__all__ = [
    "DEFAULT_TRACE",
    "SCHEMES",
    "SET_KEYS",
    "SchemePreset",
    "ScenarioError",
    "apply_sets",
    "build_scenario",
    "ABC_CONTROLLERS",
    "AQM_QUEUES",
    "ECN_CONTROLLERS",
    "QUEUE_KEYS",
    "canonical_scheme",
    "link_spec",
    "wifi_link_spec",
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
DEFAULT_TRACE = catalog.default_trace()


def _validate(scenario: Mapping[str, Any], locations: Locations, context: str | None = None) -> None:
    """Run the core's validation; name the ``--set`` item / ``--queue`` parameter (or ``context``,
    e.g. the scenario file) behind a failure. The core's error carries the scenario path it is about
    (``key``: ``hops[0].queue.eta``, ``flows[1].params.beta``, ``hops[0].link.type``), which maps
    back to what the user wrote. A scenario dict that uses Python controllers gets its
    ``python_controllers`` entry (how worker processes import them, :mod:`accelbrake.controllers`)."""
    from accelbrake import controllers

    if isinstance(scenario, dict):
        controllers.annotate(scenario)
    try:
        controllers.validate_json(json.dumps(scenario, allow_nan=False))
    except SimulationError as e:
        msg = str(e)
        key = getattr(e, "key", None)
        where = locations.get(key) if key else None
        if where is not None:
            detail = msg.removeprefix(f"parameter {key}: ")
            raise ScenarioError(f"{where[0]}: {detail}", key=where[1]) from None
        if context:
            raise ScenarioError(f"{context}: {msg.removeprefix('scenario: ')}", key=key) from None
        raise


# ---------------------------------------------------------------------------------------------
# Links and traces


def resolve_trace(path: str | os.PathLike[str]) -> str | None:
    """Find a trace file: as given (relative to the current directory), else relative to the
    repository the package lives in (walking up from the package directory), else among the traces
    bundled with the package (``accelbrake/traces``, where ``traces/X`` and plain ``X`` both name
    ``accelbrake/traces/X``), else by file name anywhere in the bundled traces
    (``downlink-4g-with-cross-times`` finds ``c2tcp-nyc/downlink-4g-with-cross-times``). Returns the
    path to use, or ``None`` if there is no such file."""
    p = Path(path).expanduser()
    if p.is_file():
        return str(p)
    if p.is_absolute():
        return None
    for rel in (p, Path("traces") / p):
        found = find_upwards(rel)
        if found is not None and found.is_file():
            return str(found)
    return bundled_trace(p.name) if p.name else None


def bundled_example(path: str | os.PathLike[str]) -> Path | None:
    """The copy bundled with the package (``accelbrake/examples``) of an example file that the
    README names by its place in the repository (``examples/two-bottlenecks.json``,
    ``experiments/abc-vs-cubic.toml``), for use from any directory; ``None`` for any other path or
    when there is no such bundled file. A file of that name in the current directory comes first
    (the callers look there before)."""
    parts = Path(path).parts
    if len(parts) != 2 or parts[0] not in ("examples", "experiments"):
        return None
    found = package_dir() / "examples" / parts[1]
    return found if found.is_file() and found.suffix in (".json", ".toml") else None


def has_glob(name: str | os.PathLike[str]) -> bool:
    """Whether ``name`` holds a shell glob character (``*``, ``?``, ``[``)."""
    return any(c in str(name) for c in "*?[")


def expand_trace_patterns(names: Iterable[str], option: str = "--traces") -> list[str]:
    """Trace names with shell patterns expanded, in order, each match once. A name that is an
    existing file is kept as it is; a pattern (``traces/*.up``, left unexpanded by the shell where
    the current directory has no match, or quoted) expands over the files it matches in the
    current directory, else in the repository's ``traces/``, else among the bundled traces
    (``traces/X`` and ``X`` both name ``accelbrake/traces/X``), sorted. A pattern that matches no
    trace is an error naming ``option``: never one silent pick."""
    import glob

    out: list[str] = []
    for name in names:
        if not has_glob(name) or Path(name).is_file():
            out.append(name)
            continue
        matches = sorted(f for f in glob.glob(os.path.expanduser(name)) if os.path.isfile(f))
        if not matches and not os.path.isabs(name):
            for rel in (Path(name), Path("traces") / name):
                root = find_upwards(Path(rel.parts[0])) if len(rel.parts) > 1 else None
                if root is not None and root.is_dir():
                    found = sorted(str(f) for f in root.glob(str(Path(*rel.parts[1:]))) if f.is_file())
                    if found:
                        matches = found
                        break
        if not matches and not os.path.isabs(name):
            bundled = bundled_traces_dir()
            pattern = name.removeprefix("traces/")
            if bundled.is_dir():
                matches = sorted(
                    str(f) for f in bundled.glob(pattern) if f.is_file() and f.name not in BUNDLED_NOT_TRACES
                )
        if not matches:
            raise ScenarioError(
                f"{option} {name}: the pattern matches no trace file here, in a traces/ folder above "
                "nor among the bundled traces (`accelbrake traces` lists them)",
                key=option,
            )
        out.extend(matches)
    return list(dict.fromkeys(out))


def expanded_flows(scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scenario's flows one per flow id (an entry with ``count: N`` stands for N flows), as the
    core numbers them."""
    out: list[dict[str, Any]] = []
    for f in scenario.get("flows", []):
        out.extend([f] * max(1, int(f.get("count", 1) or 1)))
    return out


def bundled_traces_dir() -> Path:
    """The folder of trace files shipped inside the package (``accelbrake/traces``)."""
    return package_dir() / "traces"


def bundled_trace(name: str) -> str | None:
    """The bundled trace file called ``name`` (searched in every subfolder), or ``None``."""
    root = bundled_traces_dir()
    if not root.is_dir() or name in BUNDLED_NOT_TRACES or has_glob(name):
        # A pattern names no one file: rglob would pick its first match silently
        # (expand_trace_patterns expands patterns where a list of traces is taken).
        return None
    for f in sorted(root.rglob(name)):
        if f.is_file():
            return str(f)
    return None


#: Files in trace folders that are documentation, not traces.
BUNDLED_NOT_TRACES = frozenset({"README.md", "SHA256SUMS"})


def _special_file_kind(p: Path) -> str | None:
    """What ``p`` is when it exists but is not a regular file (a directory, a FIFO, a device...),
    else ``None``."""
    try:
        mode = p.stat().st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


#: What a ``wifi:`` link text may hold (:func:`wifi_link_spec`).
WIFI_LINK_HELP = (
    "wifi:SCHEDULE[:OPTION...] with SCHEDULE one of mcs=N (fixed HT MCS 0-7), alt=A/B/...@MS (cycle "
    "through the MCS values, each held MS ms), brownian=LO/HI@MS (random walk in [LO, HI], one step "
    "every MS ms), file=PATH ('time_ms mcs' lines); OPTIONs users=N (N receivers, one schedule each, "
    "flow i goes to user i mod N), per-user (one queue per user instead of a shared FIFO), m=N (frames "
    "per A-MPDU, default 32), jitter=US (extra overhead per batch, uniform in [0, US] µs), width=20|40, "
    "sgi (short guard interval)"
)


def is_wifi_text(text: str) -> bool:
    """Whether a link text is a ``wifi:`` description."""
    return str(text).strip().lower().startswith("wifi:")


def wifi_link_spec(text: str, *, what: str = "trace") -> dict[str, Any]:
    """The scenario JSON of an 802.11n A-MPDU link described as ``wifi:...`` (see
    :data:`WIFI_LINK_HELP`), e.g. ``wifi:alt=1/7@2000`` (the ABC paper's Fig. 9),
    ``wifi:brownian=3/7@2000`` (Fig. 16) or ``wifi:alt=1/7@2000:users=2``."""

    def fail(msg: str) -> ScenarioError:
        return ScenarioError(f"{what} '{text}': {msg}; expected {WIFI_LINK_HELP}", key=what)

    def whole(v: str, name: str) -> int:
        try:
            x = int(v)
        except ValueError:
            raise fail(f"{name}={v} is not a whole number") from None
        return x

    def mcs_list(v: str, name: str) -> list[int]:
        return [whole(x, name) for x in v.split("/") if x != ""]

    def period(v: str, name: str) -> tuple[str, float]:
        body, sep, ms = v.partition("@")
        if not sep:
            raise fail(f"{name}={v} needs a period: {name}=A/B@MS")
        try:
            p = float(ms.removesuffix("ms"))
        except ValueError:
            raise fail(f"{name}: period '{ms}' is not a number of ms") from None
        return body, p

    items = [i for i in str(text).strip()[len("wifi:") :].split(":") if i.strip()]
    schedule: dict[str, Any] | None = None
    users, m = 1, None
    link: dict[str, Any] = {"type": "wifi"}
    for item in items:
        key, _, v = item.partition("=")
        key = key.strip().lower()
        if key in ("mcs", "alt", "brownian", "file"):
            if schedule is not None:
                raise fail("give one schedule (mcs=, alt=, brownian= or file=)")
            if key == "mcs":
                schedule = {"type": "fixed", "mcs": whole(v, "mcs")}
            elif key == "alt":
                body, p = period(v, "alt")
                schedule = {"type": "alternate", "values": mcs_list(body, "alt"), "period_ms": p}
            elif key == "brownian":
                body, p = period(v, "brownian")
                lo_hi = mcs_list(body, "brownian")
                if len(lo_hi) != 2:
                    raise fail("brownian=LO/HI@MS takes two MCS values")
                schedule = {"type": "brownian", "min": lo_hi[0], "max": lo_hi[1], "period_ms": p}
            else:
                schedule = {"type": "file", "path": v}
        elif key == "users":
            users = whole(v, "users")
            if not 1 <= users <= 64:
                raise fail(f"users={v}: expected 1 to 64 users")
        elif key == "per-user":
            link["queues"] = "per-user"
        elif key == "m":
            m = whole(v, "m")
        elif key == "jitter":
            try:
                link["jitter_us"] = float(v)
            except ValueError:
                raise fail(f"jitter={v} is not a number of µs") from None
        elif key == "width":
            link["width_mhz"] = whole(v, "width")
        elif key == "sgi":
            link["short_gi"] = True
        else:
            raise fail(f"unknown item '{item}'")
    if schedule is None:
        raise fail("no MCS schedule")
    user: dict[str, Any] = {"mcs": schedule}
    if m is not None:
        user["max_batch"] = m
    link["users"] = [dict(user) for _ in range(users)]
    return link


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
    if lower.startswith("wifi:"):
        return wifi_link_spec(text, what=what)
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
    kind = _special_file_kind(Path(text).expanduser())
    if kind is not None:
        raise ScenarioError(
            f"{what}: '{text}' is {kind}, not a trace file; give a regular Mahimahi trace file, or a "
            "constant rate like const:24 or 24mbps",
            key=what,
        )
    try:
        mbps = parse_rate(text)
    except ValueError:
        raise ScenarioError(
            f"{what}: trace file '{text}' not found (looked in the current directory, the repository and "
            "the traces bundled with accelbrake; 'accelbrake traces' lists them); give a Mahimahi trace "
            "file, or a constant rate like const:24 or 24mbps",
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


#: The largest seed: the core's seed is a u64, carried exactly (never through a float).
MAX_SEED = 2**64 - 1


def build_scenario(
    scheme: str,
    trace: str | float | os.PathLike[str] | None = None,
    ack_trace: str | float | os.PathLike[str] | None = None,
    ack_mbps: float | str | None = None,
    delay_ms: float | str | None = None,
    buffer_packets: int | None = None,
    duration_s: float | str | None = None,
    flows: int | str | list[tuple[str, int]] | None = None,
    seed: int | None = None,
    sets: Iterable[str] | Mapping[str, Any] = (),
    record_packets: bool = False,
    sample_ms: float | str | None = None,
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
        flows: number of identical bulk flows sharing the link, or a mix of schemes:
            ``"abc:3,cubic:3"`` or ``[("abc", 3), ("cubic", 3)]`` (:mod:`accelbrake.mix`); the flows
            of a mix share the data queue of ``scheme`` (or ``queue``).
        seed: master random seed.
        sets: ``key=value`` overrides with units (see :data:`SET_KEYS`), e.g.
            ``["abc.delta=100ms", "abc.eta=0.95", "queue.packets=100"]``.
        record_packets: keep per-packet records (``packets``/``hop_packets`` tables) and exact
            percentiles; off by default, as their memory grows with simulated time (without
            them percentiles come from a sketch, within 0.2 % relative).
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
    # Left out (None): the default network, defined once in the core (catalog.network()).
    net = catalog.network_default
    trace = DEFAULT_TRACE if trace is None else trace
    if ack_trace is not None and ack_mbps is not None:
        raise ScenarioError(
            "ack_mbps: given beside ack_trace, which sets the ACK link (the rate would be ignored); "
            "give one or the other",
            key="ack_mbps",
        )
    ack_mbps = net("ack_mbps") if ack_mbps is None else ack_mbps
    delay_ms = net("delay_ms") if delay_ms is None else delay_ms
    buffer_packets = int(net("buffer_packets")) if buffer_packets is None else buffer_packets
    duration_s = net("duration_s") if duration_s is None else duration_s
    flows = int(net("flows")) if flows is None else flows
    mix: list[tuple[str, int]] | None = None
    if isinstance(flows, list) or (isinstance(flows, str) and not flows.strip().isdigit()):
        from accelbrake.mix import parse_flow_mix

        parsed = parse_flow_mix(",".join(f"{n}:{c}" for n, c in flows) if isinstance(flows, list) else flows)
        if isinstance(parsed, int):
            flows = parsed
        else:
            mix, flows = parsed, sum(c for _, c in parsed)
    seed = int(net("seed")) if seed is None else seed
    sample_ms = net("sample_ms") if sample_ms is None else sample_ms
    d_ms = _positive("delay_ms", delay_ms, parse_duration, "a delay ≥ 0 ms", inclusive=True)
    dur_ms = _positive("duration_s", duration_s, lambda v: parse_duration(v, "s"), "a duration > 0 s")
    smp_ms = _positive("sample_ms", sample_ms, parse_duration, "a bin width ≥ 1 ms", 1.0, inclusive=True)
    buf = int(_positive("buffer_packets", buffer_packets, parse_int, "a limit ≥ 1 packet", 1, inclusive=True))
    n_flows = int(_positive("flows", flows, parse_int, "1 or more flows", 1, inclusive=True))
    if not isinstance(record_packets, bool):
        raise ScenarioError(
            f"record_packets: expected True or False, got {type(record_packets).__name__} {record_packets!r}",
            key="record_packets",
        )
    seed_v = int(_positive("seed", seed, parse_int, "a seed ≥ 0", 0, inclusive=True))
    if seed_v > MAX_SEED:
        raise ScenarioError(
            f"seed: got {seed_v}; expected a whole number from 0 to 2^64−1 = {MAX_SEED}", key="seed"
        )
    if ack_trace is None:
        ack_rate = _positive("ack_mbps", ack_mbps, parse_rate, "a rate > 0 Mbit/s")
        ack_link = {"type": "constant", "mbps": ack_rate}
    else:
        ack_link = link_spec(ack_trace, what="ack_trace")
    locations: Locations = {}
    if queue is None:
        data_queue: dict[str, Any] = {"type": preset.queue}
    else:
        data_queue, queue_locations = queue_from_arg(queue)
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
    flow_list = [flow]
    if mix is not None:
        from accelbrake.mix import mix_flow_groups

        flow_list = mix_flow_groups(mix, data_queue["type"], ecn)
    scenario: dict[str, Any] = {
        "duration_ms": dur_ms,
        "seed": seed_v,
        "sample_ms": smp_ms,
        "record_packets": record_packets,
        "hops": [
            {"name": "data", "link": link_spec(trace), "queue": data_queue, "delay_ms": d_ms},
            {"name": "ack", "link": ack_link, "queue": {"type": "infinite"}, "delay_ms": d_ms},
        ],
        "flows": flow_list,
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


def _parse_toml(text: str, where: str) -> dict[str, Any]:
    try:
        import tomllib  # noqa: F401 - Python ≥ 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli  # noqa: F401
        except ModuleNotFoundError:
            raise ScenarioError("reading TOML needs Python ≥ 3.11 or the 'tomli' package") from None
    return parse_toml_document(text, where)


def _non_finite(obj: Any, where: str = "") -> tuple[str, float] | None:
    """The first NaN or infinite number in a parsed document, as ``(key path, value)``
    (``hops[0].delay_ms``), or ``None``. JSON's ``NaN``/``Infinity`` and TOML's ``nan``/``inf``
    parse, but no parameter takes them."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return where or "(top level)", obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            found = _non_finite(v, f"{where}.{k}" if where else str(k))
            if found is not None:
                return found
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found = _non_finite(v, f"{where}[{i}]")
            if found is not None:
                return found
    return None


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
    if not p.exists():
        p = bundled_example(p) or p
    if not p.is_file():
        kind = _special_file_kind(p)
        if kind is not None:
            raise ScenarioError(f"scenario file {p}: {kind}, not a JSON or TOML file", key=str(p))
        raise FileNotFoundError(2, "scenario file not found", str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"scenario file {p}: not UTF-8 text ({e.reason})", key=str(p)) from None
    suffix = p.suffix.lower()
    data: Any
    where = f"scenario file {p}"
    try:
        if suffix == ".toml":
            try:
                data = _parse_toml(text, where)
            except DocumentError:
                raise
            except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
                raise ScenarioError(f"{where}: invalid TOML: {e}", key=str(p)) from None
        else:
            try:
                data = parse_json_document(text, where)
            except json.JSONDecodeError as e:
                if suffix == ".json":
                    raise ScenarioError(
                        f"{where}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}",
                        key=str(p),
                    ) from None
                try:
                    data = _parse_toml(text, where)
                except DocumentError:
                    raise
                except ValueError:
                    raise ScenarioError(
                        f"{where}: neither JSON (line {e.lineno}, column {e.colno}: {e.msg}) nor TOML",
                        key=str(p),
                    ) from None
    except DocumentError as e:
        raise ScenarioError(str(e), key=str(p)) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"scenario file {p}: expected an object/table at the top level", key=str(p))
    bad = _non_finite(data)
    if bad is not None:
        where, value = bad
        raise ScenarioError(
            f"scenario file {p}: {where}: got {value}; expected a finite number "
            "(NaN and infinity are not values of any parameter)",
            key=where,
        )
    for hop in data.get("hops") or []:
        link = hop.get("link") if isinstance(hop, dict) else None
        if isinstance(link, dict) and link.get("type") == "trace" and isinstance(link.get("path"), str):
            tp = Path(link["path"])
            if not tp.is_absolute() and not tp.exists() and (p.parent / tp).exists():
                link["path"] = str(p.parent / tp)
    _validate(data, {}, context=f"scenario file {p}")
    if sets:
        locations: Locations = {}
        data = apply_sets(data, sets, _locations=locations)
        _validate(data, locations, context=f"scenario file {p}")
    return data
