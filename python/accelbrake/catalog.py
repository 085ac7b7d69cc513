"""The core's registry, read once: schemes, queue types, links and the default network.

Everything the Python layer knows about schemes and parameters comes from here — ``--set`` keys
(:mod:`accelbrake.setkeys`), presets (:mod:`accelbrake.schemes`), ``--help``, plot labels and
colours, ``docs/parameters.md`` (:func:`parameters_markdown`) — so adding a scheme to the core
needs no Python edit.

>>> from accelbrake import catalog
>>> catalog.scheme("cubic-abe").param("beta_ecn").default
0.85
>>> catalog.network_default("delay_ms")
50.0
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from accelbrake import _core

__all__ = [
    "Param",
    "QueueKind",
    "Scheme",
    "default_trace",
    "network",
    "network_default",
    "parameters_markdown",
    "queue",
    "queues",
    "raw",
    "scheme",
    "schemes",
]


@dataclass(frozen=True)
class Param:
    """One parameter of a scheme, a queue type or the default network."""

    name: str
    """Field name in scenario files (``delta_ms``)."""
    key: str
    """Command-line key, without a unit suffix (``delta``; ``--set abc.delta=100ms``)."""
    kind: str
    """``real``, ``whole``, ``flag`` or ``choice``."""
    default: Any
    """Default (``None``: unset; the doc says what that means)."""
    unit: str
    """Unit of the number in scenario files: ``ms``, ``s``, ``segments``, ``bytes``, ... or ``""``."""
    min: float | None
    max: float | None
    min_open: bool
    max_open: bool
    choices: tuple[str, ...]
    expected: str
    """What a valid value looks like, as the core says it."""
    doc: str
    source: str
    aliases: tuple[str, ...]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Param:
        return cls(
            name=d["name"],
            key=d["key"],
            kind=d["kind"],
            default=d["default"],
            unit=d["unit"],
            min=d["min"],
            max=d["max"],
            min_open=bool(d["min_open"]),
            max_open=bool(d["max_open"]),
            choices=tuple(d["choices"]),
            expected=d["expected"],
            doc=d["doc"],
            source=d["source"],
            aliases=tuple(d["aliases"]),
        )

    def in_range(self, v: float) -> bool:
        """Whether a number (in :attr:`unit`) is within the valid range."""
        if not math.isfinite(v) or self.min is None or self.max is None:
            return math.isfinite(v)
        lo = v > self.min if self.min_open else v >= self.min
        hi = v < self.max if self.max_open else v <= self.max
        return lo and hi

    def default_text(self) -> str:
        """The default as a user reads it (``133 ms``, ``true``, ``unset``)."""
        d = self.default
        if d is None:
            return "unset"
        if isinstance(d, bool):
            return "true" if d else "false"
        if isinstance(d, float) and d.is_integer() and abs(d) < 1e15:
            d = int(d)
        unit = {"segments": " segments", "packets": " packets", "bytes": " bytes", "": ""}.get(
            self.unit, f" {self.unit}"
        )
        return f"{d}{unit}"


@dataclass(frozen=True)
class Scheme:
    """A registry row: a congestion-control scheme."""

    name: str
    display: str
    family: str
    """Prefix of its parameter keys (``cubic`` for ``cubic`` and ``cubic-abe``)."""
    summary: str
    source: str
    marking: str
    """``none``, ``ecn`` (always ECT(0)) or ``abc`` (accelerate/brake)."""
    receiver: str
    queue: str
    """Queue type it normally runs over."""
    pairs: tuple[str, ...]
    """Other queue types it is commonly paired with (presets ``name+queue``)."""
    color: str
    marker: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name or p.key == name:
                return p
        raise KeyError(f"{self.name} has no parameter {name}")


@dataclass(frozen=True)
class QueueKind:
    """A registry row: a queue type."""

    name: str
    display: str
    summary: str
    source: str
    limit: str
    """``none``, ``required`` or ``optional``: how its buffer limit is given."""
    aliases: tuple[str, ...]
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name or p.key == name:
                return p
        raise KeyError(f"queue {self.name} has no parameter {name}")


@functools.cache
def raw() -> dict[str, Any]:
    """The catalog as the core gives it (``_core.catalog()``)."""
    return json.loads(_core.catalog())


@functools.cache
def schemes() -> tuple[Scheme, ...]:
    """Every scheme, in the core's listing order."""
    return tuple(
        Scheme(
            name=s["name"],
            display=s["display"],
            family=s["family"],
            summary=s["summary"],
            source=s["source"],
            marking=s["marking"],
            receiver=s["receiver"],
            queue=s["queue"],
            pairs=tuple(s["pairs"]),
            color=s["color"],
            marker=s["marker"],
            params=tuple(Param.from_json(p) for p in s["params"]),
        )
        for s in raw()["schemes"]
    )


@functools.cache
def queues() -> tuple[QueueKind, ...]:
    """Every queue type, in the core's listing order."""
    return tuple(
        QueueKind(
            name=q["name"],
            display=q["display"],
            summary=q["summary"],
            source=q["source"],
            limit=q["limit"],
            aliases=tuple(q["aliases"]),
            params=tuple(Param.from_json(p) for p in q["params"]),
        )
        for q in raw()["queues"]
    )


