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


@dataclass(frozen=True)
class Paper:
    key: str
    short: str
    citation: str
    summary: str
    findings: list[Finding] = field(default_factory=list)


def papers() -> list[Paper]:
    """Every paper with its findings, from the committed verdict dataset of ``make results``
    (docs/data/reproduce-all.csv: a full ``accelbrake reproduce all``) and the catalogue of
    published results."""
    from accelbrake.experiments import paper_results as P
    from accelbrake.experiments.reproduce_all import paper_summary

    claims = {r.key: r.claim for r in P.RESULTS}
    with open(ROOT / "docs/data/reproduce-all.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = []
    for key, citation in P.PAPERS.items():
        mine = [r for r in rows if r["paper"] == key]
        out.append(
            Paper(
                key=key,
                short=P.SHORT[key],
                citation=citation,
                summary=paper_summary(mine),
                findings=[
                    Finding(
                        where=r["where"],
                        claim=claims.get(r["key"], ""),
                        rid=r["id"],
                        verdict=r["verdict"],
                        detail=r["detail"] or r["reason"],
                        numbers=r["numbers"],
                    )
                    for r in mine
                ],
            )
        )
    return out
