"""Standard error of a ``gohash`` subcommand: messages, the summary and the progress bar.

Scope: :class:`Reporter`, the one writer of everything a subcommand says
besides its results.  Every line starts with the command's name and says what
it is (``gohash superko: error: ...``, ``gohash superko: note: ...``); the
summary is ``gohash superko: ...``.  Long runs show a progress bar with the
rate and the time left (tqdm's), one line redrawn in place, only when standard
error is a terminal (never in a pipe, a file or a CI log); a message first
clears it, so a bar never breaks a line, and the bar is gone once the work is
done.
"""

from __future__ import annotations

import sys
from typing import NoReturn, TextIO

from tqdm import tqdm

from ..errors import GohashError

__all__ = ["BAR_FORMAT", "Reporter"]

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

    ``errors`` counts the errors reported, so the exit status can follow them.
    """

    def __init__(self, prog: str, stream: TextIO | None = None) -> None:
        self.prog = prog
        self.stream = stream if stream is not None else sys.stderr
        self.on_terminal = self.stream.isatty()
        self.errors = 0
        self._bar: tqdm[NoReturn] | None = None  # a bar over no iterable
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
