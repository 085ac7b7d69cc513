"""Datasets and regions of docs/explicit-schemes.md (``make results``; see :mod:`accelbrake.papers.docs`).

Kept apart from :mod:`accelbrake.papers.docs`, which builds its :class:`~accelbrake.papers.docs.Dataset`
and :class:`~accelbrake.papers.docs.Region` records from :data:`DATASET_ARGS` and :data:`REGION_ARGS`
(this module imports nothing from it, so ``python -m accelbrake.papers.docs`` loads it once).

Every figure is a mean over seeds 0–2 of 140 s runs on the ABC paper's cellular setup (the
``abc-fig18`` / ``abc-pk`` experiments: 50 ms each way, 250-packet buffer, 12 Mbit/s ACK link), then,
where the docs quote "the five traces", the mean over the traces of those seed means (the method of
``accelbrake reproduce abc-fig18``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

PAGE = "docs/explicit-schemes.md"

# ---------------------------------------------------------------------------------------------
# Datasets

#: XCP_w ablation (docs/explicit-schemes.md, "What sets XCP_w's delay"): key -> (row label, --set).
_XCPW_EARLIER = [
    "xcp-w.capacity=window",
    "xcp-w.fc_sums=arrivals",
    "xcp-w.residues=false",
    "xcp-w.queue_window_ms=0",
    "xcp-w.queue_sample=arrival",
]
XCPW_VARIANTS: dict[str, tuple[str, list[str]]] = {
    "xcpw-earlier": (
        "earlier: `capacity=window fc_sums=arrivals residues=false queue_window_ms=0 queue_sample=arrival`",
        _XCPW_EARLIER,
    ),
    "xcpw-cap": ("+ `capacity=rtt`", ["xcp-w.capacity=rtt", *_XCPW_EARLIER[1:]]),
    "xcpw-cap-fc": (
        "+ `capacity=rtt fc_sums=departures`",
        ["xcp-w.capacity=rtt", "xcp-w.fc_sums=departures", *_XCPW_EARLIER[2:]],
    ),
    "xcpw-cap-fc-res": (
        "+ `capacity=rtt fc_sums=departures residues=true`",
        ["xcp-w.capacity=rtt", "xcp-w.fc_sums=departures", "xcp-w.residues=true", *_XCPW_EARLIER[3:]],
    ),
    "xcp-w": ("+ all four = **the default**", []),
    "xcpw-eq": ("`equal_share=true` (the artifact's rule)", ["xcp-w.equal_share=true"]),
    "xcpw-eq-q": (
        "`equal_share=true queue_window_ms=0 queue_sample=arrival`",
        ["xcp-w.equal_share=true", "xcp-w.queue_window_ms=0", "xcp-w.queue_sample=arrival"],
    ),
    "xcpw-eq-win": (
        "`equal_share=true capacity=window` (μ over 20 ms)",
        ["xcp-w.equal_share=true", "xcp-w.capacity=window"],
    ),
    "xcpw-eq-win1000": (
        "`equal_share=true capacity=window window_ms=1000`",
        ["xcp-w.equal_share=true", "xcp-w.capacity=window", "xcp-w.window_ms=1000"],
    ),
}
#: VCP ablation ("What sets VCP's utilisation"): key -> (row label, --set).
VCP_VARIANTS: dict[str, tuple[str, list[str]]] = {
    "vcp-noundo": ("`undo_rto=false`", ["vcp.undo_rto=false"]),
    "vcp": ("**`undo_rto=true`, the default**", []),
    "vcp-unscaled": ("+ `rtt_scaling=none` (ABC paper §8's VCP)", ["vcp.rtt_scaling=none"]),
    "vcp-noundo-unscaled": (
        "`undo_rto=false rtt_scaling=none`",
        ["vcp.undo_rto=false", "vcp.rtt_scaling=none"],
    ),
    "vcp-freeze": ("+ `freeze=overload` (ns-2)", ["vcp.freeze=overload"]),
    "vcp-ai": ("+ `ai_scale=ns2`", ["vcp.ai_scale=ns2"]),
    "vcp-art": ("+ `artifact_overload=true`", ["vcp.artifact_overload=true"]),
    "vcp-gamma": ("+ `gamma=0.95` (ns-2's effective target)", ["vcp.gamma=0.95"]),
    "vcp-kq": ("+ `kappa_q=0` (ns-2's effective queue term, below)", ["vcp.kappa_q=0"]),
}
_BASE = ("abc", "xcp", "xcp-w", "rcp", "vcp")


def _variants(base: str, variants: dict[str, tuple[str, list[str]]]) -> dict[str, Any]:
    return {k: {"scheme": base, "label": k, "set": st} for k, (_, st) in variants.items() if k != base}


def _explicit() -> dict[str, Any]:
    """``accelbrake reproduce abc-fig18`` (ABC, XCP, XCP_w, RCP, VCP; 5 traces, 3 seeds) plus the
    XCP_w and VCP ablations."""
    from accelbrake.papers import reproduction

    doc = reproduction("abc-fig18").document(False, None)
    doc["name"] = "explicit-fig18"
    extra = {**_variants("xcp-w", XCPW_VARIANTS), **_variants("vcp", VCP_VARIANTS)}
    doc["matrix"]["schemes"] = [*_BASE, *extra]
    doc["schemes"] = {**doc.get("schemes", {}), **extra}
    return doc


def _fig19() -> dict[str, Any]:
    """``accelbrake reproduce abc-fig19`` (12 ↔ 24 Mbit/s every 500 ms) plus XCP_w's earlier form."""
    from accelbrake.papers import reproduction

    doc = reproduction("abc-fig19").document(False, None)
    doc["name"] = "explicit-fig19"
    doc["matrix"]["schemes"] = [*doc["matrix"]["schemes"], "xcpw-earlier"]
    doc["schemes"] = {
        **doc.get("schemes", {}),
        **_variants("xcp-w", {"xcpw-earlier": XCPW_VARIANTS["xcpw-earlier"]}),
    }
    return doc


#: PK-ABC's lookahead (ms) for the "where the gap comes from" table; 100 is PK-ABC itself.
LOOKAHEADS = (0, 20, 50, 80)
ROOT = Path(__file__).resolve().parents[3]


