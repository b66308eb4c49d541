"""``gohash pack``: store SGF records in a packed Parquet dataset.

Scope: arguments and printing only; packing is :mod:`gohash.sgf.pack`.  The summary
and errors (sources that could not be read, and are left out) go to standard
error, as every command's messages do.  Exit code 0 without errors, 2 with any.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..tools.pack import PART_BYTES, write_pack
from .options import EXIT_CLEAN, EXIT_ERRORS, add_exit_codes, add_overwrite, leaf, size_bytes
from .progress import reporter

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pack",
        help="store many small SGF files in a few Parquet parts",
        description="Store every SGF source of PATH (files, folders searched recursively for "
        "*.sgf, zip or tar archives, - for standard input) as records (path, bytes, "
        "SHA-256) in Parquet parts in the new folder DIR.  Every gohash command reads DIR "
        "as it reads the files themselves.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="the dataset folder (missing or empty)")
    add_overwrite(parser, "an earlier packed dataset DIR")
    parser.add_argument(
        "--part-size", type=size_bytes, default=None, metavar="SIZE",
        help="SGF bytes per part file (suffix K, M or G; default 64M)",
    )
    add_exit_codes(parser, files=True)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    report = reporter(args)
    summary = write_pack(args.paths, args.output, part_bytes=args.part_size or PART_BYTES,
                   overwrite=args.overwrite, on_error=report.error,
                   on_note=report.note)
    report.say(str(summary))
    return EXIT_ERRORS if summary.errors else EXIT_CLEAN
