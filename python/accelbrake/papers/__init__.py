"""The papers this project reproduces, one folder each, as data and as a plain Python API.

Each folder (``abc``, ``abe``, ``c2tcp``, ``proprate``) holds:

* ``published.py``: the citation and every published result written once: value or claim, the
  paper's words, tolerance and why, figure/table and section, and for each known difference its
  status (explained by experiment, cause in the paper's setup, hypothesis, open) and evidence;
* ``reproductions.py`` (and modules it draws on): the experiment documents and the comparisons that
  turn runs into rows (imported only when they run: pandas comes with them).

The API, for tools that write pages from it::

    from accelbrake.papers import PAPERS

    for paper in PAPERS:                       # Paper objects (accelbrake.experiments.published)
        paper.key, paper.short, paper.citation
        for result in paper.results:           # Result: where, claim, repro id, difference
            paper.numbers(result)              # its published numbers, generated from the values
            paper.published_for(result)        # the Published rows it is judged on
            result.difference                  # Difference(status, cause, evidence) or None

and the verdicts of a finished ``accelbrake reproduce all --out OUT`` with
:func:`accelbrake.papers.index.read_verdicts` (one row per result: verdict, detail, spread, status,
cause, evidence). Adding a paper or a study is one folder and one line in :data:`PAPERS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelbrake._text import did_you_mean
from accelbrake.experiments.published import Paper, Result
from accelbrake.papers.abc import PAPER as ABC
from accelbrake.papers.abe import PAPER as ABE
from accelbrake.papers.c2tcp import PAPER as C2TCP
from accelbrake.papers.proprate import PAPER as PROPRATE

if TYPE_CHECKING:
    from accelbrake.experiments.reproduce import Reproduction

__all__ = [
    "BY_KEY",
    "CITATIONS",
    "PAPERS",
    "RESULTS",
    "SHORT",
    "TITLES",
    "UNAVAILABLE",
    "paper_of",
    "reproduction",
    "reproductions",
    "resolve_ids",
]

#: Every paper, in the order of the index page.
PAPERS: tuple[Paper, ...] = (ABC, ABE, C2TCP, PROPRATE)
#: Paper key → paper.
BY_KEY: dict[str, Paper] = {p.key: p for p in PAPERS}
#: Paper key → its citation.
CITATIONS: dict[str, str] = {p.key: p.citation for p in PAPERS}
#: Paper key → its short name.
SHORT: dict[str, str] = {p.key: p.short for p in PAPERS}
#: Reproduction id → one-line title, every paper's, in the order ``reproduce all`` lists them.
TITLES: dict[str, str] = {k: v for p in PAPERS for k, v in p.titles.items()}
#: Ids of results that cannot be reproduced yet → why.
UNAVAILABLE: dict[str, str] = {k: v for p in PAPERS for k, v in p.unavailable.items()}
#: Every paper's results, paper by paper.
RESULTS: tuple[Result, ...] = tuple(r for p in PAPERS for r in p.results)


def paper_of(rid: str) -> Paper:
    """The paper a reproduction id belongs to."""
    for p in PAPERS:
        if rid in p.titles or rid in p.unavailable:
            return p
    raise ValueError(f"reproduction id '{rid}': no paper has it{did_you_mean(rid, list(TITLES))}")


_LOADED: dict[str, dict[str, Any]] = {}


def reproduction(rid: str) -> Reproduction:
    """The reproduction ``rid`` (imports its paper's reproductions on first use)."""
    paper = paper_of(rid)
    if paper.key not in _LOADED:
        _LOADED[paper.key] = paper.reproductions()
    return _LOADED[paper.key][rid]


def reproductions() -> dict[str, Reproduction]:
    """Every paper's reproductions by id, in :data:`TITLES` order (imports them all)."""
    return {rid: reproduction(rid) for rid in TITLES}


def resolve_ids(ids: list[str] | tuple[str, ...]) -> list[Reproduction]:
    """Look the ids up; an unknown or unavailable id raises an error naming it (with the reason)."""
    from accelbrake.experiments.reproduce import resolve_ids as resolve

    return resolve(ids, reproductions(), UNAVAILABLE)
