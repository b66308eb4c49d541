"""``gohash audit``: the structure of the key schemes, and what their keys merge in games.

Scope: argument parsing and printing only; every figure comes from
:mod:`gohash.audit`.  Text for people, ``--format json`` for programs (one JSON
object: ``structure``, a list with one entry per scheme, and ``collection``,
null without PATHs).  Exit status 0; 2 for bad arguments, and when some game
could not be read (the errors go to stderr, the report covers the rest), as
the other subcommands do.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

import numpy as np

from ..audit import (
    SCHEME_COLUMNS,
    CollectionAudit,
    MergeExample,
    SchemeStructure,
    audit_paths,
    scheme_structure,
)
from ..board import Board
from ..errors import GohashError
from ..rules import SUICIDE_HELP, SUICIDE_OPTIONS
from ..schemes import SCHEMES

DESCRIPTION = """\
Audit the key schemes.  For a board size: the free bits of the keys per point
class (centre, axis, diagonal, other), the GF(2) rank of the key set (XOR
schemes), the bits left to the hash of a symmetric position, and which
structured key sets hash like something else (full orbits, E3 handicap, E4
pairs).  With PATHs (SGF files, folders, zip or tar archives): every position of the
games, grouped exactly up to symmetry and by each scheme's canonical key; the
keys that merge distinct positions are shown as diagrams."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="key structure of the schemes, and merges on a collection",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="SGF files, folders or archives")
    parser.add_argument(
        "--scheme",
        action="append",
        choices=SCHEMES,
        dest="schemes",
        metavar="NAME",
        help=f"scheme to audit, repeatable; one of {', '.join(SCHEMES)} (default: all)",
    )
    parser.add_argument(
        "--size", type=int, default=19, help="board size of the key structure report (default 19)"
    )
    parser.add_argument(
        "--group",
        choices=("full", "d4"),
        default="full",
        help="symmetries for 'same position' and canonical keys: full (16, "
        "with colour exchange, the default) or d4 (the 8 board maps)",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=3,
        metavar="K",
        help="merges shown per scheme and board size (default 3)",
    )
    parser.add_argument(
        "--variations", action="store_true", help="walk every variation, not only the main line"
    )
    parser.add_argument("--suicide", choices=tuple(SUICIDE_OPTIONS), help=SUICIDE_HELP)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    schemes = tuple(args.schemes or SCHEMES)
    if args.examples < 0:
        print(f"gohash audit: error: --examples {args.examples!r} is negative", file=err)
        return 2
    try:
        structures = [scheme_structure(name, args.size) for name in schemes]
    except GohashError as e:
        print(f"gohash audit: error: {e}", file=err)
        return 2
    collection = None
    if args.paths:
        collection = audit_paths(
            args.paths,
            schemes,
            group=args.group,
            examples=args.examples,
            variations=args.variations,
            suicide_allowed=None if args.suicide is None else SUICIDE_OPTIONS[args.suicide],
        )
    if args.format == "json":
        json.dump(
            {
                "structure": [s.to_json() for s in structures],
                "collection": collection.to_json() if collection else None,
            },
            out,
            indent=1,
        )
        out.write("\n")
    else:
        for s in structures:
            _print_structure(s, out)
        if collection is not None:
            _print_collection(collection, out)
    if collection is not None and collection.errors:
        for error in collection.errors:
            print(f"gohash audit: {error}", file=err)
        print(
            f"gohash audit: {len(collection.errors)} errors; the report covers the rest", file=err
        )
        return 2
    return 0


def _print_structure(s: SchemeStructure, out: TextIO) -> None:
    print(f"{s.scheme} on {s.size}x{s.size}: {s.bits} bits, combined by {s.combiner}", file=out)
    print("  point class  points  free bits  orbit keys  GF(2) span", file=out)
    for c in s.classes:
        span = "-" if c.orbit_span is None else str(c.orbit_span)
        print(
            f"  {c.name:<11}  {c.points:>6}  {c.free_bits:>9}  {c.orbit_keys:>10}  {span:>10}",
            file=out,
        )
    if s.rank is None:
        print("  GF(2) rank: none (byte-wise addition is not linear over GF(2))", file=out)
    else:
        print(f"  GF(2) rank of the {s.keys} keys: {s.rank} of {min(s.bits, s.keys)}", file=out)
    bits: dict[int, list[str]] = {}
    for name, value in s.symmetric_bits.items():
        bits.setdefault(value, []).append(name)
    print("  bits left to the hash of a position fixed by", file=out)
    for value in sorted(bits):
        print(f"    {value:>3}: {' '.join(bits[value])}", file=out)
    if s.patterns:
        print("  family       keys  instances  equal hashes  first equal", file=out)
        for p in s.patterns:
            print(
                f"  {p.family:<11}  {p.keys:>4}  {p.instances:>9}  {p.equal:>12}  "
                f"{p.example or '-'}",
                file=out,
            )
    smallest = s.smallest
    if smallest is None:
        print("  no family hashes alike", file=out)
    else:
        keys, families = smallest
        print(f"  smallest set of keys that hashes alike: {keys} ({', '.join(families)})", file=out)
    print(file=out)


def _print_collection(c: CollectionAudit, out: TextIO) -> None:
    group = "16 symmetries" if c.group == "full" else "8 board maps"
    print(
        f"collection: {c.files:,} files, {c.games:,} games, {c.positions:,} positions, "
        f"{c.distinct:,} distinct up to {group}",
        file=out,
    )
    if not c.sizes:
        print("  no positions", file=out)
        return
    print("  size    positions     distinct", file=out)
    for s in c.sizes:
        print(f"  {s.size:>4}  {s.positions:>11,}  {s.distinct:>11,}", file=out)
    print(
        "  scheme        canonical keys  positions merged  keys merging  (symmetric)  split",
        file=out,
    )
    for name in c.schemes:
        keys, merged, merging, symmetric, split = (
            c.total(column, name) for column in SCHEME_COLUMNS
        )
        print(
            f"  {name:<12}  {keys:>14,}  {merged:>16,}  {merging:>12,}  {symmetric:>11,}  "
            f"{split:>5}",
            file=out,
        )
    print(
        "  (symmetric: keys merging only positions that have a symmetry, whose hashes keep\n"
        "   fewer bits, erratum E5)",
        file=out,
    )
    examples = [e for s in c.sizes for e in s.examples]
    if examples:
        print("\nfirst merges: distinct positions, one canonical key", file=out)
    for e in examples:
        _print_example(e, out)


def _print_example(e: MergeExample, out: TextIO) -> None:
    print(f"\n{e.scheme} {e.size}x{e.size} key {e.key}", file=out)
    for file, game, move in e.where:
        print(f"  {file}, game {game}, move {move}", file=out)
    left, right = (str(Board.from_array(np.asarray(b))).splitlines() for b in e.boards)
    width = max(len(line) for line in left)
    for a, b in zip(left, right, strict=True):
        print(f"  {a:<{width}}    {b}", file=out)
