"""``gohash canon``: a canonical key for every position of SGF files.

Scope: arguments and printing only; records are made by :mod:`gohash.canon`,
a Parquet dataset by :mod:`gohash.cluster`.  Records go to standard output or
``-o FILE`` (``--format parquet``: the dataset folder ``-o DIR``, written here,
with ``--jobs`` or on Dask with ``--dask``); error lines, notes, the summary
and (on a terminal) a progress bar go to standard error.  Exit code 0 without
errors, 2 with any.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..canon import FORMATS, CanonOptions, canon
from ..errors import GohashError
from ..rules import SUICIDE_HELP, SUICIDE_OPTIONS
from ..schemes import SCHEMES
from ..walk import WalkSummary

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
    parser.add_argument("-o", "--output", metavar="FILE", help="write records to FILE "
                        "(--format parquet: the dataset folder or fsspec URL DIR)")
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)"
    )
    parser.add_argument(
        "--dask", metavar="ADDRESS", help="with --format parquet: run the partitions on the "
        "Dask scheduler tcp://HOST:PORT, or on local:N, a local cluster of N workers",
    )
    parser.add_argument(
        "--partition-size", type=_size, default=None, metavar="SIZE",
        help="with --format parquet: bytes of input per partition (suffix K, M or G; "
        "default 8M); each partition is one part file of each table",
    )
    parser.set_defaults(run=run)


def _size(text: str) -> int:
    """A byte count with an optional K, M or G (binary) suffix."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(f"not a size in bytes (like 8M): {text!r}")
    return int(digits) * scale


class _Progress:
    """A one-line progress bar on a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {self.unit}")
        self.stream.flush()
        self.shown = True

    unit = "inputs"

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

    if args.format == "parquet":
        summary = _parquet(args, options, on_error, on_note, progress)
        if progress is not None:
            progress.clear()
        print(f"gohash canon: {summary}", file=err)
        return 2 if summary.errors else 0
    if args.dask is not None or args.partition_size is not None:
        raise GohashError("--dask and --partition-size go with --format parquet")

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


def _parquet(args: argparse.Namespace, options: CanonOptions,
             on_error: Callable[[GohashError], None], on_note: Callable[[str], None],
             progress: _Progress | None) -> WalkSummary:
    """The dataset of ``--format parquet``."""
    if not args.output:
        raise GohashError("--format parquet writes a dataset folder: give -o DIR")
    try:
        from ..cluster import PARTITION_BYTES, write_dataset
    except ImportError as e:
        raise GohashError(f"--format parquet needs pyarrow and fsspec ({e}): "
                          "pip install 'gohash[parquet]'") from None
    if progress is not None:
        progress.unit = "partitions"
    return write_dataset(
        args.paths, args.output, options,
        partition_bytes=args.partition_size or PARTITION_BYTES, jobs=args.jobs,
        dask=args.dask, on_error=on_error, on_note=on_note, progress=progress,
    )
