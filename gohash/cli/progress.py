"""Standard error of a ``gohash`` subcommand: messages, the summary and the progress bar.

Scope: :class:`Reporter`, the one writer of everything a subcommand says
besides its results.  Every line starts with the command's name and says what
it is (``gohash superko: error: ...``, ``gohash superko: note: ...``); the
summary is ``gohash superko: ...``.  Long runs show a progress bar with the
rate and the time left (tqdm's), one line redrawn in place, only when standard
error is a terminal (never in a pipe, a file or a CI log); a message first
clears it, so a bar never breaks a line, and the bar is gone once the work is
done.

Notes are grouped by what they say after their location (``FILE, game G:``):
the first of each kind is shown as it comes, and before the summary one line
counts each kind seen more than once (``note: 9,599 files: text is not valid
UTF-8 ...``).  ``--verbose`` shows every note as it comes; ``--quiet`` none
(errors and the summary stay).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from typing import Literal, NoReturn, TextIO

from tqdm import tqdm

from ..errors import GohashError

__all__ = ["BAR_FORMAT", "NOTES", "Reporter", "note_kind", "reporter"]

NOTES = ("grouped", "verbose", "quiet")
"""How a command shows its notes: the first of each kind and counts (the default),
every one (``--verbose``), or none (``--quiet``)."""
Notes = Literal["grouped", "verbose", "quiet"]

# A note's location: a file (or archive member), maybe a game and a move, then ": ".
_LOCATED = re.compile(r"(?s)(.+?(?:, game \d+)?(?:, move \d+)?): (.+)")


def note_kind(note: str) -> tuple[str | None, str]:
    """A note's file (None if it names none) and what it says there, by which
    notes are grouped: ``'a.sgf, game 2: HA[x] is not a number'`` gives
    ``('a.sgf', 'HA[x] is not a number')``."""
    match = _LOCATED.fullmatch(note)
    if match is None:
        return None, note
    where = match.group(1)
    return where.split(", game ", 1)[0], match.group(2)


@dataclass
class _Kind:
    """Notes of one kind: how many, and the files they name."""

    count: int = 0
    files: set[str] = field(default_factory=set)

BAR_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar:30}| {n:,}/{total:,}{unit} [{elapsed}<{remaining}, "
    "{rate_fmt}]"
)
"""The bar's line: the command, the share done, the bar, the count done (with
thousands separators), the time taken and left, and the rate (``1.52k inputs/s``)."""

REDRAW_SECONDS = 0.1
"""The bar is redrawn at most this often, however often work is done."""


class Reporter:
    """Writes the messages of the command ``prog`` (``gohash canon``) to ``stream``
    (default: standard error), with a progress bar if it is a terminal.

    ``errors`` counts the errors reported, so the exit status can follow them;
    ``notes`` is how notes are shown (:data:`NOTES`).
    """

    def __init__(self, prog: str, stream: TextIO | None = None, *,
                 notes: Notes = "grouped") -> None:
        if notes not in NOTES:
            raise ValueError(f"notes {notes!r} is not one of {', '.join(NOTES)}")
        self.prog = prog
        self.notes = notes
        self._kinds: dict[str, _Kind] = {}
        self.stream = stream if stream is not None else sys.stderr
        self.on_terminal = self.stream.isatty()
        self.errors = 0
        self._bar: tqdm[NoReturn] | None = None  # a bar over no iterable
        self._bar_shown = False

    def error(self, error: GohashError | str) -> None:
        self.errors += 1
        self._line(f"error: {error}")

    def note(self, note: str) -> None:
        """A note, shown as :attr:`notes` says."""
        if self.notes == "verbose":
            self._line(f"note: {note}")
            return
        where, what = note_kind(note)
        kind = self._kinds.setdefault(what, _Kind())
        kind.count += 1
        if where is not None:
            kind.files.add(where)
        if kind.count == 1 and self.notes == "grouped":
            self._line(f"note: {note}")

    def say(self, text: str) -> None:
        """A line of its own: a summary.  The counts of the notes grouped so far
        come first."""
        if self.notes == "grouped":
            for what, kind in self._kinds.items():
                if kind.count > 1:
                    many = (f"{len(kind.files):,} files" if len(kind.files) > 1
                            else f"{kind.count:,} times")
                    self._line(f"note: {many}: {what} (the first shown above; "
                               "--verbose shows each)")
        self._kinds.clear()
        self._line(text)

    def _line(self, text: str) -> None:
        self.clear()
        print(f"{self.prog}: {text}", file=self.stream)

    def progress(self, done: int, total: int, unit: str = "inputs") -> None:
        """Move the bar to ``done`` of ``total`` ``unit``; nothing off a terminal.
        The bar goes once ``done`` reaches ``total``."""
        if not self.on_terminal:
            return
        bar = self._bar
        if bar is None or bar.total != total:
            self._close()
            bar = tqdm(
                total=total, desc=self.prog, unit=f" {unit}", unit_scale=True, file=self.stream,
                leave=False, bar_format=BAR_FORMAT, mininterval=REDRAW_SECONDS,
                dynamic_ncols=True,
            )
            self._bar = bar
        if done > bar.n:
            bar.update(done - bar.n)
        self._bar_shown = True
        if done >= total:
            bar.refresh()
            self._close()

    def clear(self) -> None:
        """Remove the bar, if shown, so the next line starts on a clean line; the
        next :meth:`progress` draws it again."""
        if self._bar is not None and self._bar_shown:
            self._bar.clear()
            self._bar_shown = False

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._bar_shown = False


def reporter(args: argparse.Namespace) -> Reporter:
    """The reporter of a command's parsed ``args``: its name, and ``--quiet`` or
    ``--verbose`` (:func:`gohash.cli.options.leaf` gives every command both)."""
    return Reporter(args.prog, notes=args.notes)
