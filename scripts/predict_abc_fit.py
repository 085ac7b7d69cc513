"""Fit the learned forecaster of predictive ABC (``abc-predict.model = learned``).

The router sees its link's delivery opportunities as they happen: it is asked for a packet at
every opportunity (also with an empty queue), and each time it reads μ, the opportunity bytes of
the last T = 20 ms. The learned forecaster keeps exponentially weighted means of those μ samples
(one sample per millisecond with an opportunity, weight ``1 − exp(−Δt/τ)`` for a sample Δt after
the previous one) over several time constants τ, and predicts

    μ(t + H) ≈ m_L · (w₀ + Σ_k w_k · f_k),

with m_L the slowest mean (τ = 1 s), f_k the features below divided by m_L (so one model serves
links of any mean rate) and μ(t + H) what PK-ABC reads: the opportunity bytes of the 20 ms window
ending H = 100 ms ahead. The weights are a ridge fit (λ below) on the traces in ``FIT`` only — the
robustness traces, none of them the ABC paper's (``traces/README.md``) — so the paper's traces stay
held out. This script replays the traces exactly as the router sees them and prints the weights as
the Rust constants of ``crates/accelbrake-sim/src/queue/abc.rs`` (``LEARNED_WEIGHTS``), and the
forecast error of the fit, of μ now (persistence) and of m_L on every trace (the paper's only as a
check, never for fitting).

Usage: ``.venv/bin/python scripts/predict_abc_fit.py [--traces-dir traces]``. Deterministic.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

#: Traces fitted on: the robustness set, outside the ABC paper's.
FIT = (
    "TMobile-LTE-short.down",
    "TMobile-LTE-short.up",
    "ATT-LTE-driving.down",
    "ATT-LTE-driving.up",
    "TMobile-UMTS-driving.down",
    "Verizon-EVDO-driving.down",
)
#: The ABC paper's traces: reported, never fitted on.
PAPER = (
    "Verizon-LTE-short.down",
    "Verizon-LTE-short.up",
    "TMobile-LTE-driving.down",
    "ATT-LTE-driving-2016.down",
    "ATT-LTE-driving-2016.up",
)
WINDOW_MS = 20  # T, the ABC router's μ window (artifact: 20 ms)
HORIZON_MS = 100  # one RTT (ABC paper §7.6, PK-ABC)
#: Time constants of the means, ms; the last one (m_L) normalises.
TAUS_MS = (10.0, 40.0, 160.0, 1000.0)
RIDGE = 1e-3
#: Seconds of each trace used (the longest are 1000 s; this keeps the fit to a few seconds).
MAX_SECS = 600


def counts(path: Path, max_secs: float) -> np.ndarray:
    """Opportunities per millisecond, ``c[ms]``."""
    ms = np.loadtxt(path, dtype=np.int64, ndmin=1)
    ms = ms[ms < max_secs * 1000]
    return np.bincount(ms, minlength=int(ms.max()) + 1 + WINDOW_MS + HORIZON_MS).astype(float)


def features(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sample times, feature matrix X (un-normalised: μ, means, gap), m_L) as the router sees them.

    μ(t) = opportunities in (t − T, t]; samples at the milliseconds with an opportunity."""
    cs = np.concatenate(([0.0], np.cumsum(c)))
    t = np.flatnonzero(c)
    mu = cs[t + 1] - cs[np.maximum(t + 1 - WINDOW_MS, 0)]
    means = np.empty((len(t), len(TAUS_MS)))
    m = np.full(len(TAUS_MS), mu[0])
    taus = np.array(TAUS_MS)
    prev = t[0]
    gap = np.empty(len(t))
    for i, (ti, mi) in enumerate(zip(t, mu, strict=True)):
        dt = float(ti - prev) if i else 0.0
        if i:
            a = 1.0 - np.exp(-dt / taus)
            m += a * (mi - m)
        means[i] = m
        gap[i] = dt
        prev = ti
    return t, np.column_stack([mu, means[:, :-1], gap]), means[:, -1]


def target(c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """PK-ABC's μ at t: opportunities in [t + H − T, t + H)."""
    cs = np.concatenate(([0.0], np.cumsum(c)))
    return cs[t + HORIZON_MS] - cs[t + HORIZON_MS - WINDOW_MS]


def design(c: np.ndarray, warmup_ms: int = 2000):
    t, x, ml = features(c)
    y = target(c, t)
    keep = (t >= warmup_ms) & (t + HORIZON_MS < len(c) - WINDOW_MS) & (ml > 0)
    t, x, ml, y = t[keep], x[keep], ml[keep], y[keep]
    xn = np.column_stack([np.ones(len(t)), x[:, :-1] / ml[:, None], np.minimum(x[:, -1], 100.0) / 100.0])
    return xn, y / ml, ml, x[:, 0], y


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces-dir", default=Path(__file__).resolve().parent.parent / "traces", type=Path)
    args = ap.parse_args()
    data = {n: design(counts(args.traces_dir / n, MAX_SECS)) for n in FIT + PAPER}
    # Each fit trace weighs the same (they differ 10x in length).
    xs, ys, ws = [], [], []
    for n in FIT:
        xn, yn, *_ = data[n]
        xs.append(xn)
        ys.append(yn)
        ws.append(np.full(len(yn), 1.0 / len(yn)))
    x, y, w = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    a = x.T @ (x * w[:, None]) + RIDGE * np.eye(x.shape[1])
    coef = np.linalg.solve(a, x.T @ (w * y))
    names = ["1", "mu"] + [f"m{int(tau)}" for tau in TAUS_MS[:-1]] + ["gap/100ms"]
    print(f"weights (normalised by m_L, tau = {TAUS_MS[-1]:g} ms):")
    print("  " + "  ".join(f"{n}={c:+.6f}" for n, c in zip(names, coef, strict=True)))
    print(f"pub const LEARNED_WEIGHTS: [f64; {len(coef)}] = [{', '.join(f'{c:.6}' for c in coef)}];")
    print("relative RMS error of μ(t+100 ms) (÷ mean μ), at opportunity times; 'sign': of the samples")
    print("where μ changes by more than 10 % of its mean over the next 100 ms, the share where the learned")
    print("forecast moves away from μ now in the direction of that change (m_L: the same for the 1 s mean)")
    print(f"  {'trace':28s} {'μ now':>8s} {'m_L':>8s} {'learned':>8s} {'sign m_L':>9s} {'sign':>6s}  set")
    for n in FIT + PAPER:
        xn, yn, ml, mu, yy = data[n]
        pred = np.clip(ml * (xn @ coef), 0.0, None)
        norm = yy.mean()
        e = [np.sqrt(np.mean((p - yy) ** 2)) / norm for p in (mu, ml, pred)]
        big = np.abs(yy - mu) > 0.1 * norm
        right = [float(np.mean(np.sign(p[big] - mu[big]) == np.sign(yy[big] - mu[big]))) for p in (ml, pred)]
        print(
            f"  {n:28s} {e[0]:8.3f} {e[1]:8.3f} {e[2]:8.3f} {right[0]:9.2f} {right[1]:6.2f}"
            f"  {'fit' if n in FIT else 'held out'}"
        )


if __name__ == "__main__":
    main()
