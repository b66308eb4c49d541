"""``gohash canon``: a canonical key for every position of SGF files.

Scope: arguments and printing only; records are made by :mod:`gohash.canon`.
Records go to standard output or ``-o FILE``; error lines, notes, the summary
and (on a terminal) a progress bar go to standard error.  Exit code 0 without
errors, 2 with any.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, TextIO

from ..canon import FORMATS, CanonOptions, canon
from ..errors import GohashError
from ..rules import SUICIDE_HELP, SUICIDE_OPTIONS
from ..schemes import SCHEMES

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
    parser.add_argument("--scheme", choices=SCHEMES, default="huima64", help="key scheme")
    parser.add_argument(
        "--symmetry",
        choices=("d4", "full"),
        default="full",
        help="d4: rotations and reflections; full: also colour exchange (default)",
    )
    parser.add_argument(
        "--variations", action="store_true", help="every variation, not just the main line"
    )
    parser.add_argument("--format", choices=FORMATS, default="jsonl")
    parser.add_argument("--suicide", choices=tuple(SUICIDE_OPTIONS), help=SUICIDE_HELP)
    parser.add_argument(
        "--position",
        action="store_true",
        help="add the field position: the exact canonical position, as hex of a size "
        "byte then base-4 digits (0 empty, 1 black, 2 white), row 0 = bottom; equal "
        "fields mean images of each other",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write records to FILE")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)"
    )
    parser.set_defaults(run=run)


class _Progress:
    """A one-line progress bar on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} inputs")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.shown = False


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise GohashError(f"--jobs must be at least 1, not {args.jobs!r}")
    options = CanonOptions(
        scheme=args.scheme,
        group=args.symmetry,
        variations=args.variations,
        format=args.format,
        suicide_allowed=None if args.suicide is None else SUICIDE_OPTIONS[args.suicide],
        position=args.position,
    )
    err = sys.stderr
    progress = _Progress(err) if err.isatty() else None

    def say(line: str) -> None:
        if progress is not None:
            progress.clear()
        print(line, file=err)

    def on_error(error: GohashError) -> None:
        say(f"error: {error}")

    def on_note(note: str) -> None:
        say(f"note: {note}")

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
            on_error=on_error,
            on_note=on_note,
            progress=progress,
        )
        out.flush()
    if progress is not None:
        progress.clear()
    print(f"gohash canon: {summary}", file=err)
    return 2 if summary.errors else 0
