"""Experiments: sweeps over schemes × traces × delays × buffers × flows × seeds, their tables,
plots and reports, and named reproductions of the papers' figures.

* :mod:`~accelbrake.experiments.spec`: experiment files (TOML) and their checking.
* :mod:`~accelbrake.experiments.runner`: resumable sweeps and the tidy results tables.
* :mod:`~accelbrake.experiments.executors`: a local process pool or Ray.
* :mod:`~accelbrake.experiments.figures` and :mod:`~accelbrake.experiments.report`: plots and the
  self-contained HTML report (``accelbrake report``).
* :mod:`~accelbrake.experiments.published` and :mod:`~accelbrake.experiments.reproduce`: the papers'
  numbers and ``accelbrake reproduce``; :mod:`~accelbrake.experiments.catalog`: the reproduction ids
  and titles alone (no pandas), for the command line's help.
* :mod:`~accelbrake.experiments.abe`: the ABE paper's single-flow β_ecn sweep (``accelbrake abe-sweep``).

See docs/experiments.md.
"""

from __future__ import annotations

__all__ = ["abe", "catalog", "executors", "figures", "published", "report", "reproduce", "runner", "spec"]