def _script(name: str) -> Any:
    """A module of the repository's scripts/ folder (the held-out and partial-oracle grids are
    defined there, once)."""
    import importlib.util
    import sys

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return mod


#: PK-ABC's partial oracle (pk-abc.knowledge) and the η grid each k runs on (scripts/pk_knowledge.py).
KS: tuple[float, ...] = _script("pk_knowledge").KS
ETAS: tuple[float, ...] = _script("pk_knowledge").ETAS
#: PK-ABC settings on Fig. 7b's trace (Verizon-LTE-short.up) against §7.6's 97 → 28 ms.
PK_SETTINGS: dict[str, tuple[str, list[str]]] = {
    "pk-window50": ("`window` 50 ms", ["pk-abc.window=50"]),
    "pk-window100": ("`window` 100 ms (μ over the whole RTT ahead)", ["pk-abc.window=100"]),
    "pk-sojourn": ("`delay_source=sojourn`", ["pk-abc.delay_source=sojourn"]),
    "pk-la120": ("`lookahead` 120 ms", ["pk-abc.lookahead=120"]),
    "pk-la150": ("`lookahead` 150 ms", ["pk-abc.lookahead=150"]),
    "pk-dt20": ("`dt` 20 ms", ["pk-abc.dt=20"]),
    "pk-eta95": ("`eta` 0.95", ["pk-abc.eta=0.95"]),
    "pk-la150-dt20": ("`lookahead=150 dt=20`", ["pk-abc.lookahead=150", "pk-abc.dt=20"]),
    "abc-dt20": ("ABC with `dt=20`", ["abc.dt=20"]),
}


def _k_key(k: float, eta: float) -> str:
    return f"pkk{round(100 * k):03d}-eta{round(100 * eta):03d}"


def _predictive() -> dict[str, Any]:
    """``accelbrake reproduce abc-pk``'s schemes (ABC, PK-ABC, abc-predict, ABC η = 0.94) on Fig.
    18's five traces, plus PK-ABC's lookahead, settings and partial oracle on an η grid."""
    from accelbrake.papers import reproduction

    doc = reproduction("abc-pk").document(False, None)
    doc["name"] = "predictive-abc"
    doc["matrix"]["traces"] = reproduction("abc-fig18").document(False, None)["matrix"]["traces"]
    extra: dict[str, Any] = {
        "predict-undamped-h100": {
            "scheme": "abc-predict",
            "label": "abc-predict gain 1, history 100 ms",
            "set": ["abc-predict.gain=1", "abc-predict.history=100"],
        },
        "predict-learned-g1": {
            "scheme": "abc-predict",
            "label": "abc-predict learned, gain 1, falls_only off",
            "set": ["abc-predict.model=learned", "abc-predict.gain=1", "abc-predict.falls_only=false"],
        },
    }
    for la in LOOKAHEADS:
        extra[f"pk-la{la}"] = {
            "scheme": "pk-abc",
            "label": f"PK-ABC lookahead {la}",
            "set": [f"pk-abc.lookahead={la}"],
        }
    for k, (lab, st) in PK_SETTINGS.items():
        extra[k] = {"scheme": "abc" if k.startswith("abc-") else "pk-abc", "label": lab, "set": st}
    for k in KS:
        for e in ETAS:
            extra[_k_key(k, e)] = {
                "scheme": "pk-abc",
                "label": f"PK-ABC k={k:g} eta={e:g}",
                "set": [f"pk-abc.knowledge={k:g}", f"pk-abc.eta={e:g}"],
            }
    doc["matrix"]["schemes"] = [*doc["matrix"]["schemes"], *extra]
    doc["schemes"] = {**doc.get("schemes", {}), **extra}
    return doc


#: The forecaster each family picks on the tuning traces (scripts/predict_abc_heldout.py), scored on
#: the paper's traces. The renderer checks that the tuning still picks these; when it does not, the
#: region cannot be rendered and the new pick is named.
HELDOUT_PICKS: dict[str, str] = {
    "trend": "trend h=400 g=0.1",
    "learned": "learned g=0.25 falls",
    "sprout": "sprout q=5% g=0.25",
    "apply": "learned apply=delay g=0.5 falls",
}


def _heldout_configs() -> list[tuple[str, str, list[str]]]:
    h = _script("predict_abc_heldout")
    cands = {n: st for fam in h.FAMILIES.values() for n, st in fam.items()}
    return h.configs_for(cands)


def _heldout() -> dict[str, Any]:
    """``scripts/predict_abc_heldout.py``: every candidate forecaster with ABC's η grid and PK-ABC
    on the tuning traces (120 s, seed 0), the families' picks on the paper's (140 s, seeds 0–2)."""
    from accelbrake import build_scenario

    h = _script("predict_abc_heldout")
    configs = _heldout_configs()
    picks = set(HELDOUT_PICKS.values())
    runs: dict[str, Any] = {}

    def add(stage: str, trace: str, name: str, scheme: str, sets: list[str], secs: float, seed: int):
        sc = build_scenario(scheme, trace=str(ROOT / "traces" / trace), duration_s=secs, seed=seed, sets=sets)
        runs[f"{stage}/{trace}/{name}/seed{seed}"] = (sc, "summary")

    for t in h.TUNE:
        for name, scheme, sets in configs:
            add("tune", t, name, scheme, sets, 120.0, 0)
    for t in h.PAPER:
        for name, scheme, sets in configs:
            if scheme != "abc-predict" or name in picks:
                for seed in (0, 1, 2):
                    add("score", t, name, scheme, sets, 140.0, seed)
    return runs


def _heldout_sample() -> tuple[str, ...]:
    h = _script("predict_abc_heldout")
    names = [n for n, _, _ in _heldout_configs()]
    keep = [n for n, sch, _ in _heldout_configs() if sch != "abc-predict" or n in HELDOUT_PICKS.values()]
    return (
        *(f"tune/{h.TUNE[0]}/{n}/seed0" for n in names),
        *(f"score/{h.PAPER[0]}/{n}/seed0" for n in keep),
    )


