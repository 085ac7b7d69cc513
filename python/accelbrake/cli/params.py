"""``accelbrake schema`` and ``accelbrake params``: what the core's registry publishes.

``schema`` prints the JSON Schema of scenario files (generated from the core's scenario types);
``params`` lists schemes, queues and every parameter with its default, unit, range and source
(``--markdown`` writes ``docs/parameters.md``; ``--json`` the raw catalog).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from accelbrake import _core, catalog
from accelbrake.tables import render_table


def register(sub: Any, fmt: Any) -> None:
    """Add the ``schema`` and ``params`` subcommands."""
    sc = sub.add_parser(
        "schema",
        help="print the JSON Schema of scenario files",
        description="Print the JSON Schema (draft 2020-12) of a scenario file, generated from the core's "
        "scenario types: hops (link, queue, delay), flows (scheme, params, paths, start/stop), run settings. "
        "Each queue type and each scheme's params are listed with their ranges and defaults. Example "
        "scenario files: examples/*.json.",
        formatter_class=fmt,
    )
    sc.set_defaults(func=cmd_schema)
    pa = sub.add_parser(
        "params",
        help="list schemes, queues and every parameter (default, unit, range, source)",
        description="List the core's registry: schemes, queue types and every parameter with its --set key, "
        "scenario field, default, unit, valid range and the source of its default.",
        formatter_class=fmt,
    )
    pa.add_argument("what", nargs="?", metavar="NAME", help="one scheme, family or queue type (default: all)")
    out = pa.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true", help="print docs/parameters.md")
    out.add_argument("--json", action="store_true", help="print the catalog as JSON")
    pa.set_defaults(func=cmd_params)


def cmd_schema(args: argparse.Namespace) -> int:
    print(_core.schema())
    return 0


def _rows(prefix: str, params: tuple[catalog.Param, ...]) -> list[list[str]]:
    return [[f"{prefix}.{p.key}", p.default_text(), p.unit or "-", p.expected, p.doc] for p in params]


def cmd_params(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps(catalog.raw(), indent=1))
        return 0
    if args.markdown:
        print(catalog.parameters_markdown(), end="")
        return 0
    headers = [("", "key"), ("", "default"), ("", "unit"), ("", "valid values"), ("", "what")]
    blocks: list[str] = []
    what = (args.what or "").lower()
    families: dict[str, catalog.Scheme] = {}
    for s in catalog.schemes():
        families.setdefault(s.family, s)
    for family, s in families.items():
        members = [t.name for t in catalog.schemes() if t.family == family]
        if what and what != family and what not in members:
            continue
        blocks.append(f"{family}.* (schemes {', '.join(members)}): {s.summary}; {s.source}")
        blocks.append(render_table(headers, _rows(family, s.params), left=5))
    for q in catalog.queues():
        if what and what != q.name:
            continue
        blocks.append(f"{q.name} queue: {q.summary}; {q.source}")
        blocks.append(
            render_table(headers, _rows(q.name, q.params), left=5) if q.params else "  no parameters"
        )
    if not blocks:
        names = sorted({*families, *(s.name for s in catalog.schemes()), *(q.name for q in catalog.queues())})
        raise ValueError(f"unknown scheme or queue '{args.what}'; known: {', '.join(names)}")
    print("\n\n".join(blocks))
    return 0
