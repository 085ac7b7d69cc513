"""The documentation site builds in strict mode and reads right in a browser.

The site is built with MkDocs (``make docs``; the ``docs`` extra) into a temporary folder. Headless
Chromium (``make chromium``) then renders the home page, a tutorial and the reproduction pages in a
1280 px wide window and checks that every image loads, no table is wider than the text column it
sits in, and the page does not scroll sideways. Without MkDocs or Chromium the tests are skipped
and say which is missing.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 1280
PAGES = [
    "index.html",
    "tutorials/first-run/index.html",
    "reproductions/index.html",
    "reproductions/abc/index.html",
]

#: Measures the rendered page and writes what it finds into the page, which --dump-dom prints.
_PROBE = """
<script>
window.addEventListener('load', () => {
  const bad = [];
  const column = document.querySelector('.md-content__inner') || document.body;
  const c = column.getBoundingClientRect();
  const name = (el) => el.tagName.toLowerCase() + ' after "' +
    ((el.previousElementSibling || el.parentElement).textContent || '').trim().slice(0, 40) + '"';
  for (const t of column.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width > c.width + 1 || r.right > c.right + 1)
      bad.push(name(t.closest('.md-typeset__scrollwrap') || t) + ': table ' + Math.round(r.width) +
               ' px wide in a ' + Math.round(c.width) + ' px column');
  }
  const imgs = [...document.querySelectorAll('.md-content img')];
  for (const img of imgs)
    if (!img.complete || img.naturalWidth === 0)
      bad.push('image ' + img.getAttribute('src') + ' did not load');
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth + 1)
    bad.push('the page scrolls sideways: ' + page.scrollWidth + ' px in ' + window.innerWidth + ' px');
  const out = document.createElement('pre');
  out.id = 'layout-probe';
  out.textContent = JSON.stringify({width: window.innerWidth, images: imgs.length,
    tables: column.querySelectorAll('table').length, bad});
  document.body.appendChild(out);
});
</script>
"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (make docs installs it)")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, "mkdocs build --strict failed:\n" + r.stderr[-4000:]
    return out


def test_the_site_has_every_kind_of_page(site):
    for page in [
        "tutorials/first-run",
        "tutorials/reproduce-a-paper",
        "tutorials/python-controller",
        "tutorials/gym",
        "tutorials/emulate",
        "how-to/sweeps",
        "how-to/wheel",
        "reference/cli",
        "reference/api",
        "reference/schema",
        "reference/outputs",
        "reference/metrics",
        "parameters",
        "explanation/architecture",
        "emulation",
        "performance",
        "testing",
        "reproductions/abc",
        "reproductions/abe",
        "reproductions/c2tcp",
        "reproductions/proprate",
    ]:
        assert (site / page / "index.html").is_file(), page
    cli = (site / "reference/cli/index.html").read_text(encoding="utf-8")
    from accelbrake.cli import build_parser

    for a in build_parser()._actions:
        for name in getattr(a, "choices", None) or {}:
            assert f"accelbrake {name}" in cli, f"the CLI reference misses `accelbrake {name}`"
    api = (site / "reference/api/index.html").read_text(encoding="utf-8")
    assert "build_scenario" in api and "register_controller" in api


@pytest.mark.parametrize("page", PAGES)
def test_the_page_renders_with_images_loaded_and_no_table_overflowing(site, page, tmp_path):
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no chromium on PATH (make chromium installs Debian's chromium package)")
    src = site / page
    probe = src.parent / "layout-probe.html"
    probe.write_text(src.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"), "utf-8")
    r = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--window-size={WIDTH},1000",
            "--virtual-time-budget=10000",
            "--allow-file-access-from-files",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="layout-probe">(.*?)</pre>', r.stdout, re.S)
    assert m, "the probe did not run: " + r.stdout[-500:] + r.stderr[-1000:]
    found = json.loads(html.unescape(m.group(1)))
    assert found["width"] == WIDTH
    if page == "index.html":
        assert found["images"] >= 1, "the home page shows the demo's trade-off plot"
    if page.startswith("reproductions/"):
        assert found["tables"] >= 1
    assert found["bad"] == [], page
