"""Verdicts for ``accelbrake reproduce``: does our number reproduce the published one?

One pure function, :func:`judge`, decides every comparison row:

- a published number: ``reproduced`` when the ratio ours/published lies within the tolerance
  (±20 % by default, :data:`DEFAULT_TOLERANCE`; a published row may state its own and why),
  otherwise ``differs`` (the ratio is given). With our number's 95 % interval over seeds, a ratio
  outside the band whose interval still reaches it is ``within the noise`` (neither reproduced nor
  differs: more seeds would decide): "differs" means outside the band *and* outside the noise. A
  reproduced ratio within :data:`EDGE` of its tolerance band's edge says so (``reproduced, at the
  edge``);
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
    "AT_EDGE",
    "DEFAULT_TOLERANCE",
    "EDGE",
    "WITHIN_NOISE",
    "t95",
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
#: A reproduced ratio (or value in a range) this close to the band's edge, relative to the edge, is
#: "reproduced, at the edge": one more seed could tip it.
EDGE = 0.01
AT_EDGE = "at the edge"
#: A number outside its band whose 95 % interval over seeds reaches the band: undecided.
WITHIN_NOISE = "within the noise"

# Two-sided 95 % quantiles of Student's t by degrees of freedom (1-30); above 30 the normal 1.96
# is within 2 % of t.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("t95 needs at least one degree of freedom")
    return _T95[df - 1] if df <= len(_T95) else 1.96


REPRODUCED = "reproduced"
DIFFERS = "differs"
HOLDS = "direction holds"
FAILS = "direction fails"
NOT_IMPLEMENTED = "not implemented"
NO_DATA = "no data"
NOT_COMPARED = "not compared"

#: Verdicts of a compared number (counted in "N of M reproduced").
QUANTITATIVE = (REPRODUCED, DIFFERS, WITHIN_NOISE)
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
    qualifier: str = ""
    """``at the edge`` or ``within the noise`` for a reproduced number that is one of them."""


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
    interval: tuple[float, float] | None = None,
) -> Verdict:
    """The verdict of our result ``ours`` against a published ``value`` (ratio within ±``tolerance``,
    default :data:`DEFAULT_TOLERANCE`), a published range ``low``–``high`` (used when there is no
    ``value``; with a ``value`` too, our number must lie inside the range), or a published yes/no
    ``claim`` (``ours`` is then our yes/no answer). ``implemented=False``: the scheme does not exist
    here. Without anything published to compare with, the verdict is ``not compared``.
    ``interval``: the 95 % interval of our number over seeds; outside the band but with the
    interval reaching it is ``reproduced, within the noise``."""
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
            # A published range is judged as it stands: "at the edge" is about a tolerance band,
            # whose edges are ours (a range's edge is often a bound of the quantity, 1 for Jain's
            # index, so every good value would sit at it).
            return Verdict(REPRODUCED, ratio, REPRODUCED)
        if interval is not None and interval[0] <= high + _EPS and interval[1] >= low - _EPS:
            return _noise(ratio, f"{x:.2f} outside {low:g}–{high:g}", interval, 1.0)
        return Verdict(DIFFERS, ratio, f"{DIFFERS} ({x:.2f} outside {low:g}–{high:g})")
    if ratio is None:
        return Verdict(NOT_COMPARED, None, NOT_COMPARED)
    assert value is not None
    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    if abs(ratio - 1.0) <= tol + _EPS:
        return _reproduced(ratio, ratio, (1.0 - tol, 1.0 + tol))
    if interval is not None:
        lo, hi = sorted((interval[0] / value, interval[1] / value))
        if lo <= 1.0 + tol + _EPS and hi >= 1.0 - tol - _EPS:
            return _noise(ratio, f"ratio {ratio_text(ratio, tol)}", (lo, hi), 1.0)
    return Verdict(DIFFERS, ratio, f"{DIFFERS} (ratio {ratio_text(ratio, tol)})")


def _reproduced(ratio: float | None, x: float, band: tuple[float, float]) -> Verdict:
    """Reproduced, and whether ``x`` lies within :data:`EDGE` of an edge of ``band``."""
    near = [e for e in band if math.isfinite(e) and abs(e) > 1e-12 and abs(x - e) <= EDGE * abs(e) + _EPS]
    if near:
        return Verdict(REPRODUCED, ratio, f"{REPRODUCED}, {AT_EDGE} ({x:.3f}; edge {near[0]:g})", AT_EDGE)
    return Verdict(REPRODUCED, ratio, REPRODUCED)


def _noise(ratio: float | None, what: str, interval: tuple[float, float], scale: float) -> Verdict:
    lo, hi = interval
    return Verdict(
        WITHIN_NOISE,
        ratio,
        f"{WITHIN_NOISE} ({what}; 95 % interval over seeds {lo * scale:.2f}–{hi * scale:.2f})",
        WITHIN_NOISE,
    )


def summary(numbers: Iterable[str], claims: Iterable[str] = ()) -> str:
    """The closing line of a reproduction: ``N of M reproduced`` over the verdicts of the compared
    numbers (``numbers``; a number without data counts in M, not in N), then how many of the
    qualitative ``claims`` hold, then how many published values are for schemes not implemented."""
    n = Counter(numbers)
    c = Counter(claims)
    m = sum(n[v] for v in (*QUANTITATIVE, NO_DATA))
    parts = [f"{n[REPRODUCED]} of {m} reproduced"]
    extra = [f"{n[v]} {t}" for v, t in ((WITHIN_NOISE, WITHIN_NOISE), (NO_DATA, "without data")) if n[v]]
    if extra:
        parts[0] += f" ({', '.join(extra)})"
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
