"""The reproductions kept as experiment files (``python/accelbrake/papers/*/files/*.toml``): each is
a valid experiment document as written (``accelbrake sweep`` runs it) and with its ``[quick]``
table applied (``reproduce --quick``), and each is the document its reproduction runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from accelbrake.experiments.reproduce import file_document
from accelbrake.experiments.spec import ExperimentError, parse_experiment, quick_document
from accelbrake.papers import reproduction

PAPERS_DIR = Path(__file__).resolve().parents[1] / "python" / "accelbrake" / "papers"
FILES = sorted(PAPERS_DIR.glob("*/files/*.toml"))


def test_there_are_experiment_files():
    assert len(FILES) >= 7


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_each_file_is_a_valid_document_full_and_quick_and_its_reproduction_runs_it(path):
    build = file_document(path)
    full, quick = build(False, None), build(True, None)
    assert "quick" not in full and "quick" not in quick
    parse_experiment(full, source=str(path), base_dir=path.parent, plan=False)
    parse_experiment(quick, source=str(path), base_dir=path.parent, plan=False)
    assert quick["name"] == full["name"] + "-quick"
    # The file is named after its reproduction id, and that reproduction runs this document.
    rep = reproduction(path.stem)
    assert rep.document(False, None) == full
    assert rep.document(True, None) == quick
    assert rep.document(True, ["const:7"])["matrix"]["traces"] == ["const:7"]


def test_quick_table_replaces_keys_and_leaves_the_rest():
    doc = {
        "name": "x",
        "matrix": {"schemes": ["cubic"], "traces": ["const:12"], "seeds": 3},
        "run": {"duration_s": 140.0, "ack_mbps": 100.0},
        "quick": {"matrix.seeds": 1, "run.duration_s": 40.0},
    }
    q = quick_document(doc)
    assert q == {
        "name": "x-quick",
        "matrix": {"schemes": ["cubic"], "traces": ["const:12"], "seeds": 1},
        "run": {"duration_s": 40.0, "ack_mbps": 100.0},
    }
    assert doc["matrix"]["seeds"] == 3  # the document itself is left as it was
    parse_experiment(doc, source="x.toml", plan=False)


@pytest.mark.parametrize(
    ("quick", "message"),
    [
        ({"matrix.seed": 1}, "quick.matrix.seed: unknown key (did you mean 'matrix.seeds'?)"),
        ({"duration_s": 1}, "quick.duration_s: unknown key"),
        ([1], "quick: expected a table"),
    ],
)
def test_a_bad_quick_table_is_a_clear_error(quick, message):
    doc = {"matrix": {"schemes": ["cubic"], "traces": ["const:12"]}, "quick": quick}
    with pytest.raises(
        ExperimentError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")
    ):
        parse_experiment(doc, source="x.toml", plan=False)


def test_a_broken_file_names_it(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[matrix\n", encoding="utf-8")
    with pytest.raises(ExperimentError, match="bad.toml"):
        file_document(bad)(False, None)
    with pytest.raises(ExperimentError, match="missing.toml"):
        file_document(tmp_path / "missing.toml")(True, None)