#: Keyword arguments of :class:`accelbrake.papers.docs.Dataset`, one dict per dataset.
DATASET_ARGS: tuple[dict[str, Any], ...] = (
    {
        "name": "explicit-fig18",
        "kind": "sweep",
        "spec": _explicit,
        "keys": ("scheme", "trace", "seed"),
        "check": "sample",
        "why": "315 runs of 140 s; the test repeats one trace and one seed for every scheme and variant",
    },
    {"name": "explicit-fig19", "kind": "sweep", "spec": _fig19, "keys": ("scheme", "trace", "seed")},
    {
        "name": "predictive-abc",
        "kind": "sweep",
        "spec": _predictive,
        "keys": ("scheme", "trace", "seed"),
        "check": "sample",
        "why": "960 runs of 140 s; the test repeats one trace and one seed for every scheme and variant",
    },
    {
        "name": "predictive-heldout",
        "kind": "probes",
        "spec": _heldout,
        "keys": ("run",),
        "check": "sample",
        "why": "496 runs (256 of 120 s, 240 of 140 s); the test repeats every configuration on the first "
        "tuning trace and the scored ones on the first paper trace, seed 0",
        "sample": _heldout_sample(),
    },
)

# ---------------------------------------------------------------------------------------------
# Rendering


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _tr(path: str) -> str:
    return Path(path).name


_U, _P95, _MEAN, _Q95 = (
    "link_utilization",
    "run_per_packet_delay_p95_ms",
    "run_per_packet_delay_mean_ms",
    "queueing_delay_p95_ms",
)
_COLS = [_U, _P95, _MEAN, _Q95]


def _per_trace(d: pd.DataFrame) -> pd.DataFrame:
    """Seed means per (scheme, trace), traces in the dataset's order."""
    return d.groupby(["scheme", "trace"], sort=False)[_COLS].mean()


def _over_traces(d: pd.DataFrame) -> pd.DataFrame:
    """Per scheme: the mean over traces of the seed means (``accelbrake reproduce``'s method)."""
    return _per_trace(d).groupby("scheme", sort=False).mean()


def _traces(d: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(d["trace"]))


def _short(traces: Sequence[str]) -> list[str]:
    """Trace names, the second of a .down/.up pair written as its suffix."""
    out, prev = [], ""
    for t in map(_tr, traces):
        stem, _, ext = t.rpartition(".")
        out.append(f".{ext}" if stem and prev.rpartition(".")[0] == stem else t)
        prev = t
    return out


# ---- explicit-fig18 -----------------------------------------------------------------------


