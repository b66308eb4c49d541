"""The options the ``gohash`` subcommands share, each defined once.

Scope: one ``add_*`` function per shared option (``--symmetry``, ``--scheme``,
``--jobs``, ``--variations``, ``--format``, ``--suicide``, ``--overwrite``), each giving the
option the same spelling, choices, default and help wherever it applies; the
argument types of counts; the exit codes and the epilog line that states
them; the deprecated spellings of earlier releases; and :func:`leaf`, which
marks the parser a subcommand runs with.  A subcommand module calls these
instead of ``parser.add_argument`` for any of these options, so that
``tests/cli/test_cli_consistency.py`` can hold them to one definition.

Deprecated spellings (``audit --group``, ``index find --no-colour-swap``,
``superko --format json``) still work for one release: they do what they did,
are hidden from ``--help``, and print a note naming the new spelling on
standard error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..go.rulesets import SUICIDE_HELP, SUICIDE_OPTIONS
from ..group.schemes import DEFAULT_SCHEME, SCHEMES

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERRORS",
    "EXIT_FINDINGS",
    "EXIT_INTERRUPTED",
    "FORMAT_HELP",
    "MAX_COUNT",
    "MAX_JOBS",
    "MAX_SIZE_BYTES",
    "SYMMETRIES",
    "add_deprecated",
    "add_exit_codes",
    "add_format",
    "add_jobs",
    "add_overwrite",
    "add_scheme",
    "add_suicide",
    "add_symmetry",
    "add_variations",
    "job_count",
    "leaf",
    "non_negative_int",
    "port_number",
    "positive_int",
    "size_bytes",
]

EXIT_CLEAN = 0
"""Exit status of a run without findings or errors."""
EXIT_FINDINGS = 1
"""Exit status of a run that found what its subcommand looks for (superko
violations, duplicate games, merged keys), without errors."""
EXIT_ERRORS = 2
"""Exit status of a run with any error: bad arguments, an unusable index, or bad
input in any file (the other files are still processed and reported)."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C, as shells report a process killed by SIGINT."""

SYMMETRIES = ("d4", "full")
DEFAULT_SYMMETRY = "full"
SYMMETRY_HELP = (
    "the symmetries under which two positions are the same: full (the 16 maps: the "
    "8 rotations and reflections, each with or without exchanging the colours; the "
    "default) or d4 (the 8 rotations and reflections, colours as they are)"
)

FORMAT_HELP: Mapping[str, str] = {
    "text": "lines for people",
    "parquet": "a Parquet dataset in the folder -o DIR",
    "json": "one JSON document",
    "jsonl": "JSON Lines, one JSON object per line",
    "csv": "comma-separated values with a header line",
}
"""What each ``--format`` name means, the same in every subcommand."""


MAX_COUNT = 2**31 - 1
"""The largest count an option takes (moves, games, limits, offsets): a C int, as
the compiled kernels and SQLite take it."""
MAX_JOBS = 256
"""The most worker processes ``--jobs`` starts: each takes tens of MB, and more
than the machine has cores only waits."""
MAX_SIZE_BYTES = 1 << 40
"""The largest byte count a size option takes (1 TiB)."""


def positive_int(text: str) -> int:
    """An argparse type: an integer from 1 to :data:`MAX_COUNT`."""
    return _int_in(text, 1, MAX_COUNT)


def non_negative_int(text: str) -> int:
    """An argparse type: an integer from 0 to :data:`MAX_COUNT`."""
    return _int_in(text, 0, MAX_COUNT)


def job_count(text: str) -> int:
    """An argparse type: a number of worker processes, 1 to :data:`MAX_JOBS`."""
    return _int_in(text, 1, MAX_JOBS)


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free one) to 65535."""
    return _int_in(text, 0, 65535)


def size_bytes(text: str) -> int:
    """A byte count with an optional K, M or G (binary) suffix, 1 to :data:`MAX_SIZE_BYTES`."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(f"not a size in bytes (like 8M): {text!r}")
    if int(digits) * scale > MAX_SIZE_BYTES:
        raise argparse.ArgumentTypeError(f"must be at most 1T ({MAX_SIZE_BYTES:,} bytes), "
                                         f"not {text!r}")
    return int(digits) * scale


def _int_in(text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
    if value > high:
        raise argparse.ArgumentTypeError(f"must be at most {high:,}, not {value}")
    return value


def leaf(parser: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int]) -> None:
    """Make ``parser`` a command: ``run(args)`` runs it, its messages start
    with its name (``gohash index build: error: ...``), as argparse's own do,
    and ``--quiet`` and ``--verbose`` say how it shows notes
    (:class:`gohash.cli.progress.Reporter`)."""
    notes = parser.add_mutually_exclusive_group()
    notes.add_argument("-q", "--quiet", dest="notes", action="store_const", const="quiet",
                       help="show no notes: only errors and the summary")
    notes.add_argument("-v", "--verbose", dest="notes", action="store_const", const="verbose",
                       help="show every note as it comes (default: the first of each kind, "
                       "then how many there were of each)")
    parser.set_defaults(run=run, prog=parser.prog, notes="grouped")


