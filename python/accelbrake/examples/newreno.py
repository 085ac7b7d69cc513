"""NewReno in Python, written against :class:`accelbrake.Controller`.

A line-by-line port of the core's ``newreno`` (``crates/accelbrake-sim/src/cc/newreno.rs``:
Linux ``tcp_reno_cong_avoid`` with an integer window and the ``snd_cwnd_cnt`` credit counter), so
that runs with it are bit-for-bit identical to runs with the built-in scheme (tested in
``tests/test_controllers.py``). Use it as ``--scheme accelbrake.examples.newreno:PyNewReno`` or
after ``register()`` as ``py-newreno``.
"""

from __future__ import annotations

import math

from accelbrake.controllers import Ack, Controller, register_controller

INFINITE_SSTHRESH = 2**32 - 1
MIN_SSTHRESH = 2
LOSS_WINDOW = 1


class PyNewReno(Controller):
    params = {"initial_window": 10, "beta": 0.5, "beta_ecn": 0.5, "abe_slow_start": True}

    def __init__(self, params=None, flow=0, seed=0):
        super().__init__(params, flow, seed)
        self.w = max(int(self.params["initial_window"]), 1)  # integer window (Linux snd_cwnd)
        self.cnt = 0
        self.ss = INFINITE_SSTHRESH
        self.in_loss = False
        self.rto_backoff = False
        self.prior = (0, 0)
        self._publish()

    def _publish(self) -> None:
        self.cwnd = float(self.w)
        self.ssthresh = None if self.ss == INFINITE_SSTHRESH else float(self.ss)

    @staticmethod
    def _reduced(beta: float, flight: int) -> int:
        return max(int(math.floor(beta * flight)), MIN_SSTHRESH)

    def on_ack(self, now: int, ack: Ack) -> None:
        acked = ack.acked
        if acked == 0:
            return
        self.rto_backoff = False
        if not ack.cwnd_limited or (ack.in_recovery and not self.in_loss):
            return
        if self.w < self.ss:  # tcp_slow_start
            grown = min(self.w + acked, self.ss)
            acked -= grown - self.w
            self.w = grown
            if acked == 0:
                self._publish()
                return
        w = max(self.w, 1)  # tcp_cong_avoid_ai with w = cwnd
        if self.cnt >= w:
            self.cnt = 0
            self.w += 1
        self.cnt += acked
        if self.cnt >= w:
            delta = self.cnt // w
            self.cnt -= delta * w
            self.w += delta
        self._publish()

    def on_congestion_event(self, now: int, kind: str, in_flight: int) -> None:
        in_slow_start = self.w < self.ss
        if kind == "loss" or (in_slow_start and not self.params["abe_slow_start"]):
            beta = self.params["beta"]
        else:
            beta = self.params["beta_ecn"]
        self.ss = self._reduced(beta, in_flight)
        self.w = self.ss
        self.cnt = 0
        self.in_loss = False
        self._publish()

    def on_recovery_exit(self, now: int) -> None:
        self.in_loss = False

    def on_rto(self, now: int, in_flight: int) -> None:
        if not self.rto_backoff:
            self.prior = (self.w, self.ss)
            self.ss = self._reduced(self.params["beta"], in_flight)
        self.w = LOSS_WINDOW
        self.cnt = 0
        self.in_loss = True
        self.rto_backoff = True
        self._publish()

    def on_spurious_rto(self, now: int) -> None:
        self.w = max(self.w, self.prior[0])
        self.ss = max(self.ss, self.prior[1])
        self.in_loss = False
        self.rto_backoff = False
        self._publish()


def register(name: str = "py-newreno") -> type[PyNewReno]:
    """Register :class:`PyNewReno` as ``name``."""
    return register_controller(name, PyNewReno)
