"""``gohash canon``: a canonical key for every position of SGF files.

Scope: arguments and printing only; records are made by :mod:`gohash.tools.canon`,
a Parquet dataset by :mod:`gohash.tools.dataset`.  Records go to standard output or
``-o FILE`` (``--format parquet``: the dataset folder ``-o DIR``, written here,
with ``--jobs`` or on Dask with ``--dask``); errors, notes, the summary
and (on a terminal) a progress bar go to standard error.  Exit code 0 without
errors, 2 with any.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import GohashError
from ..go.rulesets import SUICIDE_OPTIONS
from ..sgf.walk import WalkSummary
from ..tools.canon import FORMATS, CanonOptions, write_records
from ..tools.outputs import check_file, open_records
from .options import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    add_exit_codes,
    add_format,
    add_jobs,
    add_overwrite,
    add_scheme,
    add_suicide,
    add_symmetry,
    add_variations,
    leaf,
    size_bytes,
)
from .progress import Reporter, reporter

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
    parser.add_argument("-o", "--output", metavar="FILE", help="write records to FILE "
                        "(--format parquet: the dataset folder or fsspec URL DIR)")
    add_overwrite(parser, "a non-empty FILE or an earlier canon dataset DIR")
    add_jobs(parser)
    parser.add_argument(
        "--dask", metavar="ADDRESS", help="with --format parquet: run the partitions on the "
        "Dask scheduler tcp://HOST:PORT, or on local:N, a local cluster of N workers",
    )
    parser.add_argument(
        "--partition-size", type=size_bytes, default=None, metavar="SIZE",
        help="with --format parquet: bytes of input per partition (suffix K, M or G; "
        "default 8M); each partition is one part file of each table",
    )
    add_exit_codes(parser, files=True)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    options = CanonOptions(
        scheme=args.scheme,
        symmetry=args.symmetry,
        variations=args.variations,
        format=args.format,
        suicide_allowed=None if args.suicide is None else SUICIDE_OPTIONS[args.suicide],
        position=args.position,
    )
    report = reporter(args)
    if args.format == "parquet":
        summary = _parquet(args, options, report)
        report.say(str(summary))
        return EXIT_ERRORS if summary.errors else EXIT_CLEAN
    if args.dask is not None or args.partition_size is not None:
        raise GohashError("--dask and --partition-size go with --format parquet")
    with contextlib.ExitStack() as stack:
        out: TextIO = sys.stdout
        if args.output:
            check_file(args.output, args.paths, args.overwrite)
            out = stack.enter_context(open_records(args.output))
        summary = write_records(
            args.paths,
            out.write,
            options,
            jobs=args.jobs,
            on_error=report.error,
            on_note=report.note,
            progress=report.progress,
            write_bytes=_bytes_writer(out),
        )
        out.flush()
    report.say(str(summary))
    return EXIT_ERRORS if summary.errors else EXIT_CLEAN


def _bytes_writer(out: TextIO) -> Callable[[bytes | memoryview], None] | None:
    """Where records may go as bytes: the UTF-8 stream under ``out``, after what
    was written to ``out`` as text; None if there is none."""
    binary = getattr(out, "buffer", None)
    if binary is None or codecs.lookup(out.encoding).name != "utf-8":
        return None

    def write_bytes(data: bytes | memoryview) -> None:
        out.flush()  # what was written as text goes first
        binary.write(data)

    return write_bytes


def _parquet(args: argparse.Namespace, options: CanonOptions, report: Reporter) -> WalkSummary:
    """The dataset of ``--format parquet``."""
    if not args.output:
        raise GohashError("--format parquet writes a dataset folder: give -o DIR")
    try:
        from ..tools.dataset import PARTITION_BYTES, write_dataset
    except ImportError as e:
        raise GohashError(f"--format parquet needs pyarrow and fsspec ({e}): "
                          "pip install 'gohash[parquet]'") from None
    return write_dataset(
        args.paths, args.output, options,
        partition_bytes=args.partition_size or PARTITION_BYTES, jobs=args.jobs,
        dask=args.dask, overwrite=args.overwrite, on_error=report.error, on_note=report.note,
        progress=report.progress,
    )
