"""User-facing scheme names (presets): the controller, the bottleneck queue and ECN of each.

Re-exported by :mod:`accelbrake.scenarios`.
"""

from __future__ import annotations

from typing import NamedTuple

from accelbrake._text import did_you_mean
from accelbrake.errors import ScenarioError

__all__ = [
    "ABC_CONTROLLERS",
    "AQM_QUEUES",
    "ECN_CONTROLLERS",
    "SCHEMES",
    "SchemePreset",
    "canonical_scheme",
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
        hint = did_you_mean(name, SCHEMES)
        if name.startswith("abe-") and name[4:] + "-abe" in SCHEMES:  # the ABE paper's "abe-cubic"
            hint = f" (did you mean '{name[4:]}-abe'?)"
        raise ScenarioError(
            f"unknown scheme '{scheme}'{hint}; available: {', '.join(SCHEMES)}", key="scheme"
        ) from None
