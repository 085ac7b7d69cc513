"""The docs' measured tables are what the code produces (``make results`` regenerates them).

Two checks per region / dataset (see :mod:`accelbrake.papers.docs`):

* every ``<!-- results:NAME -->`` region in README.md and docs/*.md equals what the renderer makes
  of its committed dataset CSV (no hand edits, no orphan markers);
* the committed CSV rows are what the code produces now: the runs named by each dataset's
  ``check`` (all of them, or a sample when the whole set is long; its ``why`` says which) are run
  again and compared with relative tolerance 1e-9 — exact, since the simulator is deterministic.

When one fails: run ``make results`` and commit the diff of README.md, docs/ and docs/data/.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from accelbrake.papers import docs as D

REL_TOL = 1e-9
HINT = "the docs are stale: run `make results` and commit the diff"


def test_every_marker_belongs_to_a_region_and_every_region_is_in_its_file():
    known = {r.name: r for r in D.REGIONS}
    seen = set()
    for f in D.doc_files():
        for name in D.regions_in(f.read_text(encoding="utf-8")):
            assert name in known, f"{f.name}: unknown region '{name}' (not in accelbrake.papers.docs.REGIONS)"
            assert str(f.relative_to(D.ROOT)) == known[name].file, (
                f"region {name} is in {f}, not {known[name].file}"
            )
            seen.add(name)
    assert seen == set(known), f"regions missing from the docs: {sorted(set(known) - seen)}"


@pytest.mark.parametrize("region", D.REGIONS, ids=lambda r: r.name)
def test_region_is_rendered_from_its_dataset(region):
    text = (D.ROOT / region.file).read_text(encoding="utf-8")
    body = D.regions_in(text)[region.name]
    data = D.read_data(D.DATASETS[region.dataset])
    assert body == D.render(region, data), f"{region.file}: region {region.name}: {HINT}"


def _close(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return math.isclose(fa, fb, rel_tol=REL_TOL, abs_tol=1e-12)
    return a == b


@pytest.mark.parametrize("ds", list(D.DATASETS.values()), ids=lambda d: d.name)
def test_dataset_is_what_the_code_produces(ds, tmp_path):
    committed = D.read_data(ds)
    spec = D.sample_spec(ds, ds.spec())
    fresh = D.run_dataset(ds, spec, out_dir=tmp_path / ds.name, jobs=2)
    # Through CSV, as the committed rows went.
    fresh.to_csv(tmp_path / "fresh.csv", index=False)
    fresh = pd.read_csv(tmp_path / "fresh.csv")
    if ds.check == "all":
        assert len(fresh) == len(committed), (
            f"{ds.name}: {len(fresh)} runs now, {len(committed)} documented; {HINT}"
        )
    keys = list(ds.keys)
    old = committed.set_index(keys)
    assert not old.index.has_duplicates
    diffs = []
    for _, row in fresh.iterrows():
        k = tuple(row[c] for c in keys) if len(keys) > 1 else row[keys[0]]  # probes: one key
        if k not in old.index:
            diffs.append(f"{k}: not in the documented runs")
            continue
        ref = old.loc[k]
        for col in fresh.columns:
            if col in keys:
                continue
            if col not in ref.index or not _close(row[col], ref[col]):
                diffs.append(f"{k} {col}: now {row[col]!r}, documented {ref.get(col)!r}")
    assert not diffs, f"{ds.name} ({ds.why or 'every run'}): {HINT}\n" + "\n".join(diffs[:20])
