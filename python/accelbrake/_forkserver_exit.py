"""Imported only by the plot workers' fork server (its preload list, see
:func:`accelbrake.experiments.report.plot_pool_context`): when the fork server stops (its owner,
the accelbrake process, has exited), it ends at once instead of tearing down the matplotlib, pandas
and accelbrake modules it preloaded (0.3-0.7 s during which it still held the owner's stdout and
stderr, so a pipe such as ``accelbrake reproduce … | tee log`` stayed open that long after the
command had finished). The fork server writes nothing and its workers are gone by then; the
workers it forks never run atexit handlers (they leave through ``os._exit``), so this affects the
fork server alone. Never import this module anywhere else.
"""

from __future__ import annotations

import atexit
import os

atexit.register(os._exit, 0)
