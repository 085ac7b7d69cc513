"""Congestion controllers written in Python.

Subclass :class:`Controller`, register it under a scheme name, and use that name wherever a
built-in scheme name goes (``accelbrake run --scheme``, experiment files, sweeps)::

    import accelbrake

    @accelbrake.register_controller("my-aimd")
    class MyAimd(accelbrake.Controller):
        params = {"beta": 0.5}          # defaults; set with --set my-aimd.beta=0.7

        def on_ack(self, now, ack):      # now: int ns; ack: accelbrake.Ack
            if ack.acked and not ack.in_recovery:
                self.cwnd += ack.acked / self.cwnd

        def on_congestion_event(self, now, kind, in_flight):
            self.cwnd = max(2.0, self.params["beta"] * in_flight)

The interface mirrors the core's controller trait (``crates/accelbrake-sim/src/cc/mod.rs``): the
transport calls ``on_ack`` on every ACK (duplicates too, with ``acked == 0``),
``on_congestion_event`` once when fast recovery starts (``kind == "loss"``) or on an ECN echo
(``"ecn"``), ``on_recovery_exit``, ``on_rto``, ``on_spurious_rto`` and — only if the class
overrides it, as it costs one call per segment — ``on_sent``. After each call the core reads
``self.cwnd`` (segments; the sender keeps ``pipe < floor(cwnd)``), ``self.pacing_rate`` (bytes/s or
``None``) and ``self.ssthresh`` (segments or ``None``, for the time series).

Sweeps on the process pool: the worker processes import the module that defines the class (so it
must be importable: a module on ``sys.path``, not a script's ``__main__``), or a scheme given as
``module:Class`` is imported wherever it is used. The CLI's ``--import MODULE`` imports a module
that registers controllers before the scenario is built.

An exception raised in a callback stops the run and surfaces as :class:`ControllerError` (a
:class:`accelbrake.SimulationError`) naming the controller, the flow and the callback, with the
original exception as its ``__cause__``.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from collections.abc import Mapping
from typing import Any, TypeVar

from accelbrake import _core
from accelbrake._core import Ack, ControllerError, QueuePacket
from accelbrake.errors import ScenarioError

__all__ = [
    "Ack",
    "Controller",
    "ControllerError",
    "Queue",
    "QueuePacket",
    "register_queue",
    "unregister_queue",
    "controller_names",
    "get_controller",
    "register_controller",
    "unregister_controller",
]

ControllerError.__module__ = "accelbrake"
Ack.__module__ = "accelbrake"
QueuePacket.__module__ = "accelbrake"

#: Callbacks a subclass may override.
HOOKS = ("on_sent", "on_ack", "on_congestion_event", "on_recovery_exit", "on_rto", "on_spurious_rto")

#: Key a scenario dict carries to name its Python controllers for worker processes
#: (``{scheme: "module:Class"}``); removed before the scenario reaches the core.
SCENARIO_KEY = "python_controllers"


class Controller:
    """Base class of Python congestion controllers.

    Class attributes: ``name`` (set by :func:`register_controller`), ``params`` (parameter
    defaults: numbers, booleans or strings; ``--set NAME.KEY=VALUE`` overrides them, checked
    against the default's type).

    Instance attributes read by the core after each callback: ``cwnd`` (segments, initially
    ``initial_window``), ``pacing_rate`` (bytes/s, or ``None``: not paced), ``ssthresh``
    (segments or ``None``). ``self.params`` holds this flow's parameter values, ``self.flow`` the
    flow index, ``self.seed`` a seed derived from the scenario's (use it for any randomness:
    ``random.Random(self.seed)``).
    """

    name: str = ""
    params: Mapping[str, Any] = {}
    initial_window: float = 10.0

    def __init__(self, params: Mapping[str, Any] | None = None, flow: int = 0, seed: int = 0) -> None:
        merged = dict(type(self).params)
        merged.update(params or {})
        self.params = merged
        self.flow = flow
        self.seed = seed
        self.cwnd: float = float(self.initial_window)
        self.pacing_rate: float | None = None
        self.ssthresh: float | None = None

    def on_sent(self, now: int, in_flight: int) -> None:
        """A segment was sent (``in_flight`` includes it). Called only if overridden."""

    def on_ack(self, now: int, ack: Ack) -> None:
        """An ACK arrived (``now`` in ns); see :class:`accelbrake.Ack` for its fields."""

    def on_congestion_event(self, now: int, kind: str, in_flight: int) -> None:
        """Fast recovery starts (``kind == "loss"``) or an ECN echo (``"ecn"``), with FlightSize."""

    def on_recovery_exit(self, now: int) -> None:
        """Fast recovery ended."""

    def on_rto(self, now: int, in_flight: int) -> None:
        """The retransmission timer fired."""

    def on_spurious_rto(self, now: int) -> None:
        """The last RTO was spurious: undo its reduction."""


C = TypeVar("C", bound=type)

_REGISTRY: dict[str, type[Controller]] = {}


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip() or any(c in name for c in " +,="):
        raise ScenarioError(
            f"controller name: expected a non-empty name without spaces, '+', ',' or '=', got {name!r}",
            key="name",
        )
    from accelbrake import catalog

    if name in {s.name for s in catalog.schemes()}:
        raise ScenarioError(
            f"controller name '{name}': a built-in scheme has that name; choose another", key="name"
        )
    return name


def register_controller(name: str, cls: type[Controller] | None = None) -> Any:
    """Register ``cls`` (a :class:`Controller` subclass) as scheme ``name``; without ``cls``,
    return a class decorator. Registering a name again replaces it."""

    def add(c: C) -> C:
        if not (isinstance(c, type) and issubclass(c, Controller)):
            raise ScenarioError(
                f"controller '{name}': expected a subclass of accelbrake.Controller, got {c!r}", key="cls"
            )
        _check_params(name, c.params)
        c.name = _check_name(name)
        _REGISTRY[name] = c
        return c

    if cls is not None:
        return add(cls)
    _check_name(name)
    return add


def unregister_controller(name: str) -> None:
    """Forget a registered controller (no error if unknown)."""
    _REGISTRY.pop(name, None)


def controller_names() -> list[str]:
    """Registered Python controller names."""
    return list(_REGISTRY)


def _import_spec(spec: str, base: type = Controller) -> Any:
    mod, _, qual = spec.partition(":")
    try:
        obj: Any = importlib.import_module(mod)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ScenarioError(f"scheme '{spec}': cannot import it ({e})", key="scheme") from None
    if not (isinstance(obj, type) and issubclass(obj, base)):
        raise ScenarioError(f"scheme '{spec}': not a subclass of accelbrake.{base.__name__}", key="scheme")
    return obj


def get_controller(name: str) -> type[Controller] | None:
    """The class behind a scheme name: a registered name, or ``module:Class`` (imported and
    registered under that spelling); ``None`` if ``name`` is neither."""
    cls = _REGISTRY.get(name)
    if cls is not None:
        return cls
    if isinstance(name, str) and ":" in name and "+" not in name:
        cls = _import_spec(name)
        _check_params(name, cls.params)
        _REGISTRY[name] = cls
        return cls
    return None


def import_path(cls: type) -> str | None:
    """``module:Qualname`` of a class importable in another process, or ``None``."""
    if cls.__module__ == "__main__" or "<locals>" in cls.__qualname__:
        return None
    return f"{cls.__module__}:{cls.__qualname__}"


def import_modules(modules: str | list[str]) -> None:
    """Import modules that register controllers (the CLI's ``--import``)."""
    for m in [modules] if isinstance(modules, str) else modules:
        for part in str(m).split(","):
            if part.strip():
                try:
                    importlib.import_module(part.strip())
                except ImportError as e:
                    raise ScenarioError(f"--import {part.strip()}: {e}", key="import") from None


# ---------------------------------------------------------------------------------------------
# Parameters


def _check_params(name: str, params: Any) -> None:
    if not isinstance(params, Mapping):
        raise ScenarioError(f"controller '{name}': params must be a dict of defaults", key="params")
    for k, v in params.items():
        if not isinstance(v, (bool, int, float, str)):
            raise ScenarioError(
                f"controller '{name}': default of parameter '{k}' must be a number, bool or string, "
                f"got {v!r}",
                key=f"params.{k}",
            )


class _ParamError(ValueError):
    def __init__(self, msg: str, key: str | None) -> None:
        super().__init__(msg)
        self.key = key


def _coerce(cls: type, given: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``given`` checked against ``cls.params`` (or ``defaults``): known names, the default's type."""
    from accelbrake._text import did_you_mean

    out: dict[str, Any] = {}
    defaults = cls.params if defaults is None else defaults
    for k, v in given.items():
        if k not in defaults:
            known = ", ".join(defaults) or "none"
            what = "queue" if issubclass(cls, Queue) else "controller"
            raise _ParamError(
                f"unknown parameter '{k}'{did_you_mean(k, list(defaults))} of {what} '{cls.name}'; "
                f"its parameters: {known}",
                k,
            )
        d = defaults[k]
        if isinstance(d, bool):
            if isinstance(v, bool):
                out[k] = v
            elif isinstance(v, (int, float)) and v in (0, 1):
                out[k] = bool(v)
            else:
                raise _ParamError(f"parameter '{k}': expected true/false, got {v!r}", k)
        elif isinstance(d, (int, float)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise _ParamError(f"parameter '{k}': expected a finite number, got {v!r}", k)
            if isinstance(d, int):
                if float(v) != int(v):
                    raise _ParamError(f"parameter '{k}': expected a whole number, got {v!r}", k)
                out[k] = int(v)
            else:
                out[k] = float(v)
        else:
            if not isinstance(v, str):
                raise _ParamError(f"parameter '{k}': expected a word, got {v!r}", k)
            out[k] = v
    return out


class _Spec:
    """What the core's PyO3 layer calls: ``check``, ``build``, ``hooks``."""

    def __init__(self, cls: type[Controller]) -> None:
        self.cls = cls
        self.hooks = [h for h in HOOKS if getattr(cls, h) is not getattr(Controller, h)]

    def check(self, params: dict[str, Any]) -> None:
        _coerce(self.cls, params)

    def build(self, params: dict[str, Any], flow: int, seed: int, stream: int) -> Controller:
        derived = (seed * 0x9E3779B97F4A7C15 + stream) % (1 << 64)
        return self.cls(_coerce(self.cls, params), flow, derived)


# ---------------------------------------------------------------------------------------------
# Router queues


#: Decisions a queue callback may return (``None`` is ``"pass"``).
VERDICTS = ("pass", "drop", "mark", "brake", "accelerate")


class Queue:
    """Base class of Python router queues: a FIFO with a buffer limit (``packets``, or ``bytes``
    if given) whose decisions the subclass makes.

    ``on_enqueue(now, pkt, len_packets, len_bytes)`` is called for each arriving packet that fits
    in the buffer (a full buffer drops it first, as drop-tail); ``on_dequeue(now, pkt, len_packets,
    len_bytes)`` for the packet at the head about to leave (``pkt.sojourn_ns``: its time in the
    queue). Each returns ``None``/``"pass"``, ``"drop"``, ``"mark"`` (set CE), ``"brake"`` or
    ``"accelerate"`` (ABC's codepoints); a mark on a packet that is not ECN-capable drops it.
    Only overridden callbacks are called. ``self.params``, ``self.hop``, ``self.seed`` as for
    :class:`Controller`.
    """

    name: str = ""
    params: Mapping[str, Any] = {"packets": 1000}

    def __init__(self, params: Mapping[str, Any] | None = None, hop: int = 0, seed: int = 0) -> None:
        merged = dict(type(self).params)
        merged.update(params or {})
        self.params = merged
        self.hop = hop
        self.seed = seed

    def on_enqueue(self, now: int, pkt: QueuePacket, len_packets: int, len_bytes: int) -> str | None:
        """A packet arrives (the queue holds ``len_packets`` before it)."""
        return None

    def on_dequeue(self, now: int, pkt: QueuePacket, len_packets: int, len_bytes: int) -> str | None:
        """The head packet is about to leave."""
        return None


_QUEUES: dict[str, type[Queue]] = {}
QUEUE_HOOKS = ("on_enqueue", "on_dequeue")


def register_queue(name: str, cls: type[Queue] | None = None) -> Any:
    """Register ``cls`` (a :class:`Queue` subclass) as queue type ``name`` (``hops[].queue.type``,
    ``--queue NAME key=value``); without ``cls``, return a class decorator."""

    def add(c: Any) -> Any:
        if not (isinstance(c, type) and issubclass(c, Queue)):
            raise ScenarioError(
                f"queue '{name}': expected a subclass of accelbrake.Queue, got {c!r}", key="cls"
            )
        _check_params(name, c.params)
        from accelbrake import catalog

        if not isinstance(name, str) or not name.strip() or any(ch in name for ch in " +,=:"):
            raise ScenarioError(
                f"queue name: expected a name without spaces, '+', ',', '=' or ':', got {name!r}", key="name"
            )
        if name in {q.name for q in catalog.queues()}:
            raise ScenarioError(f"queue name '{name}': a built-in queue type has that name", key="name")
        c.name = name
        _QUEUES[name] = c
        return c

    return add(cls) if cls is not None else add


def unregister_queue(name: str) -> None:
    """Forget a registered queue type (no error if unknown)."""
    _QUEUES.pop(name, None)


def get_queue(name: str) -> type[Queue] | None:
    """The class of a registered queue type, or ``None``."""
    return _QUEUES.get(name)


class _QueueSpec:
    kind = "queue"

    def __init__(self, cls: type[Queue]) -> None:
        self.cls = cls
        self.hooks = [h for h in QUEUE_HOOKS if getattr(cls, h) is not getattr(Queue, h)]
        # Every Python queue takes a buffer limit: packets (default 1000) or bytes.
        self.defaults = {"packets": 1000, "bytes": 0, **cls.params}

    def check(self, params: dict[str, Any]) -> None:
        self._limit(_coerce(self.cls, params, self.defaults), params)

    @staticmethod
    def _limit(values: Mapping[str, Any], given: Mapping[str, Any]) -> tuple[int | None, int | None]:
        def whole(k: str) -> int:
            v = values[k]
            if not (
                isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 1 and float(v) == int(v)
            ):
                raise _ParamError(f"parameter '{k}': expected a whole number ≥ 1, got {v!r}", k)
            return int(v)

        if "bytes" in given:
            if "packets" in given:
                raise _ParamError("give packets or bytes, not both", "bytes")
            return None, whole("bytes")
        return whole("packets"), None

    def build(self, params: dict[str, Any], hop: int, seed: int) -> tuple[Queue, int | None, int | None]:
        values = _coerce(self.cls, params, self.defaults)
        packets, nbytes = self._limit({**self.defaults, **values}, params)
        own = {k: v for k, v in values.items() if k in self.cls.params}
        obj = self.cls(own, hop, (seed * 0x9E3779B97F4A7C15 + (1 << 40) + hop) % (1 << 64))
        return obj, packets, nbytes


# ---------------------------------------------------------------------------------------------
# Scenarios that use Python controllers


def python_queues(scenario: Mapping[str, Any]) -> dict[str, type[Queue]]:
    """The Python queue types a scenario's hops use (resolving names registered in another
    process through the scenario's ``python_controllers`` key)."""
    paths = scenario.get(SCENARIO_KEY) or {}
    out: dict[str, type[Queue]] = {}
    for h in scenario.get("hops") or []:
        q = h.get("queue") if isinstance(h, Mapping) else None
        name = q.get("type") if isinstance(q, Mapping) else None
        if not isinstance(name, str) or name in out:
            continue
        cls = _QUEUES.get(name)
        if cls is None and name in paths:
            obj = _import_spec(paths[name], base=Queue)
            _QUEUES.setdefault(name, obj)
            cls = obj
        if cls is not None:
            out[name] = cls
    return out


def python_schemes(scenario: Mapping[str, Any]) -> dict[str, type[Controller]]:
    """The Python controllers a scenario's flows use (resolving names registered in another
    process through the scenario's ``python_controllers`` key)."""
    paths = scenario.get(SCENARIO_KEY) or {}
    out: dict[str, type[Controller]] = {}
    for f in scenario.get("flows") or []:
        name = f.get("scheme") if isinstance(f, Mapping) else None
        if not isinstance(name, str) or name in out:
            continue
        cls = _REGISTRY.get(name)
        if cls is None and name in paths:
            cls = _import_spec(paths[name])
            _REGISTRY.setdefault(name, cls)
        if cls is None:
            cls = get_controller(name)
        if cls is not None:
            out[name] = cls
    return out


def annotate(scenario: dict[str, Any]) -> dict[str, Any]:
    """Add ``python_controllers`` (how worker processes import them) to a scenario that uses
    Python controllers; return it."""
    used = {**python_schemes(scenario), **python_queues(scenario)}
    paths = {n: p for n, c in used.items() if (p := import_path(c)) is not None}
    if paths:
        scenario[SCENARIO_KEY] = paths
    return scenario


#: A ``"scheme": "module:Class"`` in scenario JSON.
_SPEC_RE = re.compile(r'"scheme"\s*:\s*"[^"]*:')


def prepare(scenario_json: str) -> tuple[str, dict[str, Any] | None]:
    """The scenario JSON for the core and the specs of its Python controllers (``None`` when it
    uses none: the pure-Rust path)."""
    if (
        not _REGISTRY
        and not _QUEUES
        and SCENARIO_KEY not in scenario_json
        and not _SPEC_RE.search(scenario_json)
    ):
        return scenario_json, None
    sc = json.loads(scenario_json)
    if not isinstance(sc, dict):
        return scenario_json, None
    classes = python_schemes(sc)
    queues = python_queues(sc)
    if SCENARIO_KEY in sc:
        sc.pop(SCENARIO_KEY)
        scenario_json = json.dumps(sc, allow_nan=False)
    if not classes and not queues:
        return scenario_json, None
    specs: dict[str, Any] = {n: _Spec(c) for n, c in classes.items()}
    specs.update({n: _QueueSpec(c) for n, c in queues.items()})
    return scenario_json, specs


def simulate_json(scenario_json: str) -> dict[str, Any]:
    """``_core.simulate`` for a scenario that may use Python controllers."""
    js, specs = prepare(scenario_json)
    return _core.simulate(js, specs)


def validate_json(scenario_json: str) -> None:
    """``_core.validate`` for a scenario that may use Python controllers."""
    js, specs = prepare(scenario_json)
    _core.validate(js, specs)
