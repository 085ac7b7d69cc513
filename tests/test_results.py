"""Result.to_dir: every file written, atomically; CSV and Parquet round-trip."""

from __future__ import annotations

import json
import os

import accelbrake
import numpy as np
import pandas as pd
import pytest
from accelbrake import _io
from accelbrake.results import TABLE_COLUMNS

EXPECTED = {
    "summary.json",
    "metadata.json",
    "scenario.json",
    "summary_table.csv",
    *(f"{t}.csv" for t in TABLE_COLUMNS),
    *(f"{t}.parquet" for t in TABLE_COLUMNS),
}


@pytest.fixture
def written(small_result, tmp_path, monkeypatch):
    """Write the small result, recording every os.replace (the atomic rename)."""
    renamed = []
    real_replace = os.replace

    def replace(src, dst):
        assert os.path.dirname(os.fspath(src)) == os.path.dirname(os.fspath(dst)), (
            "temp file not in the same dir"
        )
        assert os.path.basename(os.fspath(src)).startswith(_io.TEMP_PREFIX)
        renamed.append(os.path.basename(os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(_io.os, "replace", replace)
    out = small_result.to_dir(tmp_path / "run", csv=True)
    return out, renamed


def test_to_dir_writes_every_file_atomically(written):
    out, renamed = written
    names = {p.name for p in out.iterdir()}
    assert names == EXPECTED  # and nothing else: no temporary files left
    assert sorted(renamed) == sorted(EXPECTED)  # each file arrived by an atomic rename
    for p in out.iterdir():
        assert p.stat().st_size > 0, p.name
        assert (p.stat().st_mode & 0o777) == 0o666 & ~_io._UMASK


def test_json_files(written, small_result):
    out, _ = written
    assert json.loads((out / "summary.json").read_text()) == small_result.summary
    assert json.loads((out / "scenario.json").read_text()) == small_result.scenario
    meta = json.loads((out / "metadata.json").read_text())
    for key in ("accelbrake_version", "git_commit", "scenario", "seed", "python", "platform", "created_utc"):
        assert key in meta, key
    assert meta["accelbrake_version"] == accelbrake.__version__
    assert meta["scenario"] == small_result.scenario
    assert meta["seed"] == small_result.scenario["seed"]
    assert meta["git_commit"] is None or len(meta["git_commit"]) == 40
    assert meta["created_utc"].endswith("Z")


def test_parquet_round_trip(written, small_result):
    out, _ = written
    for name, df in small_result.tables.items():
        back = pd.read_parquet(out / f"{name}.parquet")
        pd.testing.assert_frame_equal(back, df, check_dtype=True)


def test_csv_round_trip(written, small_result):
    out, _ = written
    for name, df in small_result.tables.items():
        back = pd.read_csv(out / f"{name}.csv")
        assert list(back.columns) == list(df.columns)
        assert len(back) == len(df)
        for col in df.columns:
            a, b = df[col].to_numpy(dtype=float), back[col].to_numpy(dtype=float)
            np.testing.assert_allclose(b, a, rtol=1e-12, equal_nan=True, err_msg=f"{name}.{col}")
    t = pd.read_csv(out / "summary_table.csv")
    pd.testing.assert_frame_equal(t, small_result.summary_table(), check_dtype=False)


def test_empty_tables_round_trip(tmp_path):
    r = accelbrake.simulate(
        accelbrake.build_scenario("cubic", trace="const:12", duration_s=2, record_packets=False)
    )
    out = r.to_dir(tmp_path / "run", csv=True)
    for name in ("packets", "hop_packets"):
        back = pd.read_parquet(out / f"{name}.parquet")
        assert back.empty and list(back.columns) == list(TABLE_COLUMNS[name])
        assert list(pd.read_csv(out / f"{name}.csv").columns) == list(TABLE_COLUMNS[name])


def test_to_dir_overwrites(written, small_result):
    out, _ = written
    (out / "summary.json").write_text("stale")
    small_result.to_dir(out)
    assert json.loads((out / "summary.json").read_text()) == small_result.summary
    assert {p.name for p in out.iterdir()} == EXPECTED


def test_failed_write_leaves_destination_and_no_temp_file(tmp_path):
    dest = tmp_path / "x.json"
    dest.write_text("old")

    def writer(p):
        p.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        _io.atomic_write(dest, writer)
    assert dest.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_atomic_write_json_nan_is_null(tmp_path):
    p = _io.atomic_write_json(
        tmp_path / "a.json", {"x": float("nan"), "y": [1.0, float("inf")], "z": np.float64(2)}
    )
    assert json.loads(p.read_text()) == {"x": None, "y": [1.0, None], "z": 2.0}


def test_to_dir_writes_parquet_only_by_default_without_importing_pandas(tmp_path):
    """The default output is Parquet written straight from the core's buffers (pandas is not
    needed, and not imported, to write a run)."""
    import subprocess
    import sys

    from conftest import PACKAGE_PARENT

    out = tmp_path / "run"
    code = (
        "import sys, accelbrake\n"
        "r = accelbrake.simulate(accelbrake.build_scenario('cubic', trace='const:24', duration_s=2))\n"
        f"r.to_dir({str(out)!r})\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_PARENT))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    names = {p.name for p in out.iterdir()}
    assert not {n for n in names if n.endswith(".csv")} - {"summary_table.csv"}
    assert {f"{t}.parquet" for t in TABLE_COLUMNS} <= names
    again = accelbrake.simulate(accelbrake.build_scenario("cubic", trace="const:24", duration_s=2))
    for name, df in again.tables.items():
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"), df, check_dtype=True)
    with pytest.raises(ValueError, match="nothing to write"):
        again.to_dir(tmp_path / "x", parquet=False)


def test_utilization_is_spelled_one_way_in_identifiers_with_an_alias(small_result):
    assert small_result.utilization == small_result.summary["utilization"] == small_result.utilisation
    assert "utilization" in small_result.summary_table().columns
    from accelbrake.experiments import figures
    from accelbrake.papers.abe import sweep as abe

    assert "utilization" in abe.COLUMNS and "utilisation" not in abe.COLUMNS
    assert "utilization" in figures.METRICS.values()


def test_compact_json_is_the_standard_encoders_value(tmp_path):
    """The one-line run documents (orjson) parse to what the indented ones (json + _finite) do:
    non-finite floats null, numpy scalars and int keys as json gives them; loads() parses both."""
    import json

    import numpy as np
    from accelbrake._io import atomic_write_json, loads

    doc = {
        "a": [1, 2.5, float("nan"), float("inf"), -float("inf"), 1e-5, 0.1 + 0.2],
        "np": {"f": np.float64(3.25), "i": np.int64(7), "nan": np.float64("nan")},
        3: "int key",
        "text": "μ and ≤",
        "nested": [{"x": None, "y": True}],
    }
    compact = atomic_write_json(tmp_path / "c.json", doc, indent=None)
    indented = atomic_write_json(tmp_path / "i.json", doc, indent=2)
    expected = json.loads(indented.read_text(encoding="utf-8"))
    assert json.loads(compact.read_text(encoding="utf-8")) == expected
    assert loads(compact.read_bytes()) == expected == loads(indented.read_text(encoding="utf-8"))
    assert expected["a"][2:5] == [None, None, None] and expected["np"]["nan"] is None
    assert "\n" not in compact.read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(ValueError):
        loads("{not json")


def test_background_sync_syncs_every_file_and_directory_before_close_returns(tmp_path, monkeypatch):
    """A sweep's run files are synced by a BackgroundSync: atomic_path with one does not sync while
    writing (the writer does not wait for the disk); close() returns only after every file given and
    each of their directories (once per batch) was synced."""
    import threading

    from accelbrake import _io

    synced: list[tuple[str, bool, str]] = []

    def fake_fsync(path, *, directory=False):
        synced.append((str(path), directory, threading.current_thread().name))

    monkeypatch.setattr(_io, "_fsync", fake_fsync)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    names = [tmp_path / "a" / f"{i}.json" for i in range(5)] + [tmp_path / "b" / "x.json"]
    with _io.BackgroundSync() as sync:
        for p in names:
            _io.atomic_write_json(p, {"p": p.name}, sync=sync)
    assert all(t == "accelbrake-fsync" for _, _, t in synced)
    files = [p for p, d, _ in synced if not d]
    dirs = [p for p, d, _ in synced if d]
    assert sorted(files) == sorted(map(str, names))
    assert set(dirs) == {str(tmp_path / "a"), str(tmp_path / "b")} and len(dirs) <= 2 * len(names)
    assert [json.loads(p.read_text())["p"] for p in names] == [p.name for p in names]
    # Without one: synced in the writing thread, the file before its rename and the directory after.
    synced.clear()
    _io.atomic_write_json(tmp_path / "c.json", {}, indent=None)
    assert [(d, t == threading.current_thread().name) for _, d, t in synced] == [(False, True), (True, True)]
