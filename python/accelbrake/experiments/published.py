"""What a published result is, as data: the lab's model of a paper, knowing no paper itself.

* :class:`Published`: one published number, range or yes/no claim, with the paper's words, its
  tolerance and why, compared row by row by a reproduction (``accelbrake reproduce ID``).
* :class:`Result`: one published figure, table, theorem or stated number of a paper, judged by one
  reproduction id (or "not implemented" with the reason), with the status of a known difference.
* :class:`Difference`: why a result differs, as far as it is known: the cause found (with the
  experiment id or test that shows it), the cause found in what the paper's setup does not state,
  a hypothesis, or open.
* :class:`Paper`: a paper's citation, its published values and results, its reproduction ids and
  titles, and the module that defines its reproductions (imported only when they run, so that
  listing the ids needs neither pandas nor matplotlib).

The papers themselves live in :mod:`accelbrake.papers` (one folder each). Light on purpose: the
command line's help lists the ids from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXPLAINED",
    "HYPOTHESIS",
    "OPEN",
    "PAPER_SETUP",
    "STATUSES",
    "Difference",
    "Paper",
    "Published",
    "Result",
]


@dataclass(frozen=True)
class Published:
    """One published number or claim."""

    section: str
    """The reproduction id (``abc-table``)."""
    scheme: str
    """The paper's scheme name (``Cubic+CoDel``)."""
    metric: str
    """What is compared (``norm. utilisation``)."""
    ours: str | None
    """Our matrix scheme, or ``None`` if not implemented here (printed as "not implemented")."""
    text: str
    """The published value as the paper states it (its words)."""
    value: float | None = None
    low: float | None = None
    high: float | None = None
    claim: bool | None = None
    """For a qualitative claim: the published answer (``True``: "ABC lies outside the frontier")."""
    tolerance: float | None = None
    """The ratio ours/published within 1 ± this is reproduced; ``None``: the default ±20 %."""
    why: str = ""
    """Why this row has its own tolerance or band (shown next to it)."""

    def statement(self) -> str:
        """The row as one phrase for generated prose: ``XCP norm. utilisation: <its text>``."""
        return f"{self.scheme} {self.metric}: {self.text}"


#: The statuses of a known difference, in the order the index counts them.
EXPLAINED = "explained by experiment"
"""The cause is found; ``evidence`` names the experiment id or test that shows it."""
PAPER_SETUP = "cause in the paper's setup"
"""The difference comes from what the paper does not state (``evidence``: what we chose instead)."""
HYPOTHESIS = "hypothesis"
"""A likely cause, not shown yet."""
OPEN = "open"
"""No cause known."""
STATUSES = (EXPLAINED, PAPER_SETUP, HYPOTHESIS, OPEN)


@dataclass(frozen=True)
class Difference:
    """What is known about why a result differs from the paper."""

    status: str
    """One of :data:`STATUSES`."""
    cause: str
    """The cause (found or supposed), in a sentence or two; empty when open."""
    evidence: str = ""
    """The experiment id, test or docs section that shows it (required when explained)."""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"difference status {self.status!r}: expected one of {', '.join(STATUSES)}")
        if self.status == EXPLAINED and not self.evidence:
            raise ValueError(f"an explained difference needs its evidence: {self.cause!r}")


@dataclass(frozen=True)
class Result:
    """One published result of a paper."""

    paper: str
    """The paper's key (``abc``)."""
    key: str
    """Unique name, ``abc/fig7a``."""
    where: str
    """Figure/table and section in the paper (``Fig. 7a, §7.3``)."""
    claim: str
    """What the paper states, in words; its numbers are in the :class:`Published` rows the result
    selects (:meth:`Paper.published_for`), written once there."""
    repro: str = ""
    """The reproduction id that judges it (``accelbrake reproduce ID``); empty when none does."""
    rows: tuple[str, ...] = ()
    """Substrings selecting the comparison rows of ``repro`` that belong to this result (a row whose
    ``metric`` or ``scheme`` contains one of them); empty means all rows."""
    why: str = ""
    """Why no reproduction covers it (when ``repro`` is empty)."""
    difference: Difference | None = None
    """What is known when our result differs from the paper's (shown only when it does)."""


def selects(rows: Sequence[str], scheme: str, metric: str) -> bool:
    """Whether a row (``scheme``, ``metric``) belongs to a result with selectors ``rows``."""
    return not rows or any(s in metric or s in scheme for s in rows)


@dataclass(frozen=True)
class Paper:
    """One paper (or study): everything the project says about it, as data.

    ``module`` names the module whose ``REPRODUCTIONS`` (id → reproduction) runs its experiments;
    it is imported by :meth:`reproductions` only (pandas and the runner come with it)."""

    key: str
    short: str
    citation: str
    published: Mapping[str, Sequence[Published]]
    """Reproduction id → the published values it compares with."""
    results: tuple[Result, ...]
    titles: Mapping[str, str]
    """Reproduction id → one-line title, in the order ``reproduce all`` runs them."""
    module: str
    unavailable: Mapping[str, str] = field(default_factory=dict)
    """Ids of results that cannot be reproduced yet → why."""

    def reproductions(self) -> dict[str, Any]:
        """The paper's reproductions by id (imports :attr:`module`)."""
        return dict(importlib.import_module(self.module).REPRODUCTIONS)

    def published_for(self, result: Result) -> list[Published]:
        """The published values ``result`` is judged on (those of its reproduction it selects)."""
        return [p for p in self.published.get(result.repro, ()) if selects(result.rows, p.scheme, p.metric)]

    def numbers(self, result: Result) -> str:
        """The published numbers of ``result`` as one line, generated from :attr:`published`."""
        pubs = [p for p in self.published_for(result) if p.claim is None]
        return "; ".join(p.statement() for p in pubs)
