"""The ``gohash`` command: one argparse parser, one subcommand per module.

Scope: dispatch only.  Each subcommand lives in its own module of this package
(``canon``, ``superko``, ``index``, ``audit``, ``serve``, ``pack``) whose ``register(subparsers)``
adds its parsers, each command with the function that runs it
(:func:`gohash.cli.options.leaf`: ``run(args) -> int``); the options they share
are defined once in :mod:`gohash.cli.options`, standard error is written by
:mod:`gohash.cli.progress`, and all logic is in the library.

Conventions, the same in every subcommand:
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import GohashError
from ..version import __version__
from . import audit, canon, index, pack, serve, superko
from .options import EXIT_ERRORS, EXIT_INTERRUPTED

__all__ = ["EXIT_CODES", "SUBCOMMANDS", "build_parser", "main"]

SUBCOMMANDS = (canon, superko, index, audit, serve, pack)

EXIT_CODES = (
    "Exit status, the same for every subcommand: 0 done, nothing found; 1 findings "
    "(superko violations, duplicate games in index dupes, keys merging distinct "
    "positions in an audit of a collection), and no error; 2 any error (bad arguments, "
    "an unusable index, bad input in any file: the other files are still processed); "
    "130 interrupted.  Results go to standard output; notes, errors, summaries and the "
    "progress bar (on a terminal) to standard error."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gohash",
        description="Symmetry-aware Zobrist hashing for Go: canonical keys, superko "
        "checking and position search over SGF collections.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action="version", version=f"gohash {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gohash`` with ``argv`` (default: the command line); return the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version, or argparse's error (already printed)
        return e.code if isinstance(e.code, int) else EXIT_ERRORS
    try:
        code: int = args.run(args)
    except GohashError as e:
        print(f"{args.prog}: error: {e}", file=sys.stderr)
        return EXIT_ERRORS
    except KeyboardInterrupt:
        print(f"{args.prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (``gohash canon ... | head``).
        sys.stderr.close()
        return 0
    return code
