"""The findings table of the reproductions page, rendered from the committed ``reproduce all`` output.

The findings on ``docs/reproductions.md`` explain why a reproduction differs from its paper; the
counts they rest on (how many of each reproduction's rows hold) come from ``docs/data/reproduce-all.csv``
through this region, so they change when the code's results do and ``tests/test_docs_results.py``
fails when the page falls behind the data.
"""

from __future__ import annotations

import pandas as pd

#: The reproduce-all keys the page's findings discuss, in the page's order.
FINDING_KEYS: tuple[str, ...] = (
    "abc/theorem1",
    "abe/fig11-12",
    "abe/fig8",
    "abe/fig9-10",
    "abe/buffer-rule",
    "proprate/fig7",
    "proprate/fig10",
)

_PAPER = {"abc": "ABC", "abe": "ABE", "c2tcp": "C2TCP", "proprate": "PropRate"}


def render_findings(d: pd.DataFrame) -> str:
    """One row per finding: where, id, verdict, rows that hold, status of a difference."""
    d = d.fillna("")
    missing = [k for k in FINDING_KEYS if k not in set(d["key"])]
    if missing:
        raise ValueError(f"docs/data/reproduce-all.csv: no row for {', '.join(missing)}")
    lines = ["| where | id | verdict | rows | status of the difference |", "|---|---|---|---|---|"]
    for k in FINDING_KEYS:
        r = d[d["key"] == k].iloc[0]
        rows = str(r["detail"]).split(";")[0].strip()
        status = str(r["status"]) or "—"
        paper = _PAPER.get(r["paper"], r["paper"])
        lines.append(f"| {paper} {r['where']} | `{r['id']}` | {r['verdict']} | {rows} | {status} |")
    return "\n".join(lines)
