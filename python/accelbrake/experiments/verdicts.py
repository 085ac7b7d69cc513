"""Verdicts for ``accelbrake reproduce``: does our number reproduce the published one?

One pure function, :func:`judge`, decides every comparison row:

- a published number: ``reproduced`` when the ratio ours/published lies within the tolerance
  (±20 % by default, :data:`DEFAULT_TOLERANCE`; a published row may state its own and why),
  otherwise ``differs`` (the ratio is given);
- a published range (``low``–``high``, no single value): ``reproduced`` when our number lies inside
  it, ``differs`` otherwise;
- a qualitative claim (yes/no): ``direction holds`` when our answer is the paper's, ``direction
  fails`` otherwise;
- ``not implemented`` when the scheme does not exist here, ``no data`` when a run is missing, and
  ``not compared`` for our numbers the paper gives only as a figure.

:func:`summary` counts the verdicts into the line each reproduction ends with.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "DEFAULT_TOLERANCE",
    "DIFFERS",
    "FAILS",
    "HOLDS",
    "NOT_COMPARED",
    "NOT_IMPLEMENTED",
    "NO_DATA",
    "QUALITATIVE",
    "QUANTITATIVE",
    "REPRODUCED",
    "Verdict",
    "judge",
    "ratio_text",
    "summary",
    "tolerance_text",
]

#: Ratio ours/published within 1 ± this counts as reproduced, unless a row states another tolerance.
DEFAULT_TOLERANCE = 0.20

REPRODUCED = "reproduced"
DIFFERS = "differs"
HOLDS = "direction holds"
FAILS = "direction fails"
NOT_IMPLEMENTED = "not implemented"
NO_DATA = "no data"
NOT_COMPARED = "not compared"

#: Verdicts of a compared number (counted in "N of M reproduced").
QUANTITATIVE = (REPRODUCED, DIFFERS)
#: Verdicts of a qualitative claim.
QUALITATIVE = (HOLDS, FAILS)

# Ratios are computed in floating point: 0.96 / 0.8 is 1.2 + 2e-16. Within this of the bound counts
# as on it.
_EPS = 1e-9


@dataclass(frozen=True)
class Verdict:
    """The verdict of one row: ``verdict`` (one of the names above), the ratio ours/published when
    there is one, and ``text`` for the console (``differs (ratio 2.71)``)."""

    verdict: str
    ratio: float | None = None
    text: str = ""


def tolerance_text(
    tolerance: float | None = None, low: float | None = None, high: float | None = None
) -> str:
    """How a number is judged: ``±20 %``, or ``range 1.7–3.4`` for a published range."""
    if low is not None and high is not None:
        return f"range {low:g}–{high:g}"
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    return f"±{100 * tol:g} %"


def ratio_text(ratio: float | None, tolerance: float | None = None) -> str:
    """The ratio with 2 decimals, or 3 when 2 would print the tolerance bound itself (1.204 is
    ``differs`` at ±20 % and must not read as 1.20)."""
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    two = round(ratio, 2)
    if any(math.isclose(two, b, abs_tol=1e-12) for b in (1 - tol, 1 + tol)):
        return f"{ratio:.3f}"
    return f"{ratio:.2f}"


def judge(
    ours: float | bool | None,
    *,
    value: float | None = None,
    low: float | None = None,
    high: float | None = None,
    claim: bool | None = None,
    tolerance: float | None = None,
    implemented: bool = True,
) -> Verdict:
    """The verdict of our result ``ours`` against a published ``value`` (ratio within ±``tolerance``,
    default :data:`DEFAULT_TOLERANCE`), a published range ``low``–``high`` (used when there is no
    ``value``; with a ``value`` too, our number must lie inside the range), or a published yes/no
    ``claim`` (``ours`` is then our yes/no answer). ``implemented=False``: the scheme does not exist
    here. Without anything published to compare with, the verdict is ``not compared``."""
    if not implemented:
        return Verdict(NOT_IMPLEMENTED, None, NOT_IMPLEMENTED)
    if ours is None or (isinstance(ours, float) and not math.isfinite(ours)):
        return Verdict(NO_DATA, None, NO_DATA)
    if claim is not None:
        v = HOLDS if bool(ours) == claim else FAILS
        return Verdict(v, None, v)
    x = float(ours)
    ratio = x / value if value is not None and value != 0 else None
    has_range = low is not None and high is not None
    if has_range:
        assert low is not None and high is not None
        inside = low - _EPS <= x <= high + _EPS
        if inside:
            return Verdict(REPRODUCED, ratio, REPRODUCED)
        return Verdict(DIFFERS, ratio, f"{DIFFERS} ({x:.2f} outside {low:g}–{high:g})")
    if ratio is None:
        return Verdict(NOT_COMPARED, None, NOT_COMPARED)
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    if abs(ratio - 1.0) <= tol + _EPS:
        return Verdict(REPRODUCED, ratio, REPRODUCED)
    return Verdict(DIFFERS, ratio, f"{DIFFERS} (ratio {ratio_text(ratio, tol)})")


def summary(numbers: Iterable[str], claims: Iterable[str] = ()) -> str:
    """The closing line of a reproduction: ``N of M reproduced`` over the verdicts of the compared
    numbers (``numbers``; a number without data counts in M, not in N), then how many of the
    qualitative ``claims`` hold, then how many published values are for schemes not implemented."""
    n = Counter(numbers)
    c = Counter(claims)
    m = sum(n[v] for v in (*QUANTITATIVE, NO_DATA))
    parts = [f"{n[REPRODUCED]} of {m} reproduced"]
    if n[NO_DATA]:
        parts[0] += f" ({n[NO_DATA]} without data)"
    k = sum(c[v] for v in (*QUALITATIVE, NO_DATA))
    if k:
        parts.append(
            f"qualitative claims: {c[HOLDS]} of {k} hold"
            + (f" ({c[NO_DATA]} without data)" if c[NO_DATA] else "")
        )
    ni = n[NOT_IMPLEMENTED] + c[NOT_IMPLEMENTED]
    if ni:
        parts.append(f"{ni} published value{'s' if ni != 1 else ''} for schemes not implemented here")
    return "; ".join(parts)
