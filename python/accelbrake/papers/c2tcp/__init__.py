"""The C2TCP paper: its published results (:mod:`accelbrake.papers.c2tcp.published`) and reproductions
(:mod:`accelbrake.papers.c2tcp.reproductions`, imported only to run them)."""

from __future__ import annotations

from accelbrake.experiments.published import Paper
from accelbrake.papers.c2tcp.published import CITATION, PUBLISHED, RESULTS, TITLES, UNAVAILABLE

__all__ = ["PAPER"]

PAPER = Paper(
    key="c2tcp",
    short="C2TCP",
    citation=CITATION,
    published=PUBLISHED,
    results=RESULTS,
    titles=TITLES,
    unavailable=UNAVAILABLE,
    module="accelbrake.papers.c2tcp.reproductions",
)
