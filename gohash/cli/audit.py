"""``gohash audit``: the structure of the key schemes, and what their keys merge in games.

Scope: argument parsing and printing only; every figure comes from
:mod:`gohash.group.structure` and :mod:`gohash.tools.audit`.  Text for people,
``--format json`` for programs (one JSON
document: ``structure``, a list with one entry per scheme, and ``collection``,
null without PATHs), on standard output; errors, the summary and the progress
bar on standard error.  Exit status 0; 1 when a canonical key of the collection
merges distinct positions; 2 when some game could not be read (the report
covers the rest) or for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

import numpy as np

from ..errors import counted
from ..go.board import Board
from ..go.rulesets import SUICIDE_OPTIONS
from ..group.schemes import SCHEMES
from ..group.structure import SchemeStructure, scheme_structure
from ..tools.audit import SCHEME_COLUMNS, CollectionAudit, MergeExample, audit_paths
from .options import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_FINDINGS,
    SYMMETRIES,
    add_deprecated,
    add_exit_codes,
    add_format,
    add_jobs,
    add_scheme,
    add_suicide,
    add_symmetry,
    add_variations,
    leaf,
    non_negative_int,
)
from .progress import reporter

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
    add_scheme(
        parser, repeatable=True,
        help=f"scheme to audit, repeatable; one of {', '.join(SCHEMES)} (default: all)",
    )
    parser.add_argument(
        "--size", type=int, default=19, help="board size of the key structure report (default 19)"
    )
    add_symmetry(parser)
    add_deprecated(parser, "--group", "--symmetry {value}", "symmetry", choices=SYMMETRIES)
    parser.add_argument(
        "--examples",
        type=non_negative_int,
        default=3,
        metavar="K",
        help="merges shown per scheme and board size (default 3)",
    )
    add_variations(parser)
    add_suicide(parser)
    add_format(parser, ("text", "json"), help="report format")
    add_jobs(parser)
    add_exit_codes(
        parser, "a canonical key of the collection merges distinct positions", files=True
    )
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    report = reporter(args)
    schemes = tuple(args.schemes or SCHEMES)
    structures = [scheme_structure(name, args.size) for name in schemes]
    collection = None
    if args.paths:
        collection = audit_paths(
            args.paths,
            schemes,
            symmetry=args.symmetry,
            examples=args.examples,
            variations=args.variations,
            suicide_allowed=None if args.suicide is None else SUICIDE_OPTIONS[args.suicide],
            jobs=args.jobs,
            progress=report.progress,
            on_death=report.note,
        )
        report.clear()
    if args.format == "json":
        json.dump(
            {
                "structure": [s.to_json() for s in structures],
                "collection": collection.to_json() if collection else None,
            },
            out,
        )
        out.write("\n")
    else:
        for s in structures:
            _print_structure(s, out)
        if collection is not None:
            _print_collection(collection, out)
    if collection is None:
        return EXIT_CLEAN
    for note in collection.notes:
        report.note(note)
    for error in collection.errors:
        report.error(error)
    merging = sum(collection.total("merged_keys", name) for name in collection.schemes)
    report.say(
        f"{counted(collection.files, 'file')}, {counted(collection.games, 'game')}, "
        f"{counted(collection.positions, 'position')}, "
        f"{counted(merging, 'canonical key')} merging distinct positions (in "
        f"{counted(len(collection.schemes), 'scheme')}), "
        f"{counted(len(collection.errors), 'error')}"
    )
    if collection.errors:
        return EXIT_ERRORS
    return EXIT_FINDINGS if merging else EXIT_CLEAN


def _print_structure(s: SchemeStructure, out: TextIO) -> None:
    print(f"{s.scheme} on {s.size}x{s.size}: {s.bits} bits, combined by {s.combiner}", file=out)
    print("  point class  points  free bits  orbit keys  GF(2) span", file=out)
    for c in s.classes:
        span = "-" if c.orbit_span is None else f"{c.orbit_span:,}"
        print(
            f"  {c.name:<11}  {c.points:>6,}  {c.free_bits:>9,}  {c.orbit_keys:>10,}  {span:>10}",
            file=out,
        )
    if s.rank is None:
        print("  GF(2) rank: none (byte-wise addition is not linear over GF(2))", file=out)
    else:
        print(f"  GF(2) rank of the {s.keys:,} keys: {s.rank:,} of {min(s.bits, s.keys):,}",
              file=out)
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
                f"  {p.family:<11}  {p.keys:>4,}  {p.instances:>9,}  {p.equal:>12,}  "
                f"{p.example or '-'}",
                file=out,
            )
    smallest = s.smallest
    if smallest is None:
        print("  no family hashes alike", file=out)
    else:
        keys, families = smallest
        print(f"  smallest set of keys that hashes alike: {keys:,} ({', '.join(families)})",
              file=out)
    print(file=out)


def _print_collection(c: CollectionAudit, out: TextIO) -> None:
    group = "16 symmetries" if c.group == "full" else "8 board maps"
    print(
        f"collection: {counted(c.files, 'file')}, {counted(c.games, 'game')}, "
        f"{counted(c.positions, 'position')}, {c.distinct:,} distinct up to {group}",
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
            f"{split:>5,}",
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