def add_exit_codes(
    parser: argparse.ArgumentParser, findings: str | None = None, *, files: bool = False
) -> None:
    """State the subcommand's exit codes at the end of its help; ``findings`` says
    what it finds, if it has an exit status 1; ``files``: it reads collections."""
    line = "Exit status: 0 done"
    if findings is not None:
        line += f", nothing found; 1 {findings}"
    line += "; 2 any error"
    line += " (after bad input in a file, the other files are still processed)." if files else "."
    parser.epilog = f"{parser.epilog}  {line}" if parser.epilog else line


def add_symmetry(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--symmetry", choices=SYMMETRIES, default=DEFAULT_SYMMETRY, help=SYMMETRY_HELP
    )


def add_scheme(
    parser: argparse.ArgumentParser,
    *,
    default: str | None = DEFAULT_SCHEME,
    repeatable: bool = False,
    help: str | None = None,
) -> None:
    """``--scheme``: the key scheme.  ``repeatable`` collects the names given
    into ``schemes`` (None if none is)."""
    text = help or f"key scheme (default {default})"
    if repeatable:
        parser.add_argument(
            "--scheme", choices=SCHEMES, action="append", dest="schemes", help=text
        )
    else:
        parser.add_argument("--scheme", choices=SCHEMES, default=default, help=text)


def add_jobs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs", type=job_count, default=1, metavar="N",
        help=f"worker processes reading and replaying the files (default 1, at most "
        f"{MAX_JOBS}); the output is the same, in input order, whatever N",
    )


def add_overwrite(parser: argparse.ArgumentParser, replaced: str,
                  refused: str = "refused without it") -> None:
    """``--overwrite``: replace the earlier output ``replaced`` names, which is
    ``refused`` without it (a folder or index gohash did not write never is)."""
    parser.add_argument("--overwrite", action="store_true", help=f"replace {replaced} ({refused})")


def add_variations(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    parser.add_argument(
        "--variations", action="store_true",
        help=help or "every variation, not only the main line",
    )


def add_suicide(parser: argparse.ArgumentParser, help: str = SUICIDE_HELP) -> None:
    parser.add_argument("--suicide", choices=tuple(SUICIDE_OPTIONS), help=help)


def add_format(
    parser: argparse.ArgumentParser,
    choices: Sequence[str],
    *,
    deprecated: Mapping[str, str] | None = None,
    help: str | None = None,
) -> None:
    """``--format``, the first of ``choices`` the default; ``deprecated`` maps old
    names, still accepted with a note, to the new."""
    names = ", ".join(
        f"{name} ({FORMAT_HELP[name]})" if name in FORMAT_HELP else name for name in choices
    )
    old = dict(deprecated or {})
    parser.add_argument(
        "--format", choices=(*choices, *old), default=choices[0],
        metavar="{" + ",".join(choices) + "}", action=_Format, renamed=old,
        help=(help or "output format") + f": {names}; default {choices[0]}",
    )


def add_deprecated(
    parser: argparse.ArgumentParser,
    old: str,
    new: str,
    dest: str,
    *,
    const: Any = None,
    choices: Sequence[str] | None = None,
) -> None:
    """``old``, hidden from the help, sets ``dest`` as ``new`` does (to its value,
    or to ``const`` if it takes none) and prints a note naming ``new``."""
    parser.add_argument(
        old, dest=dest, action=_Deprecated, new=new, choices=choices,
        nargs=1 if const is None else 0, const=const, default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )


def _deprecation(parser: argparse.ArgumentParser, old: str, new: str) -> None:
    print(
        f"{parser.prog}: note: {old} is deprecated and will be removed in the next "
        f"release; use {new}",
        file=sys.stderr,
    )


class _Deprecated(argparse.Action):
    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        value = self.const if self.nargs == 0 else values[0]
        given = f"{option_string} {value}" if self.nargs else str(option_string)
        _deprecation(parser, given, self.new.format(value=value))
        setattr(namespace, self.dest, value)


class _Format(argparse.Action):
    def __init__(self, *args: Any, renamed: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.renamed = renamed

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values in self.renamed:
            new = self.renamed[values]
            _deprecation(parser, f"{option_string} {values}", f"{option_string} {new}")
            values = new
        setattr(namespace, self.dest, values)
