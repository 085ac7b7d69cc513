"""The ABE paper: its published results (:mod:`accelbrake.papers.abe.published`) and reproductions
(:mod:`accelbrake.papers.abe.reproductions`, imported only to run them)."""

from __future__ import annotations

from accelbrake.experiments.published import Paper
from accelbrake.papers.abe.published import CITATION, PUBLISHED, RESULTS, TITLES, UNAVAILABLE

__all__ = ["PAPER"]

PAPER = Paper(
    key="abe",
    short="ABE",
    citation=CITATION,
    published=PUBLISHED,
    results=RESULTS,
    titles=TITLES,
    unavailable=UNAVAILABLE,
    module="accelbrake.papers.abe.reproductions",
)
