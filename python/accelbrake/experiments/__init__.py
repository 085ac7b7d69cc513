"""Experiments that reproduce a paper's figure: scenarios, a parallel sweep, tables, plots and the
comparison with the paper's numbers.

* :mod:`accelbrake.experiments.abe`: the ABE paper's single-flow β_ecn sweep (NewReno-ABE and
  Cubic-ABE over CoDel and PIE with ECN, RTT 100/200/400 ms); ``accelbrake abe-sweep``.
"""

from __future__ import annotations

__all__ = ["abe"]
