"""Standard error of a ``gohash`` subcommand: messages, the summary and the progress bar.

Scope: :class:`Reporter`, the one writer of everything a subcommand says
besides its results.  Every line starts with the command's name and says what
it is (``gohash superko: error: ...``, ``gohash superko: note: ...``); the
summary is ``gohash superko: ...``.  Long runs show a progress bar, one line
redrawn in place, only when standard error is a terminal (never in a pipe, a
file or a CI log); a message first clears it, so a bar never breaks a line.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..errors import GohashError

__all__ = ["BAR_WIDTH", "Reporter"]

BAR_WIDTH = 30


class Reporter:
    """Writes the messages of the command ``prog`` (``gohash canon``) to ``stream``
    (default: standard error), with a progress bar if it is a terminal.

    ``errors`` counts the errors reported, so the exit status can follow them.
    """

    def __init__(self, prog: str, stream: TextIO | None = None) -> None:
        self.prog = prog
        self.stream = stream if stream is not None else sys.stderr
        self.on_terminal = self.stream.isatty()
        self.errors = 0
        self._bar_shown = False

    def error(self, error: GohashError | str) -> None:
        self.errors += 1
        self.say(f"error: {error}")

    def note(self, note: str) -> None:
        self.say(f"note: {note}")

    def say(self, text: str) -> None:
        """A line of its own: a summary, or what a note or error says."""
        self.clear()
        print(f"{self.prog}: {text}", file=self.stream)

    def progress(self, done: int, total: int, unit: str = "inputs") -> None:
        """Redraw the bar: ``done`` of ``total`` ``unit``; nothing off a terminal."""
        if not self.on_terminal:
            return
        filled = BAR_WIDTH * done // max(total, 1)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} {unit}"
        )
        self.stream.flush()
        self._bar_shown = True

    def clear(self) -> None:
        """Remove the bar, if shown, so the next line starts on a clean line."""
        if self._bar_shown:
            self.stream.write("\r\033[K")
            self._bar_shown = False
