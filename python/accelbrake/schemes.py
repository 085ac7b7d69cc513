"""User-facing scheme names (presets): the controller, the bottleneck queue and ECN of each.

Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

from typing import NamedTuple

from accelbrake import catalog
from accelbrake._text import did_you_mean
from accelbrake.errors import ScenarioError

__all__ = [
    "ABC_CONTROLLERS",
    "AQM_QUEUES",
    "ECN_CONTROLLERS",
    "SCHEMES",
    "SchemePreset",
    "canonical_scheme",
    "display_name",
    "scheme_preset",
]


class SchemePreset(NamedTuple):
    """What a user-facing scheme name means: the sender's controller, the bottleneck queue and ECN."""

    cc: str
    """Congestion-control scheme name in the core (``flows[].scheme``)."""
    queue: str
    """Queue type on the data bottleneck (``hops[0].queue.type``)."""
    ecn: bool = False
    """ECN on by default: the flow sends ECT(0) (``flows[].ecn``) and a CoDel/PIE bottleneck marks
    instead of dropping (``queue.ecn``). True for the ABE schemes, which react to ECN marks."""


def _presets() -> dict[str, SchemePreset]:
    """Every core scheme over its default queue, then ``name+queue`` for the queues its registry row
    pairs it with (``cubic+codel``, ``cubic-abe+pie``), in the core's order."""
    out: dict[str, SchemePreset] = {}
    for s in catalog.schemes():
        ecn = s.marking == "ecn"
        out[s.name] = SchemePreset(s.name, s.queue, ecn)
        for q in s.pairs:
            out[f"{s.name}+{q}"] = SchemePreset(s.name, q, ecn)
    return out


#: User-facing scheme names → (controller in the core, queue type on the data bottleneck, ECN),
#: derived from the core's registry (:mod:`accelbrake.catalog`): each scheme over its default
#: queue (ABC over the ABC router, the artifact's ``cellular`` queue; Cubic and NewReno over
#: drop-tail, as in the artifact's ``exp.sh``; the ABE schemes over CoDel with ECN, as in the ABE
#: paper), and the ``X+codel`` / ``X+pie`` pairings its row lists. Any ``scheme+queue`` also works
#: (:func:`scheme_preset`).
SCHEMES: dict[str, SchemePreset] = _presets()

#: Controllers that always send ECT(0): ABE reacts to ECN marks.
ECN_CONTROLLERS = frozenset(s.name for s in catalog.schemes() if s.marking == "ecn")
#: Controllers that use ABC's accelerate/brake marks (ECN settings do not apply to them).
ABC_CONTROLLERS = frozenset(s.name for s in catalog.schemes() if s.marking == "abc")
#: Queue types that can mark ECN-capable packets instead of dropping them (``queue.ecn``).
AQM_QUEUES = tuple(q.name for q in catalog.queues() if any(p.name == "ecn" for p in q.params))


def display_name(preset: str) -> str:
    """How the papers write a preset: ``Cubic``, ``Cubic+CoDel``, ``PropRate(L)``."""
    name = canonical_scheme(preset)
    cc, _, q = name.partition("+")
    try:
        label = catalog.scheme(cc).display
    except KeyError:
        return preset
    if q:
        try:
            return f"{label}+{catalog.queue(q).display}"
        except KeyError:
            return preset
    return label


def canonical_scheme(scheme: str) -> str:
    """The :data:`SCHEMES` spelling of a scheme name: lower case, ``-`` for ``_``, no spaces."""
    return "".join(str(scheme).split()).lower().replace("_", "-")


def scheme_preset(scheme: str) -> SchemePreset:
    """Look a user-facing scheme name up in :data:`SCHEMES` (case, space and ``_``/``-`` insensitive:
    ``Cubic+CoDel``, ``cubic + codel`` and ``newreno_abe`` work). ``scheme+queue`` works for any
    scheme and queue type (``bbr+codel``)."""
    name = canonical_scheme(scheme)
    if name not in SCHEMES and isinstance(scheme, str):
        from accelbrake import controllers

        cls = controllers.get_controller(scheme.strip())
        if cls is not None:  # a Python controller, over drop-tail unless scheme+queue says otherwise
            return SchemePreset(scheme.strip(), "droptail", False)
        cc, plus, q = scheme.strip().partition("+")
        if plus and controllers.get_controller(cc) is not None:
            try:
                return SchemePreset(cc, catalog.queue(q.lower()).name, False)
            except KeyError:
                pass
    try:
        return SCHEMES[name]
    except KeyError:
        cc, plus, q = name.partition("+")
        if plus and cc in SCHEMES and "+" not in cc:
            try:
                queue = catalog.queue(q).name
            except KeyError:
                names = [k.name for k in catalog.queues()]
                hint = did_you_mean(name, [f"{cc}+{k}" for k in names])
                raise ScenarioError(
                    f"unknown queue '{q}' in scheme '{scheme}'{hint}; queues: {', '.join(names)}",
                    key="scheme",
                ) from None
            base = SCHEMES[cc]
            return SchemePreset(base.cc, queue, base.ecn)
        hint = did_you_mean(name, SCHEMES)
        if name.startswith("abe-") and name[4:] + "-abe" in SCHEMES:  # the ABE paper's "abe-cubic"
            hint = f" (did you mean '{name[4:]}-abe'?)"
        from accelbrake import controllers

        py = controllers.controller_names()
        extra = f"; Python controllers: {', '.join(py)}" if py else ""
        raise ScenarioError(
            f"unknown scheme '{scheme}'{hint}; available: {', '.join(SCHEMES)}{extra}", key="scheme"
        ) from None