def _render_xcp_traces(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    cells = [
        f"{name} {t.at[('xcp', tr), _P95]:.0f} / {t.at[('abc', tr), _P95]:.0f} ms"
        for name, tr in zip(_short(_traces(d)), _traces(d), strict=True)
    ]
    m = _over_traces(d)
    cap = d.groupby("trace", sort=False)["capacity_mbps"].mean()
    att_up = [tr for tr in _traces(d) if tr.endswith("ATT-LTE-driving-2016.up")][0]
    return (
        "Where XCP's p95 gap sits (per trace, p95 per-packet delay XCP / ABC): "
        + ", ".join(cells)
        + f"; over the five, XCP's p95 is {m.at['xcp', _P95] / m.at['abc', _P95]:.2f}× ABC's. "
        + f"ATT-LTE-driving-2016.up carries {cap[att_up]:.2f} Mbit/s on average."
    )


def _render_fig7(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    trs = [tr for tr in _traces(d) if "Verizon-LTE-short" in tr]

    def both(s: str) -> str:
        return " and ".join(f"{t.at[(s, tr), _U]:.3f} / {t.at[(s, tr), _P95]:.0f} ms" for tr in trs)

    names = {"xcp": "XCP", "xcp-w": "XCP_w", "rcp": "RCP", "vcp": "VCP"}
    parts = [f"{n} {both(s)}" for s, n in names.items()]
    return (
        "`abc-fig7`'s explicit schemes (Verizon down / up, utilisation / p95 per-packet delay): "
        + ", ".join(parts)
        + f" (XCP_w with its earlier options {both('xcpw-earlier')}; VCP without the RTO undo "
        + f"{both('vcp-noundo')}; ABC {both('abc')})."
    )


def _render_xcpw_intro(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    r = m.at["xcpw-earlier", _P95] / m.at["abc", _P95]
    return f"**What sets XCP_w's delay.** With its earlier options XCP_w's p95 is {r:.2f}× ABC's."


def _render_xcpw_ablation(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    a = m.loc["abc"]
    rows = []
    for k, (label, _) in XCPW_VARIANTS.items():
        x = m.loc[k]
        r = f"{x[_P95] / a[_P95]:.2f}"
        rows.append([label, f"**{r}**" if k == "xcp-w" else r, f"{x[_U]:.3f} / {x[_MEAN]:.0f}"])
    table = _table(["XCP_w", "p95 / ABC's", "util. / mean delay"], rows)
    x = m.loc["xcp"]
    t = _per_trace(d)
    cells = [
        f"{name} {t.at[('xcp-w', tr), _P95]:.0f} / {t.at[('abc', tr), _P95]:.0f} / "
        f"{t.at[('xcp', tr), _P95]:.0f} ({t.at[('xcpw-earlier', tr), _P95]:.0f})"
        for name, tr in zip(_short(_traces(d)), _traces(d), strict=True)
    ]
    below = all(t.at[("xcp-w", tr), _P95] < t.at[("xcp", tr), _P95] for tr in _traces(d))
    return (
        f"{table}\n\n(ABC {a[_U]:.3f} / {a[_MEAN]:.0f} and XCP {x[_P95] / a[_P95]:.2f}, "
        f"{x[_U]:.3f} / {x[_MEAN]:.0f} in every row; the paper's XCP_w is 1.4, XCP 2.05.) Per trace "
        "with the default (p95 per-packet delay ms, XCP_w / ABC / XCP; with the earlier options "
        f"XCP_w's in parentheses): {', '.join(cells)}. XCP_w is "
        f"{'below XCP on every trace, as §7.3 says' if below else 'not below XCP on every trace'}."
    )


def _render_vcp_ablation(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    a = m.loc["abc"]
    rows = []
    for k, (label, _) in VCP_VARIANTS.items():
        x = m.loc[k]
        cells = [f"{x[_U]:.3f} / {x[_MEAN]:.0f}", f"{a[_U] / x[_U]:.2f}"]
        rows.append([label, *(f"**{c}**" for c in cells)] if k == "vcp" else [label, *cells])
    return _table(["VCP", "util. / mean delay", "ABC util. / VCP's"], rows)


_ABC_OVER = "ABC utilisation / scheme's"


def _render_vcp_intro(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    a = m.loc["abc"]
    return (
        "**What sets VCP's utilisation.** Without undoing a spurious RTO, ABC's utilisation is "
        f"{a[_U] / m.at['vcp-noundo', _U]:.2f}× VCP's (with the undo, the default, "
        f"{a[_U] / m.at['vcp', _U]:.2f}×; the paper: about "
        f"{_published('abc-fig18', 'VCP', _ABC_OVER)}, with VCP's delay slightly below ABC's). "
        "Each difference from ns-2's VCP (`vcp-queue.cc`, `vcp-src.cc`, `vcp-src.h`, `vcp-cmn.h`, by Xia) "
        "and the artifact's router (`vcp_packet_queue.cc`; the artifact has no VCP sender), tried "
        "with `accelbrake reproduce abc-fig18 --set …` (3 seeds, 140 s, the five traces; VCP's "
        "utilisation / mean per-packet delay ms, then ABC's utilisation over VCP's; ABC "
        f'{a[_U]:.3f} / {a[_MEAN]:.0f} ms in every row; "+" = on top of the default):'
    )


def _render_vcp_undo(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    cells = [
        f"{name} {t.at[('vcp-noundo', tr), _U]:.3f} → {t.at[('vcp', tr), _U]:.3f}"
        for name, tr in zip(_short(_traces(d)), _traces(d), strict=True)
    ]
    return "VCP's utilisation without → with the RTO undo (3 seeds, 140 s): " + ", ".join(cells) + "."


def _render_vcp_ai(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    t = _per_trace(d)
    att_up = [tr for tr in _traces(d) if tr.endswith("ATT-LTE-driving-2016.up")][0]
    return (
        f"ns-2's AI (`ai_scale=ns2`) makes VCP's mean per-packet delay "
        f"{m.at['vcp-ai', _MEAN] / m.at['abc', _MEAN]:.1f}× ABC's over the five traces (ATT uplink "
        f"{t.at[('vcp-ai', att_up), _MEAN]:.0f} ms)."
    )


def _published(fig: str, scheme: str, metric: str) -> str:
    """The ABC paper's value for ``scheme`` and ``metric`` in ``fig`` (accelbrake.papers.abc)."""
    from accelbrake.papers.abc.published import PUBLISHED

    for p in PUBLISHED[fig]:
        if p.scheme == scheme and p.metric == metric:
            return f"{p.value:g}" if p.value is not None else p.text
    raise KeyError(f"{fig}: no published {scheme} {metric!r}")


def _render_repro(d: pd.DataFrame) -> str:
    m = _over_traces(d)
    a = m.loc["abc"]
    f18 = "scheme's p95 delay / ABC's"
    rows = [
        [
            "`abc-table`, `abc-fig18`",
            "XCP utilisation / ABC's",
            f"{m.at['xcp', _U] / a[_U]:.2f}",
            f"{_published('abc-table', 'XCP', 'norm. utilisation')} (table), ≈ 1 (Fig. 18)",
        ],
        [
            "`abc-table`, `abc-fig18`",
            "XCP p95 per-packet delay / ABC's",
            f"{m.at['xcp', _P95] / a[_P95]:.2f}",
            f"{_published('abc-table', 'XCP', 'norm. p95 per-packet delay')} (table), "
            f"{_published('abc-fig18', 'XCP', f18)} (Fig. 18)",
        ],
        [
            "`abc-fig18`",
            "XCP_w p95 / ABC's",
            f"{m.at['xcp-w', _P95] / a[_P95]:.2f}",
            _published("abc-fig18", "XCP_w", f18),
        ],
        [
            "`abc-fig18`",
            "ABC utilisation / RCP's",
            f"{a[_U] / m.at['rcp', _U]:.2f}",
            _published("abc-fig18", "RCP", "ABC utilisation / scheme's"),
        ],
        [
            "`abc-fig18`",
            "ABC utilisation / VCP's",
            f"{a[_U] / m.at['vcp', _U]:.2f}",
            _published("abc-fig18", "VCP", "ABC utilisation / scheme's"),
        ],
    ]
    return _table(["id", "row", "ours", "paper"], rows)


# ---- explicit-fig19 -----------------------------------------------------------------------


def _render_fig19(d: pd.DataFrame) -> str:
    m = _over_traces(d)

    def pct(s: str) -> str:
        return f"{100 * m.at[s, _U]:.1f} %"

    rows = [
        ["`abc-fig19`", "ABC utilisation", pct("abc"), "≈ 100 %"],
        [
            "`abc-fig19`",
            "XCP_w utilisation",
            f"{pct('xcp-w')} ({pct('xcpw-earlier')} with the earlier options)",
            "≈ 100 %",
        ],
        ["`abc-fig19`", "RCP under-utilises (below ABC)", f"{pct('rcp')} vs {pct('abc')}", "yes"],
    ]
    return _table(["id", "row", "ours", "paper"], rows)


# ---- predictive-abc -----------------------------------------------------------------------


def _uq(t: pd.DataFrame, s: str, tr: str) -> str:
    return f"{t.at[(s, tr), _U]:.3f} / {t.at[(s, tr), _Q95]:.0f}"


def _at_util(t: pd.DataFrame, tr: str, k: float, util: float) -> float | None:
    """p95 queueing delay of the k-oracle at ``util``, linear between its η grid's runs
    (``scripts/pk_knowledge.py``); None outside the grid's utilisations."""
    pts = sorted((float(t.at[(_k_key(k, e), tr), _U]), float(t.at[(_k_key(k, e), tr), _Q95])) for e in ETAS)
    us = [p[0] for p in pts]
    if util < us[0] or util > us[-1]:
        return None
    return float(np.interp(util, us, [p[1] for p in pts]))


def _closed_at_util(t: pd.DataFrame, tr: str, s: str) -> float | None:
    """Fraction of the ABC → PK-ABC p95 queueing gap that scheme ``s`` closes at its own
    utilisation, against ABC with η lowered to that utilisation (the k = 0 grid: ABC's μ)."""
    u = float(t.at[(s, tr), _U])
    ref = _at_util(t, tr, 0.0, u)
    gap = t.at[("abc", tr), _Q95] - t.at[("pk-abc", tr), _Q95]
    if ref is None or gap <= 0:
        return None
    return float((ref - t.at[(s, tr), _Q95]) / gap)


def _fmt_closed(v: float | None) -> str:
    return "n/a" if v is None else _signed(v)


def _signed(v: float) -> str:
    """+0.12 / −0.12 (a typographic minus, as the prose around it)."""
    return f"{v:+.2f}".replace("-", "−")


def _render_pk_table(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    rows = []
    for tr in _traces(d):
        rows.append(
            [
                _tr(tr),
                *(_uq(t, s, tr) for s in ("abc", "pk-abc", "abc-predict", "abc-eta-0.94")),
                _fmt_closed(_closed_at_util(t, tr, "abc-predict")),
            ]
        )
    table = _table(["trace", "ABC", "PK-ABC", "abc-predict", "ABC η = 0.94", "abc-predict: gap closed"], rows)
    vz = [tr for tr in _traces(d) if tr.endswith("Verizon-LTE-short.down")][0]
    return (
        f"{table}\n\nUndamped trends with a shorter history cut delay further but utilisation much "
        f"more: gain 1 and a 100 ms history give {_uq(t, 'predict-undamped-h100', vz)} ms on the "
        "Verizon downlink."
    )


def _render_pk_learned_g1(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    vz = [tr for tr in _traces(d) if tr.endswith("Verizon-LTE-short.down")][0]
    return (
        "The full learned model without damping (gain 1, no `falls_only`; `--set "
        "abc-predict.model=learned abc-predict.gain=1 abc-predict.falls_only=false`, seeds 0–2) "
        f"gives {_uq(t, 'predict-learned-g1', vz)} ms on the Verizon downlink against ABC's "
        f"{_uq(t, 'abc', vz)}:"
    )


def _render_pk_lookahead(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    cols = [*(f"pk-la{la}" for la in LOOKAHEADS), "pk-abc"]
    rows = [[_tr(tr), *(_uq(t, s, tr) for s in cols)] for tr in _traces(d)]
    table = _table(["trace", *(f"la {la}" for la in LOOKAHEADS), "la 100"], rows)
    closed = ", ".join(_fmt_closed(_closed_at_util(t, tr, "pk-la0")) for tr in _traces(d))
    return f"{table}\n\nLookahead 0 at equal utilisation closes {closed} of the gap on the five."


def _render_pk_knowledge(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    rows, closed, at_u = [], {k: [] for k in KS[1:]}, []
    for tr in _traces(d):
        u0 = min(t.at[(_k_key(0.0, 0.98), tr), _U], t.at[(_k_key(1.0, 0.98), tr), _U])
        dk = {k: _at_util(t, tr, k, u0) for k in KS}
        gap = None if dk[0.0] is None or dk[1.0] is None else dk[0.0] - dk[1.0]
        at_u.append("n/a" if dk[0.0] is None else f"{dk[0.0]:.0f}")
        cells = []
        for k in KS[1:]:
            own = _uq(t, _k_key(k, 0.98), tr)
            if dk[k] is None or not gap or gap <= 0:
                cells.append(f"n/a ({own})")
                continue
            c = (dk[0.0] - dk[k]) / gap
            closed[k].append(c)
            cells.append(f"{dk[k]:.0f}, {_signed(c)} ({own})")
        rows.append([_tr(tr), f"{u0:.3f}", *cells])
    rows.append(
        [
            "**mean closed**",
            "",
            *(f"**{_signed(float(np.mean(v)))}**" if v else "n/a" for v in closed.values()),
        ]
    )
    header = ["trace", "u*", *(f"k = {k:g}" for k in KS[1:-1]), "k = 1 (PK-ABC)"]
    return f"{_table(header, rows)}\n\n(ABC, k = 0, at u*: {', '.join(at_u)} ms.)"


def _render_pk_settings(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    up = [tr for tr in _traces(d) if tr.endswith("Verizon-LTE-short.up")][0]
    parts = [f"{lab}: {_uq(t, k, up)}" for k, (lab, _) in PK_SETTINGS.items()]
    return (
        "PK-ABC against §7.6's 97 → 28 ms, more settings (Fig. 7b's trace Verizon-LTE-short.up, 140 s, "
        "seeds 0–2 averaged; utilisation / p95 queueing delay ms; `accelbrake run --scheme pk-abc "
        f"--trace traces/Verizon-LTE-short.up --duration 140 --seed S --set …`): default "
        f"{_uq(t, 'pk-abc', up)} (ABC {_uq(t, 'abc', up)}); " + "; ".join(parts) + "."
    )


_PK_Q = "p95 queueing delay (ms)"


def _render_pk_repro(d: pd.DataFrame) -> str:
    t = _per_trace(d)
    up = [tr for tr in _traces(d) if tr.endswith("Verizon-LTE-short.up")][0]
    rows = [
        [
            "`abc-pk`",
            "ABC p95 queueing delay",
            f"{t.at[('abc', up), _Q95]:.0f} ms",
            _published("abc-pk", "ABC", _PK_Q) + " ms",
        ],
        [
            "`abc-pk`",
            "PK-ABC p95 queueing delay",
            f"{t.at[('pk-abc', up), _Q95]:.0f} ms",
            _published("abc-pk", "PK-ABC", _PK_Q) + " ms",
        ],
        ["`abc-pk`", "PK-ABC utilisation", f"{100 * t.at[('pk-abc', up), _U]:.1f} %", "~90 %"],
    ]
    return _table(["id", "row", "ours", "paper"], rows)


#: (region name, file, dataset, renderer) for :class:`accelbrake.papers.docs.Region`.
REGION_ARGS: tuple[tuple[str, str, str, Any], ...] = (
    ("explicit-xcp-traces", PAGE, "explicit-fig18", _render_xcp_traces),
    ("explicit-fig7", PAGE, "explicit-fig18", _render_fig7),
    ("explicit-repro", PAGE, "explicit-fig18", _render_repro),
    ("explicit-repro-fig19", PAGE, "explicit-fig19", _render_fig19),
    ("explicit-repro-pk", PAGE, "predictive-abc", _render_pk_repro),
    ("explicit-xcpw-intro", PAGE, "explicit-fig18", _render_xcpw_intro),
    ("explicit-xcpw-ablation", PAGE, "explicit-fig18", _render_xcpw_ablation),
    ("explicit-vcp-intro", PAGE, "explicit-fig18", _render_vcp_intro),
    ("explicit-vcp-ablation", PAGE, "explicit-fig18", _render_vcp_ablation),
    ("explicit-vcp-undo", PAGE, "explicit-fig18", _render_vcp_undo),
    ("explicit-vcp-ai", PAGE, "explicit-fig18", _render_vcp_ai),
    ("predictive-abc-table", PAGE, "predictive-abc", _render_pk_table),
    ("predictive-abc-learned-g1", PAGE, "predictive-abc", _render_pk_learned_g1),
    ("predictive-abc-lookahead", PAGE, "predictive-abc", _render_pk_lookahead),
    ("predictive-abc-knowledge", PAGE, "predictive-abc", _render_pk_knowledge),
    ("predictive-abc-settings", PAGE, "predictive-abc", _render_pk_settings),
)


# ---- predictive-heldout -------------------------------------------------------------------


def _heldout_means(d: pd.DataFrame) -> dict[tuple[str, str, str], tuple[float, float]]:
    """(stage, trace, config) → seed means of (utilisation, p95 queueing delay ms)."""
    parts = d["run"].str.split("/", expand=True)
    x = d.assign(stage=parts[0], trace=parts[1], config=parts[2])
    m = x.groupby(["stage", "trace", "config"], sort=False)[["utilization", "queueing_delay_p95_ms"]].mean()
    return {k: (float(r["utilization"]), float(r["queueing_delay_p95_ms"])) for k, r in m.iterrows()}


def _heldout_closed(m, stage: str, trace: str, name: str) -> tuple[float | None, float | None]:
    """``predict_abc_heldout.closed``: (fraction of the ABC → PK-ABC gap closed at equal
    utilisation, p95 of ABC with η lowered to that utilisation), None where the η grid does not
    reach it or there is no gap."""
    h = _script("predict_abc_heldout")
    u, dl = m[(stage, trace, name)]
    pts = sorted(m[(stage, trace, f"abc eta={e}")] for e in h.ETAS)
    us = [p[0] for p in pts]
    ref = None if u < us[0] or u > us[-1] else float(np.interp(u, us, [p[1] for p in pts]))
    gap = m[(stage, trace, "abc eta=0.98")][1] - m[(stage, trace, "pk-abc")][1]
    if ref is None or gap <= 0:
        return None, ref
    return (ref - dl) / gap, ref


def _tuning(m, names: Sequence[str]) -> tuple[str, float]:
    """The script's pick among ``names``: the best mean over the tuning traces (−1 without a score)."""
    h = _script("predict_abc_heldout")
    best, best_score = "", -np.inf
    for n in names:
        fr = [_heldout_closed(m, "tune", t, n)[0] for t in h.TUNE]
        score = float(np.mean([-1.0 if f is None else f for f in fr]))
        if score > best_score:
            best, best_score = n, score
    return best, best_score


def _label(name: str) -> str:
    """``trend h=400 g=0.1`` → ``trend 400 ms, 0.1`` (the page's column names)."""
    w = dict(p.split("=", 1) for p in name.split() if "=" in p)
    g = f"gain {w['g']}"
    falls = ", falls_only" if name.endswith(" falls") else ""
    if name.startswith("trend"):
        return f"trend {w['h']} ms, {w['g']}"
    if name.startswith("sprout"):
        return f"sprout {w['q'].rstrip('%')} %, {g}{falls}"
    if "apply" in w:
        return f"learned, apply = {w['apply']}, {g}{falls}"
    return f"learned, {g}{falls}"


def _render_heldout_intro(d: pd.DataFrame) -> str:
    h = _script("predict_abc_heldout")
    m = _heldout_means(d)
    umts = "TMobile-UMTS-driving.down"
    pk, abc = m[("tune", umts, "pk-abc")][1], m[("tune", umts, "abc eta=0.98")][1]
    every = [n for fam in h.FAMILIES.values() for n in fam]
    pick, score = _tuning(m, every)
    best = -1 / len(h.TUNE) if pk >= abc else 0.0
    return (
        f"On {umts} PK-ABC's p95 queueing delay is {pk:.1f} ms against ABC's {abc:.1f} ms"
        + (", so there is no gap to close there and" if pk >= abc else ";")
        + f" the best tuning mean short of a positive score is {_signed(best)}. "
        f"All four families together pick {_label(pick)} (tuning mean {_signed(score)})."
    )


def _render_heldout(d: pd.DataFrame) -> str:
    h = _script("predict_abc_heldout")
    m = _heldout_means(d)
    cols, tuning = [], []
    for fam, want in HELDOUT_PICKS.items():
        pick, score = _tuning(m, list(h.FAMILIES[fam]))
        if pick != want:
            raise ValueError(
                f"predictive-heldout: the {fam} family now picks '{pick}', not '{want}': set "
                "HELDOUT_PICKS in accelbrake/papers/docs_schemes.py and run `make results`"
            )
        cols.append(pick)
        tuning.append(score)
    rows, closed = [], {c: [] for c in cols}
    for t in h.PAPER:
        cells = []
        for c in cols:
            f, ref = _heldout_closed(m, "score", t, c)
            u, q = m[("score", t, c)]
            if f is not None:
                closed[c].append(f)
            cells.append(f"{u:.3f} / {q:.0f} · {'n/a' if ref is None else f'{ref:.0f}'} · {_fmt_closed(f)}")
        rows.append([t, *cells])
    rows.append(
        ["**mean closed**", *(f"**{_signed(float(np.mean(v)))}**" if v else "n/a" for v in closed.values())]
    )
    rows.append(["tuning mean", *(_signed(s) for s in tuning)])
    return _table(["trace", *(_label(c) for c in cols)], rows)


def _render_heldout_learned_g1(d: pd.DataFrame) -> str:
    h = _script("predict_abc_heldout")
    m = _heldout_means(d)
    fr = [_heldout_closed(m, "tune", t, "learned g=1")[0] for t in h.TUNE]
    score = float(np.mean([-1.0 if f is None else f for f in fr]))
    return f"(its tuning mean on the held-out script's tuning traces: {_signed(score)})."


REGION_ARGS = (
    *REGION_ARGS,
    ("predictive-heldout-learned-g1", PAGE, "predictive-heldout", _render_heldout_learned_g1),
    ("predictive-heldout-intro", PAGE, "predictive-heldout", _render_heldout_intro),
    ("predictive-heldout", PAGE, "predictive-heldout", _render_heldout),
)


# ---------------------------------------------------------------------------------------------
# docs/cellular-schemes.md: PCC-Vivace, Verus, Sprout

CELLULAR_PAGE = "docs/cellular-schemes.md"


def _constant12(
    scheme: str, one_way_ms: float = 50.0, params: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``cellular.rs`` ``constant_12_delay``: one flow for 60 s on a constant 12 Mbit/s link,
    250-packet drop-tail buffer, ``one_way_ms`` each way, 100 Mbit/s ACK link, seed 1."""
    flow: dict[str, Any] = {"scheme": scheme, "fwd": [0], "rev": [1]}
    if params:
        flow["params"] = params
    return {
        "duration_ms": 60000.0,
        "seed": 1,
        "record_packets": False,
        "hops": [
            {
                "link": {"type": "constant", "mbps": 12},
                "queue": {"type": "droptail", "packets": 250},
                "delay_ms": one_way_ms,
            },
            {
                "link": {"type": "constant", "mbps": 100},
                "queue": {"type": "infinite"},
                "delay_ms": one_way_ms,
            },
        ],
        "flows": [flow],
    }


def _m_cell(r: Any) -> dict[str, float]:
    """Utilisation, queueing delay, drops and the largest window of the run's 100 ms samples."""
    s = r.summary
    return {
        "utilization": s["utilization"],
        "queueing_delay_mean_ms": s["queueing_delay_ms"]["mean"],
        "queueing_delay_p95_ms": s["queueing_delay_ms"]["p95"],
        "drops": float(sum(f["drops"] for f in s["flows"])),
        "max_cwnd": float(r.flows_ts["cwnd"].max()),
    }


def _m_full_buffer(r: Any) -> dict[str, float]:
    """How one flow holds the bottleneck (100 ms bins): its pacing rate over the link's capacity
    of the last second, how often the 250-packet buffer is at least 225 packets full (overall and
    where the bin's capacity is under 4 Mbit/s), the mean queue, the bins without a delivery."""
    h = r.hops_ts
    h = h[h["hop"] == 0].set_index("t_s").sort_index()
    f = r.flows_ts
    f = f[f["flow"] == 0].set_index("t_s").sort_index()
    cap1s = h["capacity_mbps"].rolling(10, min_periods=10).mean()
    ratio = (f["pacing_mbps"] / cap1s).dropna()
    ratio = ratio[np.isfinite(ratio)] if len(ratio) else ratio
    full = h["queue_packets"] >= 225
    low = h["capacity_mbps"] < 4.0
    return {
        "pacing_over_2x_capacity": float((ratio > 2.0).mean()) if len(ratio) else math.nan,
        "pacing_over_capacity_median": float(ratio.median()) if len(ratio) else math.nan,
        "buffer_full": float(full.mean()),
        "buffer_full_low_capacity": float(full[low].mean()),
        "queue_mean_packets": float(h["queue_packets"].mean()),
        "no_delivery": float((h["throughput_mbps"] <= 0.0).mean()),
    }


#: Measures of the probe datasets here, added to :data:`accelbrake.papers.docs.MEASURES`.
MEASURES: dict[str, Any] = {"cell": _m_cell, "full_buffer": _m_full_buffer}


def _cellular_probes() -> dict[str, Any]:
    """``cellular.rs`` (seed 1) and the page's ``accelbrake run`` commands (seed 0, ABC setup)."""
    from accelbrake import build_scenario

    runs: dict[str, Any] = {
        "const12/pcc-vivace": (_constant12("pcc-vivace"), "cell"),
        "const12/verus": (_constant12("verus"), "cell"),
        "const12/sprout-rtt100": (_constant12("sprout"), "cell"),
        "const12/sprout-rtt20": (_constant12("sprout", 10.0), "cell"),
        "const12/cubic": (_constant12("cubic"), "cell"),
        "const12/sprout-exact-ticks": (_constant12("sprout", params={"exact_ticks": True}), "cell"),
    }
    for name, sets in (("verus", []), ("verus-loss-timer", ["verus.loss_timer_ms=150"])):
        runs[f"run-const12/{name}"] = (
            build_scenario("verus", trace="const:12", duration_s=60.0, seed=0, sets=sets),
            "cell",
        )
    for scheme in ("pcc-vivace", "cubic"):
        runs[f"verizon-down/{scheme}"] = (
            build_scenario(
                scheme, trace=str(ROOT / "traces" / "Verizon-LTE-short.down"), duration_s=140.0, seed=0
            ),
            "full_buffer",
        )
    return runs


def _pcc_rack() -> dict[str, Any]:
    """``accelbrake reproduce abc-table``'s ABC and PCC-Vivace, and PCC-Vivace with ``rack``."""
    from accelbrake.papers import reproduction

    doc = reproduction("abc-table").document(False, None)
    doc["name"] = "pcc-rack"
    doc["matrix"]["schemes"] = ["abc", "pcc-vivace", "pcc-rack"]
    doc["schemes"] = {
        "pcc-rack": {"scheme": "pcc-vivace", "label": "PCC-Vivace (rack)", "set": ["pcc-vivace.rack=true"]}
    }
    return doc


DATASET_ARGS = (
    *DATASET_ARGS,
    {"name": "cellular-checks", "kind": "probes", "spec": _cellular_probes, "keys": ("run",)},
    {
        "name": "pcc-rack",
        "kind": "sweep",
        "spec": _pcc_rack,
        "keys": ("scheme", "trace", "seed"),
        "check": "sample",
        "why": "45 runs of 140 s; the test repeats one trace and one seed for each scheme",
    },
)


def _row(d: pd.DataFrame, run: str) -> pd.Series:
    return d.set_index("run").loc[run]


def _render_pcc_const(d: pd.DataFrame) -> str:
    r = _row(d, "const12/pcc-vivace")
    return (
        f"utilisation {r['utilization']:.3f}, mean queueing delay {r['queueing_delay_mean_ms']:.1f} ms, "
        f"p95 {r['queueing_delay_p95_ms']:.1f} ms."
    )


def _render_pcc_rack(d: pd.DataFrame) -> str:
    m = d.groupby(["scheme", "trace"], sort=False)[[_U, _P95]].mean().groupby("scheme", sort=False).mean()
    a = m.loc["abc"]

    def row(s: str) -> str:
        return f"{m.at[s, _U] / a[_U]:.2f} / {m.at[s, _P95] / a[_P95]:.2f}"

    return (
        f"With `rack` PCC-Vivace's `abc-table` row (utilisation / p95 per-packet delay, each over ABC's; "
        f"3 seeds, the five traces) is {row('pcc-rack')}, against {row('pcc-vivace')} without."
    )


def _render_pcc_diag(d: pd.DataFrame) -> str:
    p, c = _row(d, "verizon-down/pcc-vivace"), _row(d, "verizon-down/cubic")

    def pct(v: float) -> str:
        return f"{100 * v:.0f} %"

    return (
        f"The pacing rate is above twice the capacity (mean of the last 1 s) in "
        f"{pct(p['pacing_over_2x_capacity'])} of the bins (median ratio "
        f"{p['pacing_over_capacity_median']:.2f}); the 250-packet buffer is at least 225 packets full "
        f"in {pct(p['buffer_full'])} of the bins ({pct(p['buffer_full_low_capacity'])} of those where "
        f"capacity is under 4 Mbit/s), Cubic's in {pct(c['buffer_full'])} "
        f"({pct(c['buffer_full_low_capacity'])}), although PCC's mean queue "
        f"({p['queue_mean_packets']:.0f} packets) is "
        f"{'below' if p['queue_mean_packets'] < c['queue_mean_packets'] else 'not below'} Cubic's "
        f"({c['queue_mean_packets']:.0f}): PCC's queue is full or empty (no delivery in "
        f"{pct(p['no_delivery'])} of the bins, Cubic {pct(c['no_delivery'])})."
    )


def _render_verus_loss_timer(d: pd.DataFrame) -> str:
    t, v = _row(d, "run-const12/verus-loss-timer"), _row(d, "run-const12/verus")
    return (
        f"The window reached {_thousands(t['max_cwnd'])} packets, with {_thousands(t['drops'])} drops "
        f"in 60 s (utilisation {t['utilization']:.3f}) against {_thousands(v['drops'])} "
        f"({v['utilization']:.3f}) at the default."
    )


def _thousands(v: float) -> str:
    """21 803 (a thin space between thousands, as the page writes counts)."""
    return f"{v:,.0f}".replace(",", " ")


def _render_verus_const(d: pd.DataFrame) -> str:
    r, c = _row(d, "const12/verus"), _row(d, "run-const12/verus")
    return (
        f"utilisation {r['utilization']:.3f}, mean queueing delay {r['queueing_delay_mean_ms']:.0f} ms, "
        f"p95 {r['queueing_delay_p95_ms']:.0f} ms (the buffer's limit; `accelbrake run --scheme verus "
        f"--trace const:12 --duration 60 --seed 0`: {c['utilization']:.3f}, "
        f"{c['queueing_delay_mean_ms']:.0f} ms, {c['queueing_delay_p95_ms']:.0f} ms)."
    )


def _render_sprout_table(d: pd.DataFrame) -> str:
    def cells(run: str) -> list[str]:
        r = _row(d, run)
        return [
            f"{r['utilization']:.3f}",
            f"{r['queueing_delay_mean_ms']:.1f} / {r['queueing_delay_p95_ms']:.1f} ms",
        ]

    rows = [
        [
            "Sprout, RTT 100 ms",
            *cells("const12/sprout-rtt100"),
            "no queue (F/C < RTT); utilisation ≤ F/(C·RTT) = 0.82",
        ],
        ["Sprout, RTT 20 ms", *cells("const12/sprout-rtt20"), "standing queue F/C − RTT = 62 ms"],
        ["Cubic, RTT 100 ms", *cells("const12/cubic"), ""],
    ]
    return _table(
        [
            "12 Mbit/s constant, 250-packet buffer, 60 s",
            "utilisation",
            "queueing delay mean / p95",
            "predicted",
        ],
        rows,
    )


def _render_sprout_exact(d: pd.DataFrame) -> str:
    r = _row(d, "const12/sprout-exact-ticks")
    return (
        f"(`sprout.exact_ticks=true`): utilisation {r['utilization']:.3f} on the constant 12 Mbit/s "
        "link at 100 ms RTT (the integration test's setup), against the table's below."
    )


REGION_ARGS = (
    *REGION_ARGS,
    ("cellular-pcc-const", CELLULAR_PAGE, "cellular-checks", _render_pcc_const),
    ("cellular-pcc-rack", CELLULAR_PAGE, "pcc-rack", _render_pcc_rack),
    ("cellular-pcc-diag", CELLULAR_PAGE, "cellular-checks", _render_pcc_diag),
    ("cellular-verus-loss-timer", CELLULAR_PAGE, "cellular-checks", _render_verus_loss_timer),
    ("cellular-verus-const", CELLULAR_PAGE, "cellular-checks", _render_verus_const),
    ("cellular-sprout-table", CELLULAR_PAGE, "cellular-checks", _render_sprout_table),
    ("cellular-sprout-exact", CELLULAR_PAGE, "cellular-checks", _render_sprout_exact),
)
