"""The reproductions page's findings table and its prose stay in step with reproduce-all.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from accelbrake.papers.docs_findings import FINDING_KEYS, render_findings

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "docs" / "data" / "reproduce-all.csv"


def test_every_finding_has_a_bullet_naming_its_id():
    data = pd.read_csv(CSV)
    page = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
    findings = page[page.index("<!-- results:reproduce-findings end -->") :]
    for key in FINDING_KEYS:
        rid = data.loc[data["key"] == key, "id"].iloc[0]
        assert f"(`{rid}`)" in findings, f"no finding bullet for {rid}"


def test_a_missing_row_is_named():
    data = pd.read_csv(CSV)
    with pytest.raises(ValueError, match="abe/fig8"):
        render_findings(data[data["key"] != "abe/fig8"])
