"""Plain-text tables and number formatting for the command line and the experiment summaries.

One number formatter (:func:`fmt`) and one table renderer (:func:`render_table`), so that every
command shows a missing value (``None``, NaN, infinity) the same way: :data:`MISSING`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["MISSING", "fmt", "render_table"]

#: How a missing or non-finite number is shown.
MISSING = "-"


def fmt(v: Any, digits: int = 1) -> str:
    """``v`` with ``digits`` decimals; strings as they are, Python ints as whole numbers, and
    ``None``, NaN and ±infinity as :data:`MISSING`."""
    if v is None:
        return MISSING
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    f = float(v)
    if not math.isfinite(f):
        return MISSING
    return f"{f:.{digits}f}"


def render_table(
    headers: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    left: int = 1,
    left_also: Sequence[int] = (),
) -> str:
    """Align ``rows`` (strings) under two-line ``headers`` ``(top, bottom)``.

    A column whose top label is ``""`` continues the group of the column before it: the group's
    top label is centred over all its columns (e.g. ``("queueing delay", "p50 ms"), ("", "p95 ms")``).
    The first ``left`` columns and those in ``left_also`` are left-aligned, the rest right-aligned.
    """
    ncol = len(headers)
    widths = [max(len(headers[i][1]), *(len(r[i]) for r in rows), 1) for i in range(ncol)]
    spans: list[list[int]] = []  # column indices of each top-label group
    for i, (top, _) in enumerate(headers):
        if top or not spans:
            spans.append([i])
        else:
            spans[-1].append(i)
    for span in spans:
        label = headers[span[0]][0]
        have = sum(widths[i] for i in span) + 2 * (len(span) - 1)
        if len(label) > have:
            widths[span[-1]] += len(label) - have

    def align(i: int, text: str, width: int) -> str:
        return text.ljust(width) if i < left or i in left_also else text.rjust(width)

    top_parts = []
    for span in spans:
        label = headers[span[0]][0]
        width = sum(widths[i] for i in span) + 2 * (len(span) - 1)
        top_parts.append(label.center(width) if len(span) > 1 else align(span[0], label, width))

    def line(cells: Sequence[str]) -> str:
        return "  ".join(align(i, c, widths[i]) for i, c in enumerate(cells)).rstrip()

    out = ["  ".join(top_parts).rstrip(), line([h[1] for h in headers])]
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(r) for r in rows)
    return "\n".join(out)
