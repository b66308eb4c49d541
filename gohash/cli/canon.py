"""``gohash canon``: a canonical key for every position of SGF files.

Scope: arguments and printing only; records are made by :mod:`gohash.canon`.
Records go to standard output or ``-o FILE``; errors, notes, the summary and
(on a terminal) a progress bar go to standard error.  Exit code 0 without
errors, 2 with any.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, TextIO

from ..canon import FORMATS, CanonOptions, canon
from ..errors import GohashError
from ..rules import SUICIDE_OPTIONS
from .options import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    add_exit_codes,
    add_format,
    add_jobs,
    add_scheme,
    add_suicide,
    add_symmetry,
    add_variations,
    leaf,
)
from .progress import Reporter

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "canon",
        help="canonical key of every position of SGF files",
        description="Print one record (JSON Lines or CSV) per position of every game: "
        "the initial position, then the position after every node with a move or setup "
        "stones.  PATH is an SGF file, a folder (searched recursively for *.sgf), a zip "
        "or tar archive (plain, gzip, bzip2 or xz), or - for standard input.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    add_scheme(parser)
    add_symmetry(parser)
    add_variations(parser)
    add_format(parser, FORMATS, help="record format")
    add_suicide(parser)
    parser.add_argument(
        "--position",
        action="store_true",
        help="add the field position: the exact canonical position, as hex of a size "
        "byte then base-4 digits (0 empty, 1 black, 2 white), row 0 = bottom; equal "
        "fields mean images of each other",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write records to FILE")
    add_jobs(parser)
    add_exit_codes(parser, files=True)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    options = CanonOptions(
        scheme=args.scheme,
        group=args.symmetry,
        variations=args.variations,
        format=args.format,
        suicide_allowed=None if args.suicide is None else SUICIDE_OPTIONS[args.suicide],
        position=args.position,
    )
    report = Reporter(args.prog)
    with contextlib.ExitStack() as stack:
        out: TextIO = sys.stdout
        if args.output:
            try:
                out = stack.enter_context(open(args.output, "w", encoding="utf-8", newline=""))
            except OSError as e:
                raise GohashError(f"cannot write {args.output!r}: {e.strerror}") from None
        summary = canon(
            args.paths,
            out.write,
            options,
            jobs=args.jobs,
            on_error=report.error,
            on_note=report.note,
            progress=report.progress,
        )
        out.flush()
    report.say(str(summary))
    return EXIT_ERRORS if summary.errors else EXIT_CLEAN
