"""The PropRate paper: its published results (:mod:`accelbrake.papers.proprate.published`) and reproductions
(:mod:`accelbrake.papers.proprate.reproductions`, imported only to run them)."""

from __future__ import annotations

from accelbrake.experiments.published import Paper
from accelbrake.papers.proprate.published import CITATION, PUBLISHED, RESULTS, TITLES, UNAVAILABLE

__all__ = ["PAPER"]

PAPER = Paper(
    key="proprate",
    short="PropRate",
    citation=CITATION,
    published=PUBLISHED,
    results=RESULTS,
    titles=TITLES,
    unavailable=UNAVAILABLE,
    module="accelbrake.papers.proprate.reproductions",
)
