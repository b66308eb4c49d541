"""The ``gohash`` command: one argparse parser, one subcommand per module.

Scope: dispatch only.  Each subcommand lives in its own module of this package
(``canon``, ``superko``, ``index``, ``audit``, ``pack``) that defines ``register(subparsers)``
and ``run(args) -> int``; all logic is in the library.

Exit codes: 0 success, 2 bad input (every error reported on stderr), and
argparse's own 2 for bad arguments.  A user's mistake never shows a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import GohashError
from . import audit, canon, index, pack, superko

__all__ = ["SUBCOMMANDS", "main"]

SUBCOMMANDS = (canon, superko, index, audit, pack)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gohash",
        description="Symmetry-aware Zobrist hashing for Go: canonical keys, superko "
        "checking and position search over SGF collections.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``gohash`` with ``argv`` (default: the command line); return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except GohashError as e:
        print(f"gohash {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gohash {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of our output went away (``gohash canon ... | head``).
        sys.stderr.close()
        return 0
    return code