def scheme(name: str) -> Scheme:
    """The row of a core scheme name (``KeyError`` if there is none)."""
    for s in schemes():
        if s.name == name:
            return s
    raise KeyError(name)


def queue(name: str) -> QueueKind:
    """The row of a queue type name or alias (``KeyError`` if there is none)."""
    for q in queues():
        if q.name == name or name in q.aliases:
            return q
    raise KeyError(name)


@functools.cache
def network() -> dict[str, Param]:
    """The default network's parameters (``delay_ms``, ``buffer_packets``, ``duration_s``,
    ``ack_mbps``, ``sample_ms``, ``flows``, ``seed``): the ABC paper's cellular setup."""
    return {p["name"]: Param.from_json(p) for p in raw()["network"]}


def network_default(name: str) -> Any:
    """One default of the default network, e.g. ``network_default("delay_ms")`` → 50.0."""
    return network()[name].default


def default_trace() -> str:
    """The bundled trace the ABC artifact's experiments use, relative to the repository root."""
    return raw()["default_trace"]


def _md(text: str) -> str:
    return str(text).replace("|", "\\|")


def _range_text(p: Param) -> str:
    if p.kind == "flag":
        return "true / false"
    if p.kind == "choice":
        return " / ".join(f"`{c}`" for c in p.choices)

    def num(x: float) -> str:
        return f"{x:g}"

    lo = ("(" if p.min_open else "[") + num(p.min if p.min is not None else -math.inf)
    hi = num(p.max if p.max is not None else math.inf) + (")" if p.max_open else "]")
    return f"{lo}, {hi}"


def _param_rows(prefix: str, params: tuple[Param, ...]) -> list[str]:
    rows = [
        "| key | scenario field | default | unit | range | what | default's source |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in params:
        rows.append(
            f"| `{prefix}.{p.key}` | `{p.name}` | {_md(p.default_text())} | {_md(p.unit) or '—'} | "
            f"{_md(_range_text(p))} | {_md(p.doc)} | {_md(p.source) or '—'} |"
        )
    return rows


def parameters_markdown() -> str:
    """``docs/parameters.md``: every scheme, queue and network parameter, generated from the
    catalog (``accelbrake params --markdown``; a test checks the file is current)."""
    out = [
        "# Parameters",
        "",
        "Generated from the core's registry by `accelbrake params --markdown > docs/parameters.md`;",
        "do not edit by hand (a test fails when this file and the code disagree).",
        "",
        "Keys are what `--set` takes (`--set abc.delta=100ms`); times accept units (`100ms`, `0.1s`; bare",
        "numbers are in the unit shown). Scenario files use the *scenario field* names with bare",
        "numbers in that unit: a flow's scheme parameters go in `flows[].params`, a queue's in",
        "`hops[].queue`. A family's keys (`cubic.*`) reach every scheme of the family (`cubic`,",
        "`cubic-abe`); `SCHEME.key` (`cubic-abe.beta_ecn`) reaches only that scheme.",
        "",
        "## Default network",
        "",
        "The ABC paper's cellular setup, used by `accelbrake run`, `build_scenario` and experiment",
        "files unless told otherwise. Options of `accelbrake run` (`--delay`, `--buffer`, ...).",
        "",
        "| name | default | unit | range | what | source |",
        "|---|---|---|---|---|---|",
    ]
    for p in network().values():
        out.append(
            f"| `{p.name}` | {_md(p.default_text())} | {_md(p.unit) or '—'} | {_md(_range_text(p))} | "
            f"{_md(p.doc)} | {_md(p.source) or '—'} |"
        )
    out += ["", "## Schemes", ""]
    out += ["| scheme | label | parameter family | marks | default queue | what | follows |"]
    out += ["|---|---|---|---|---|---|---|"]
    for s in schemes():
        out.append(
            f"| `{s.name}` | {_md(s.display)} | `{s.family}` | {s.marking} | `{s.queue}` | "
            f"{_md(s.summary)} | {_md(s.source)} |"
        )
    seen: set[str] = set()
    for s in schemes():
        if s.family in seen:
            continue
        seen.add(s.family)
        members = [t for t in schemes() if t.family == s.family]
        out += ["", f"### `{s.family}.*` — {', '.join(f'`{t.name}`' for t in members)}", ""]
        out += _param_rows(s.family, s.params)
        for t in members:
            changed = [p for p in t.params if p.default != s.param(p.name).default]
            if changed:
                out += [
                    "",
                    f"`{t.name}` changes: "
                    + ", ".join(f"`{p.key}` = {_md(p.default_text())}" for p in changed)
                    + ".",
                ]
    out += ["", "## Queues", ""]
    for q in queues():
        aka = f" (also {', '.join(f'`{a}`' for a in q.aliases)})" if q.aliases else ""
        out += [
            f"### `{q.name}`{aka} — {_md(q.display)}",
            "",
            f"{_md(q.summary)}; follows {_md(q.source)}.",
            "",
        ]
        if q.params:
            out += _param_rows(q.name, q.params)
        else:
            out += ["No parameters."]
        out.append("")
    return "\n".join(out).rstrip() + "\n"
