"""The lab: experiments over schemes × traces × delays × buffers × flows × seeds, their tables, plots,
reports and verdicts. It knows no paper; the papers' reproductions are in :mod:`accelbrake.papers`.

* :mod:`~accelbrake.experiments.spec`: experiment files (TOML) and their checking.
* :mod:`~accelbrake.experiments.runner`: resumable sweeps and the tidy results tables.
* :mod:`~accelbrake.experiments.executors`: a local process pool or Ray.
* :mod:`~accelbrake.experiments.figures` and :mod:`~accelbrake.experiments.report`: plots and the
  self-contained HTML report (``accelbrake report``); :mod:`~accelbrake.experiments.emulated`: the
  report of runs through the real-time emulator.
* :mod:`~accelbrake.experiments.published`: what a paper, a published result and a known difference
  are, as data; :mod:`~accelbrake.experiments.verdicts`: the verdict of one compared number;
  :mod:`~accelbrake.experiments.rows`: comparison rows with the spread over seeds;
  :mod:`~accelbrake.experiments.reproduce`: running one reproduction and printing its comparison.
* :mod:`~accelbrake.experiments.tracesets`: named sets of traces.

See docs/experiments.md.
"""

from __future__ import annotations

__all__ = [
    "emulated",
    "executors",
    "figures",
    "published",
    "report",
    "reproduce",
    "rows",
    "runner",
    "spec",
    "tracesets",
    "verdicts",
]
