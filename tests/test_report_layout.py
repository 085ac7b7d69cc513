"""The report reads right in a browser: rendered by headless Chromium in a 1400 px wide window,
nothing overflows or is clipped (tables, headings, figures), and a screenshot is taken.

Chromium comes from ``make chromium`` (Debian's ``chromium`` package, run by ``make test``); without
it the test is skipped and says so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

WIDTH = 1400

#: Measures every element that could be clipped and writes the findings into the page, which
#: Chromium's --dump-dom then prints.
_PROBE = """
<script>
window.addEventListener('load', () => {
  const body = document.body.getBoundingClientRect();
  const bad = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (el.closest('[id]') ? ' in #' + el.closest('[id]').id : '');
  for (const el of document.querySelectorAll('table, h1, h2, figure, img, figcaption, p, pre, dl')) {
    if (el.closest('details') && !el.closest('details').open) continue;
    const r = el.getBoundingClientRect();
    if (r.right > body.right + 1 || r.left < body.left - 1)
      bad.push(name(el) + ' sticks out of the page: ' + Math.round(r.left) + '..' + Math.round(r.right) +
               ' vs ' + Math.round(body.left) + '..' + Math.round(body.right));
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      bad.push(name(el) + ' is clipped: content ' + el.scrollWidth + ' px in ' + el.clientWidth + ' px');
  }
  for (const el of document.querySelectorAll('.scroll')) {
    if (el.scrollWidth > el.clientWidth + 1)
      bad.push(name(el) + ' needs a scroll bar: ' + el.scrollWidth + ' px in ' + el.clientWidth + ' px');
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.complete || img.naturalWidth === 0) bad.push(name(img) + ' did not load');
  }
  const page = document.documentElement;
  if (page.scrollWidth > window.innerWidth)
    bad.push('the page scrolls sideways: ' + page.scrollWidth + ' px in ' + window.innerWidth + ' px');
  const tables = [...document.querySelectorAll('table')].map(
    t => [name(t), Math.round(t.getBoundingClientRect().width)]);
  const out = document.createElement('pre');
  out.id = 'layout-probe';
  out.textContent = JSON.stringify({width: window.innerWidth, body: Math.round(body.width), bad, tables});
  document.body.appendChild(out);
});
</script>
"""


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _flags(tmp_path) -> list[str]:
    return [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        f"--window-size={WIDTH},1000",
        "--virtual-time-budget=10000",
    ]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The report of ``reproduce abc-table --quick`` (short runs, one seed): every table a
    reproduction shows, the comparison with the paper's numbers (with its notes) included."""
    from accelbrake.experiments.reproduce import run_reproduction
    from accelbrake.papers import reproduction

    out = tmp_path_factory.mktemp("layout") / "abc-table-quick"
    _, path, _ = run_reproduction(
        reproduction("abc-table"),
        out,
        quick=True,
        overrides=["run.duration_s=3", "matrix.seeds=1"],
        progress=False,
        echo=lambda m: None,
    )
    return path


def test_the_report_fits_a_1400_px_window_with_nothing_clipped(report, tmp_path):
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no chromium on PATH (make chromium installs Debian's chromium package)")
    page = tmp_path / "probe.html"
    page.write_text(report.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"), "utf-8")
    r = subprocess.run(
        [chromium, *_flags(tmp_path), "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="layout-probe">(.*?)</pre>', r.stdout, re.S)
    assert m, "the probe did not run: " + r.stdout[-500:] + r.stderr[-1000:]
    import html

    found = json.loads(html.unescape(m.group(1)))
    assert found["width"] == WIDTH
    assert len(found["tables"]) >= 3, found["tables"]
    assert found["bad"] == []
    # And a screenshot of the page as a reader sees it, next to the report.
    shot = report.parent / "report-1400px.png"
    r = subprocess.run(
        [chromium, *_flags(tmp_path), f"--screenshot={shot}", report.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG")
