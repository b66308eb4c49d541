"""A minimal GTP client for GNU Go, for the superko differential tests.

Scope: start ``gnugo --mode gtp`` with a ko rule, send commands, read the
replies.  GNU Go answers ``play`` of an illegal move (occupied point, suicide,
simple ko, and a superko repetition when started with ``--positional-superko``
or ``--situational-superko``) with the failure reply ``? illegal move`` and
leaves its board unchanged; that is what :meth:`GnuGo.play` reports.

:func:`find_gnugo` locates the program: ``/usr/games/gnugo`` (Debian's place,
not on PATH) or ``gnugo`` on PATH.  When it is missing, tests fail in CI
(``CI=true``) and are skipped, with the reason, elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from tests.support.env import missing

Point = tuple[int, int]

# GTP vertices (GTP 2 section 2.11), written out here rather than taken from
# gohash.group.coords, so that what GNU Go is told and what it answers does not go
# through the code under test: columns A..T without I, rows from 1 at the bottom
# (GNU Go plays up to 19x19).
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def vertex(point: Point | None) -> str:
    """The GTP vertex of ``(row, col)``, ``"pass"`` for None."""
    if point is None:
        return "pass"
    row, col = point
    return f"{COLUMNS[col]}{row + 1}"


def point_of(vertex: str) -> Point | None:
    """The ``(row, col)`` of a GTP vertex as GNU Go writes it, None for a pass."""
    text = vertex.upper()
    if text == "PASS":
        return None
    return int(text[1:]) - 1, COLUMNS.index(text[0])

DEBIAN_PATH = Path("/usr/games/gnugo")
KO_FLAGS = {"positional": "--positional-superko", "situational": "--situational-superko"}


def find_gnugo() -> str | None:
    """The path of the GNU Go program, or None if it is not installed."""
    if DEBIAN_PATH.is_file() and os.access(DEBIAN_PATH, os.X_OK):
        return str(DEBIAN_PATH)
    return shutil.which("gnugo")


def require_gnugo() -> str:
    """The GNU Go path; a failure in CI and a skip elsewhere when it is missing."""
    path = find_gnugo()
    if path is None:
        reason = (
            f"GNU Go not found at {DEBIAN_PATH} nor on PATH "
            "(install the Debian package 'gnugo'; .ci/run does)"
        )
        missing(reason)
    return path


class GtpError(RuntimeError):
    """GNU Go answered a command other than ``play`` with a failure."""


class GnuGo:
    """One GNU Go process in GTP mode, Chinese rules, with a superko rule.

    Use as a context manager: the process ends when the block does.
    """

    def __init__(self, program: str, rule: str) -> None:
        self.process = subprocess.Popen(
            [program, "--mode", "gtp", "--chinese-rules", KO_FLAGS[rule]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.size = 19

    def __enter__(self) -> GnuGo:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(OSError, GtpError):
                self.send("quit")
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def send(self, command: str) -> tuple[bool, str]:
        """Send one command; return (success, reply text without the '=' or '?')."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(command + "\n")
        stdin.flush()
        lines: list[str] = []
        while True:
            line = stdout.readline()
            if not line:
                raise GtpError(f"GNU Go exited while answering {command!r}")
            line = line.rstrip("\n")
            if not line and lines:
                break
            if line or lines:
                lines.append(line)
        reply = "\n".join(lines)
        return reply.startswith("="), reply[1:].strip()

    def command(self, command: str) -> str:
        ok, reply = self.send(command)
        if not ok:
            raise GtpError(f"GNU Go refused {command!r}: {reply}")
        return reply

    def new_game(self, size: int, handicap: Sequence[Point] = ()) -> None:
        """An empty board of ``size`` (with free handicap stones, if any)."""
        self.size = size
        self.command(f"boardsize {size}")
        self.command("clear_board")
        if handicap:
            vertices = " ".join(vertex(point) for point in handicap)
            self.command(f"set_free_handicap {vertices}")

    def play(self, colour: str, point: Point | None) -> bool:
        """Play a move (None: pass); False if GNU Go refuses it as illegal."""
        ok, reply = self.send(f"play {colour} {vertex(point)}")
        if not ok and reply != "illegal move":
            raise GtpError(f"GNU Go answered play {colour} {vertex(point)}: {reply}")
        return ok

    def undo(self) -> None:
        self.command("undo")

    def first_refusal(self, moves: list[tuple[str, Point | None]]) -> int | None:
        """Play ``moves`` in order; the 1-based number of the first refused one, or None."""
        for number, (colour, point) in enumerate(moves, start=1):
            if not self.play(colour, point):
                return number
        return None
