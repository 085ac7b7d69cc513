"""The demo's trade-off figure on the docs' home page and in the README, and the data it is drawn from.

``make results`` runs the demo (``accelbrake reproduce abc-table --quick``), then
``python -m accelbrake.papers.demo RUN_DIR`` keeps the plotted numbers (seed means and standard
deviations per scheme and trace) in ``docs/data/demo-tradeoff.csv`` and draws
``docs/figures/demo-tradeoff.png`` from that file alone, with the file's SHA-256 written into the
PNG's ``Source`` text chunk. tests/test_docs_demo.py checks both links of the chain: the figure was
drawn from the committed numbers, and the committed numbers are what the demo produces now.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "docs" / "data" / "demo-tradeoff.csv"
FIGURE = ROOT / "docs" / "figures" / "demo-tradeoff.png"
# The reproduction the demo runs (Makefile: demo and results).
REPRODUCTION = "abc-table"

_METRICS = ("utilization", "p95_delay_ms", "throughput_mbps", "p95_queueing_ms")
COLUMNS = ["scheme", "trace", *[f"{m}_{s}" for m in _METRICS for s in ("mean", "std", "n")], "seeds"]


def points(run_dir: Path) -> pd.DataFrame:
    """The plotted points of a finished demo run: seed mean, std and count per scheme and trace."""
    from accelbrake.experiments import figures as F

    table = run_dir / "results.parquet"
    if not table.is_file():
        raise SystemExit(
            f"{table}: not found; run `accelbrake reproduce {REPRODUCTION} --quick --out DIR` first"
        )
    agg = F.aggregate(pd.read_parquet(table))
    return agg[COLUMNS].reset_index(drop=True)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def draw(data: Path = DATA, figure: Path = FIGURE) -> Path:
    """Draw the trade-off plot from ``data`` alone and stamp the data's SHA-256 into the PNG."""
    from PIL import Image, PngImagePlugin

    from accelbrake.experiments import figures as F

    agg = pd.read_csv(data)
    png = F.plot_tradeoff(agg, figure.with_suffix(""))[0]
    info = PngImagePlugin.PngInfo()
    info.add_text("Source", f"{data.name} sha256={digest(data)}")
    with Image.open(png) as im:
        im.load()
        im.save(png, pnginfo=info)
    return png


def source_of(figure: Path = FIGURE) -> str | None:
    """The ``Source`` text chunk of a PNG drawn by :func:`draw` (None if it has none)."""
    from PIL import Image

    with Image.open(figure) as im:
        return im.text.get("Source") if hasattr(im, "text") else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m accelbrake.papers.demo",
        description="Keep the demo's plotted numbers in docs/data and draw the docs' trade-off figure "
        "from them.",
    )
    ap.add_argument(
        "run_dir", type=Path, help=f"the output folder of `accelbrake reproduce {REPRODUCTION} --quick`"
    )
    args = ap.parse_args(argv)
    DATA.parent.mkdir(parents=True, exist_ok=True)
    points(args.run_dir).to_csv(DATA, index=False)
    png = draw()
    print(f"wrote {DATA.relative_to(ROOT)} and {png.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
