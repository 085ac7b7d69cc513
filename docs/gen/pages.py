"""Pages generated at build time (mkdocs-gen-files), from the code and the committed datasets.

* reference/cli.md — every ``accelbrake`` command from its argument parser;
* reference/schema.md — the scenario file's JSON Schema (from the core's types) and the
  experiment file's keys;
* reference/outputs.md, reference/metrics.md — files a run and a sweep write, and their columns;
* reference/api.md — the Python API, from docstrings (mkdocstrings);
* reproductions/<paper>.md — verdicts per paper, through the adapter docs/gen/reproductions.py;
* the tables included by performance.md and testing.md, from docs/bench/*.json and
  docs/data/mutation-scores.csv.

Nothing here is written into the source tree: every build renders the pages afresh, so a
generated page cannot go stale.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))

import reproductions  # noqa: E402


def write(path: str, text: str) -> None:
    with mkdocs_gen_files.open(path, "w") as f:
        f.write(text)


def _esc(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


# ---------------------------------------------------------------------------------------------
# Command line


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _options_table(p: argparse.ArgumentParser) -> list[str]:
    rows = ["| option | default | what |", "|---|---|---|"]
    for a in p._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) or a.help == argparse.SUPPRESS:
            continue
        names = ", ".join(f"`{o}`" for o in a.option_strings) or f"`{a.metavar or a.dest}`"
        if a.option_strings and a.nargs != 0:
            names += f" `{a.metavar or a.dest.upper()}`" if not isinstance(a.metavar, tuple) else ""
        default = a.default
        shown = "" if default in (None, False, [], argparse.SUPPRESS) or a.nargs == 0 else f"`{default}`"
        text = (a.help or "") % {"default": default, "prog": p.prog} if a.help and "%(" in a.help else a.help
        rows.append(f"| {names} | {_esc(shown)} | {_esc(text or '')} |")
    return rows


def cli_page() -> str:
    os.environ["COLUMNS"] = "100"
    from accelbrake.cli import build_parser

    top = build_parser()
    out = [
        "# Command line",
        "",
        "Generated from the `accelbrake` argument parsers at every build of this site: what",
        "`accelbrake COMMAND --help` prints, with each option's default. Errors print",
        "`accelbrake: error: <message>` and exit with status 2.",
        "",
        "```text",
        top.format_help().rstrip(),
        "```",
        "",
    ]
    for name, p in _subparsers(top).items():
        out += [f"## `accelbrake {name}`", ""]
        if p.description:
            out += [p.description.strip(), ""]
        out += _options_table(p) + [""]
        out += ["```text", p.format_usage().strip(), "```", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Schemas, outputs, metrics


def schema_page() -> str:
    from accelbrake import _core

    schema = json.loads(_core.schema())
    props = schema.get("properties", {})
    out = [
        "# Scenario and experiment files",
        "",
        "## Scenario files (JSON Schema)",
        "",
        "A scenario file (`accelbrake run --scenario FILE`, JSON or TOML) describes one run: hops",
        "(link, queue, delay), flows (scheme, parameters, paths, start and stop times) and run",
        "settings. Its JSON Schema (draft 2020-12) is generated from the core's scenario types;",
        "`accelbrake schema` prints it, and editors that read JSON Schema complete and check",
        "scenario files with it. Examples: `examples/*.json` in the repository.",
        "",
        "| top-level key | type | what |",
        "|---|---|---|",
    ]
    for k, v in props.items():
        t = v.get("type", "")
        if isinstance(t, list):
            t = " or ".join(t)
        out.append(
            f"| `{k}` | {_esc(t or ('object' if '$ref' in v else ''))} | {_esc(v.get('description', ''))} |"
        )
    out += [
        "",
        '??? note "The whole schema"',
        "",
        "    ```json",
        *("    " + line for line in json.dumps(schema, indent=1).splitlines()),
        "    ```",
        "",
        "## Experiment files",
        "",
        "An experiment file (`accelbrake sweep FILE.toml`) is a matrix of scenarios: every",
        "combination of its `[matrix]` lists is one run. Its keys, with examples, are described in",
        "[Write an experiment file](../experiments.md); a file with an unknown key, a wrong type or",
        "a value out of range is refused with `accelbrake: error:` naming the file and the key.",
        "",
    ]
    return "\n".join(out)


TABLE_WHAT = {
    "flows_ts": "each flow's time series (one row per flow and time bin)",
    "hops_ts": "each hop's time series: capacity, throughput, queue",
    "delay_cdf": "the per-packet delay distribution, one row per level",
    "packets": "one row per data packet delivered (per-packet records only)",
    "hop_packets": "one row per packet and hop (per-packet records only)",
}


def _dtype(t: str) -> str:
    return {"<i8": "integer", "<f8": "float", "|b1": "boolean"}.get(t, _esc(t))


def outputs_page() -> str:
    from accelbrake.experiments.runner import COLUMN_DOCS
    from accelbrake.results import TABLE_COLUMNS

    out = [
        "# Output files and columns",
        "",
        "## `accelbrake run --out DIR`",
        "",
        "What `Result.to_dir` writes (the same tables are attributes of `accelbrake.Result`):",
        "",
        "| file | what |",
        "|---|---|",
        "| `summary.json` | the core's summary: per flow and per hop, throughput, utilisation, delays |",
        "| `summary_table.csv` | the summary table `accelbrake run` prints |",
        "| `scenario.json` | the scenario that ran (reusable with `accelbrake run --scenario`) |",
        "| `metadata.json` | version, git commit, machine |",
        *[f"| `{name}.parquet` | {_esc(TABLE_WHAT.get(name, ''))} |" for name in TABLE_COLUMNS],
        "",
        "`--csv` writes each table as CSV too. Per-packet tables (`packets`, `hop_packets`) exist only",
        "with per-packet records (`run --packets`, `record_packets = true`). Their columns, from the",
        "code's table definitions:",
        "",
        "| table | column | type |",
        "|---|---|---|",
        *[
            f"| `{name}` | `{col}` | {_dtype(t)} |"
            for name, cols in TABLE_COLUMNS.items()
            for col, t in cols.items()
        ],
        "",
        "## `accelbrake sweep` and `accelbrake reproduce`",
        "",
        "| file | what |",
        "|---|---|",
        "| `results.parquet` | one row per run and flow (`--csv` adds `results.csv`) |",
        "| `timeseries.parquet` | every run's per-flow time series |",
        "| `comparison.csv` | (reproductions) each published number beside ours, with its verdict |",
        "| `metadata.json` | version, git commit, machine, the experiment document, every run |",
        "| `report.html` | one self-contained page: tables (mean ± sd over seeds) and every plot |",
        "| `plots/*.png` | the plots (`--svg` adds SVG) |",
        "| `runs/<run_id>.*` | one file set per run; a rerun reuses finished runs |",
        "",
        "## Columns of `results`",
        "",
        "Generated from the sweep runner's column documentation (also in `metadata.json`).",
        "",
        "| column | meaning |",
        "|---|---|",
    ]
    out += [f"| `{k}` | {_esc(v)} |" for k, v in COLUMN_DOCS.items()]
    return "\n".join(out) + "\n"


def metrics_page() -> str:
    from accelbrake.experiments.runner import COLUMN_DOCS

    metrics = {
        k: v for k, v in COLUMN_DOCS.items() if any(w in k for w in ("delay", "util", "throughput", "jain"))
    }
    out = [
        "# Metrics",
        "",
        "How each reported number is defined. The definitions follow the ABC paper's evaluation",
        "(§7) and Mahimahi's `mm-throughput-graph` where they say how to measure.",
        "",
        "| metric | definition |",
        "|---|---|",
    ]
    out += [f"| `{k}` | {_esc(v)} |" for k, v in metrics.items()]
    out += [
        "",
        "**Percentiles** (`p50`, `p95`, `p99`) are over every packet of the flow (or of the run),",
        "not over time bins, and are Mahimahi's: the sorted value at index floor(q·N). Without",
        "per-packet records they come from a log-bucket sketch (within 0.2 %); with",
        "`record_packets = true` they are exact.",
        "",
        "**Utilisation** is the bytes that left the bottleneck over the link's capacity in bytes (every",
        "delivery opportunity of a trace, used or wasted), over the run: Mahimahi's definition.",
        "",
        "**Queueing delay** is the time from entering a queue to leaving the link (on a trace link",
        "including the wait for a delivery opportunity, as Mahimahi logs it), summed over the data path.",
        "**Per-packet delay** is the propagation RTT plus the queueing delay (the ABC paper's",
        "convention); **one-way delay** is sender to receiver. Rates are Mbit/s (10⁶ bit/s).",
        "",
        "**Throughput** of a flow is its data bytes received over its own active time; of all flows,",
        "every flow's bytes over the measurement window (first start to last end), so never above the",
        "link.",
        "",
        "**Verdicts** of a reproduction: `reproduced` when our value is within ±20 % of the",
        "published one (unless the row states another tolerance), `differs` with the ratio",
        "otherwise; `holds`/`fails` for a qualitative claim (an ordering, a trend).",
        "",
    ]
    return "\n".join(out)


API_MODULES = [
    ("accelbrake", ["simulate", "build_scenario", "load_scenario_file", "apply_sets", "parse_queue_spec"]),
    ("accelbrake.results", ["Result"]),
    ("accelbrake.controllers", ["Controller", "Ack", "register_controller", "Queue", "register_queue"]),
    ("accelbrake.gym", None),
    ("accelbrake.catalog", None),
]


def api_page() -> str:
    out = [
        "# Python API",
        "",
        "Generated from the docstrings. `import accelbrake` gives the functions below;",
        "`accelbrake.gym` needs the `gym` extra (`pip install 'accelbrake[gym]'`).",
        "",
    ]
    for mod, names in API_MODULES:
        if names is None:
            out += [f"::: {mod}", ""]
        else:
            out += [f"## `{mod}`", ""]
            for n in names:
                target = f"accelbrake.results.{n}" if (mod, n) == ("accelbrake", "simulate") else f"{mod}.{n}"
                out += [f"::: {target}", "    options:", "      heading_level: 3", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Reproductions, per paper


#: Explanation pages searched for the evidence behind a difference (a page that names the id).
EVIDENCE_PAGES = {
    "abc.md": "ABC",
    "explicit-schemes.md": "XCP, RCP, VCP, PK-ABC",
    "delay-schemes.md": "C2TCP, PropRate, BBR, Copa",
    "cellular-schemes.md": "PCC-Vivace, Verus, Sprout",
    "aqm.md": "CoDel, PIE and ABE",
    "coexistence.md": "ABC beside other traffic",
    "wifi.md": "Wi-Fi",
    "reproductions.md": "Reproductions",
    "results.md": "Measured tables",
}


def _evidence(rid: str) -> list[str]:
    """Links to the explanation pages that discuss reproduction ``rid``."""
    if not rid:
        return []
    out = []
    for page, title in EVIDENCE_PAGES.items():
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        # The generated verdict tables name every id; only the prose counts as evidence.
        text = re.sub(r"<!-- results:(\S+) begin.*?<!-- results:\1 end -->", "", text, flags=re.S)
        if f"`{rid}`" in text or f"reproduce {rid}" in text:
            out.append(f"[{title}](../{page})")
    return out


def paper_page(p: reproductions.Paper) -> str:
    out = [
        f"# {p.short}",
        "",
        f"*{p.citation}*",
        "",
        f"**{p.summary}** (full runs on the bundled traces).",
        "",
        "Run them yourself:",
        "",
        "```sh",
        f"accelbrake reproduce all --paper {p.key}",
        "```",
        "",
        "Generated from the verdicts of a full `accelbrake reproduce all`, which `make results`",
        "reruns; a test fails when the code no longer produces them.",
        "",
        "## Results",
        "",
        "| where | the paper's claim | reproduction | verdict | detail |",
        "|---|---|---|---|---|",
    ]
    for f in p.findings:
        rid = f"`{f.rid}`" if f.rid else "—"
        out.append(f"| {_esc(f.where)} | {_esc(f.claim)} | {rid} | **{f.verdict}** | {_esc(f.detail)} |")
    known = [f for f in p.findings if f.verdict in ("differs", "failed", "fails")]
    out += ["", "## Known differences", ""]
    if not known:
        out += ["None: every result that a reproduction judges is reproduced or holds.", ""]
    for f in known:
        ev = _evidence(f.rid)
        out += [
            f"- **{f.where}** (`accelbrake reproduce {f.rid}`): {f.detail}."
            + (f" {f.numbers}." if f.numbers else "")
            + (f" Status: *{f.status or 'open'}*" + (f": {f.cause}" if f.cause else "") + ".")
            + (f" Evidence: `{f.evidence}`." if f.evidence else "")
            + (f" Discussed in: {', '.join(ev)}." if ev else "")
        ]
    out += [
        "",
        "`accelbrake reproduce ID` prints every compared number of a reproduction beside the",
        "published one, and its `report.html` shows the runs behind them.",
        "",
    ]
    missing = [f for f in p.findings if f.verdict == "not implemented"]
    if missing:
        out += ["## Not implemented", ""]
        out += [f"- **{f.where}**: {f.detail}" for f in missing]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Performance and testing tables


def mutation_table() -> str:
    with open(ROOT / "docs/data/mutation-scores.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = ["| file | what | tests run | viable mutants | caught | survivors |", "|---|---|---|---|---|---|"]
    tv = tc = 0
    for r in rows:
        v, c = int(r["viable"]), int(r["caught"])
        tv, tc = tv + v, tc + c
        out.append(
            f"| `{r['file']}` | {_esc(r['component'])} | `{r['tests']}` | {v} | {c} ({100 * c / v:.0f} %) |"
            f" {_esc(r['survivors'])} |"
        )
    out.append(f"| **all** | | | **{tv}** | **{tc} ({100 * tc / tv:.1f} %)** | |")
    return "\n".join(out) + "\n"


def machine_class(meta: dict) -> str:
    m = str(meta.get("machine", ""))
    arch = "x86-64" if "x86_64" in m else ("arm64" if "aarch64" in m else "")
    cpus = meta.get("cpus")
    return f"{cpus}-core {arch} Linux VM".replace("  ", " ") if cpus else "Linux VM"


def bench_include(name: str) -> str:
    """docs/bench/NAME.md (written by the benchmark scripts) with the machine class from NAME.json."""
    md = (ROOT / "docs/bench" / f"{name}.md").read_text(encoding="utf-8")
    js = ROOT / "docs/bench" / f"{name}.json"
    data = json.loads(js.read_text(encoding="utf-8")) if js.is_file() else {}
    meta = data.get("meta", {}) if isinstance(data, dict) else {}
    if not meta and name == "ns3":  # rows of ours beside ns-3's, measured with scripts/bench.py's meta
        meta = json.loads((ROOT / "docs/bench/results.json").read_text(encoding="utf-8"))["meta"]
    if md.startswith("Measured on"):  # the script states the machine class itself
        return md
    return f"*Measured on a {machine_class(meta)}.*\n\n" + md


def main() -> None:
    write("reference/cli.md", cli_page())
    write("reference/schema.md", schema_page())
    write("reference/outputs.md", outputs_page())
    write("reference/metrics.md", metrics_page())
    write("reference/api.md", api_page())
    for p in reproductions.papers():
        write(f"reproductions/{p.key}.md", paper_page(p))
    parts = {"mutation-scores": mutation_table}
    for name in ("results", "curve", "ns3", "htsim", "cli-speed", "pycc", "gym"):
        parts[f"bench-{name}"] = lambda name=name: bench_include(name)
    for page in ("performance.md", "testing.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        for name, render in parts.items():
            marker = f"<!-- generated:{name} -->"
            if marker in text:
                text = text.replace(marker, render())
        if "<!-- generated:" in text:
            raise SystemExit(f"docs/{page}: unknown <!-- generated:... --> marker")
        write(page, text)


with redirect_stdout(io.StringIO()):
    main()
