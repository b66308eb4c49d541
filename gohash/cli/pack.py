"""``gohash pack``: store SGF records in a packed Parquet dataset.

Scope: arguments and printing only; packing is :mod:`gohash.pack`.  The summary
goes to standard output, errors (sources that could not be read, and are left
out) to standard error.  Exit code 0 without errors, 2 with any.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import GohashError
from ..pack import PART_BYTES, pack
from .canon import _size

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
    parser.add_argument(
        "--part-size", type=_size, default=None, metavar="SIZE",
        help="SGF bytes per part file (suffix K, M or G; default 64M)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    def on_error(error: GohashError) -> None:
        print(f"gohash pack: error: {error}", file=sys.stderr)

    summary = pack(args.paths, args.output, part_bytes=args.part_size or PART_BYTES,
                   on_error=on_error)
    print(f"gohash pack: {summary}")
    return 2 if summary.errors else 0
