"""The one adapter between the project's per-paper reproduction data and the docs' pages.

The per-paper pages (``reproductions/<paper>.md``) are laid out from :class:`Paper` records only;
everything that knows where today's data lives is in :func:`papers`. To feed the pages from another
source (an API that exposes each paper's results, verdicts and statuses), rewrite :func:`papers`
and keep the records' fields.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Finding:
    """One published result and what the reproduction found."""

    where: str
    """Figure/table and section in the paper."""
    claim: str
    """What the paper states."""
    rid: str
    """The reproduction id that judges it (``accelbrake reproduce ID``), or ``""``."""
    verdict: str
    """``reproduced``, ``differs``, ``not implemented``, ..."""
    detail: str
    """The reproduction's own summary of its rows, or why nothing judges this result."""
    numbers: str = ""
    """The reproduction's "N of M reproduced" line."""
    status: str = ""
    """For a difference: explained by experiment, cause in the paper's setup, hypothesis or open."""
    cause: str = ""
    """For a difference: its cause as far as it is known."""
    evidence: str = ""
    """For a difference: the experiment id, test or page that shows the cause."""


@dataclass(frozen=True)
class Paper:
    key: str
    short: str
    citation: str
    summary: str
    findings: list[Finding] = field(default_factory=list)


def papers() -> list[Paper]:
    """Every paper with its findings: the claims and published numbers from the per-paper data
    (:data:`accelbrake.papers.PAPERS`, each number written once there), the verdicts and the
    statuses of the differences from the committed verdict dataset of ``make results``
    (docs/data/reproduce-all.csv: a full ``accelbrake reproduce all``)."""
    from accelbrake.papers import PAPERS
    from accelbrake.papers.index import paper_summary

    with open(ROOT / "docs/data/reproduce-all.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for p in PAPERS:
        claims = {}
        for r in p.results:
            numbers = p.numbers(r)
            claims[r.key] = r.claim + (f" ({numbers})" if numbers else "")
        mine = [r for r in rows if r["paper"] == p.key]
        out.append(
            Paper(
                key=p.key,
                short=p.short,
                citation=p.citation,
                summary=paper_summary(mine),
                findings=[
                    Finding(
                        where=r["where"],
                        claim=claims.get(r["key"], ""),
                        rid=r["id"],
                        verdict=r["verdict"],
                        detail=r["detail"] or r["reason"],
                        numbers=r["numbers"],
                        status=r.get("status", ""),
                        cause=r.get("cause", ""),
                        evidence=r.get("evidence", ""),
                    )
                    for r in mine
                ],
            )
        )
    return out
