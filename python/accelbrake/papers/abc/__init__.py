"""The ABC paper: its published results (:mod:`accelbrake.papers.abc.published`) and reproductions
(:mod:`accelbrake.papers.abc.reproductions`, imported only to run them)."""

from __future__ import annotations

from accelbrake.experiments.published import Paper
from accelbrake.papers.abc.published import CITATION, PUBLISHED, RESULTS, TITLES, UNAVAILABLE

__all__ = ["PAPER"]

PAPER = Paper(
    key="abc",
    short="ABC",
    citation=CITATION,
    published=PUBLISHED,
    results=RESULTS,
    titles=TITLES,
    unavailable=UNAVAILABLE,
    module="accelbrake.papers.abc.reproductions",
)
