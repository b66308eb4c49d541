"""Exceptions of gohash.

Every error a user's input can cause is a :class:`GohashError`, a subclass of
:class:`ValueError`.  Errors raised while reading a collection carry where they
happened (``file``, ``game``, ``move_number``) as attributes, so a batch tool
can report them in one line and go on with the next game.  Messages quote the
bad input with ``!r``.  :func:`counted` words the counts of messages and
summaries ("1 error", "2 errors"); :func:`shown_name` shows a file's name in one
line, and :func:`name_text` is the text a name that is not UTF-8 is stored and
written as (:mod:`gohash.sgf.names` says how names are carried).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar


def name_text(name: str) -> str:
    """``name`` as text that UTF-8 can hold, to store and write: each byte of a
    name that is not UTF-8 (a surrogate escape, as Python reads file system
    names) becomes ``\\xHH``.  Other names are returned as they are."""
    if name.isascii():
        return name
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system name holds
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def shown_name(name: str) -> str:
    """``name`` as shown in a message of one line: :func:`name_text`, with control
    and other unprintable characters escaped (``\\n``, ``\\x1b``)."""
    if name.isprintable():
        return name
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in name_text(name))


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1: ``"1 game"``,
    ``"0 games"``, ``"12,345 games"``; ``plural`` where adding ``s`` is wrong
    (``"prefixes"``)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


class GohashError(ValueError):
    """Base class of every error caused by bad input.

    ``file``, ``game`` (0-based index in the file) and ``move_number`` say where
    the error was found; each is ``None`` where it does not apply or is unknown.
    The walker fills them in for errors raised while replaying a game, and
    ``variation`` too (the line of the game tree, as
    :attr:`gohash.sgf.walk.PositionEvent.variation` names it: ``()`` for the main
    line); it is not part of :meth:`where`.
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | None = None,
        game: int | None = None,
        move_number: int | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.file = file
        self.game = game
        self.move_number = move_number
        self.variation: tuple[int, ...] | None = None

    def located(
        self,
        *,
        file: str | None = None,
        game: int | None = None,
        move_number: int | None = None,
        variation: tuple[int, ...] | None = None,
    ) -> GohashError:
        """Fill in the location fields that are still unknown; return self."""
        if self.file is None:
            self.file = file
        if self.game is None:
            self.game = game
        if self.move_number is None:
            self.move_number = move_number
        if self.variation is None:
            self.variation = variation
        return self

    def where(self) -> str:
        """The location as ``file, game G, move M`` (the known parts only); the
        file's name escaped as :func:`shown_name` does."""
        parts = []
        if self.file is not None:
            parts.append(shown_name(self.file))
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.move_number is not None:
            parts.append(f"move {self.move_number}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        return f"{where}: {self.reason}" if where else self.reason

    def __reduce__(self) -> tuple[object, ...]:
        # Subclasses take extra keyword-only arguments, which the default
        # pickling (calling the class with ``args``) would drop; worker
        # processes send errors back to the parent.
        return _rebuild, (type(self), self.args, self.__dict__)


def _rebuild(
    cls: type[GohashError], args: tuple[object, ...], state: dict[str, object]
) -> GohashError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class BoardSizeError(GohashError):
    """A board size outside 1..26, or a rectangular board."""


class ColourError(GohashError):
    """A colour other than ``"b"`` or ``"w"``."""


class PositionError(GohashError):
    """A position array of the wrong shape, dtype or values."""


class UnknownSchemeError(GohashError):
    """A key scheme name that gohash does not know."""


class UnknownElementError(GohashError):
    """A symmetry element name (or index) that is not one of the 16."""


class OptionError(GohashError):
    """An argument a function does not take (a symmetry, a side to move, a setup
    rule, an order, a count out of range): the message names the option and
    quotes the value.  The CLI and the server show it as a bad option (exit 2,
    HTTP 400)."""

    @classmethod
    def check(cls, name: str, value: object, choices: tuple[object, ...]) -> None:
        """Raise unless ``value`` of the option ``name`` is one of ``choices``."""
        if value not in choices:
            raise cls(f"{name} {value!r} is not one of {', '.join(map(str, choices))}")


class HistoryLimitError(GohashError):
    """A play, pass or setup beyond the board's ``max_history`` undo steps."""


_Illegal = TypeVar("_Illegal", bound="IllegalMoveError")


class IllegalMoveError(GohashError):
    """A move that the rules forbid; ``point``, ``colour`` and ``move_number`` say which.

    ``move_number`` is the number the move would have had (``board.move_number + 1``);
    for setup it is the board's current move number.  :meth:`at` words the
    reason, the one way every tool shows it.
    """

    WHY: ClassVar[str] = "is illegal"
    """What is wrong with the move, after its point (``{size}``: the board's size)."""

    def __init__(
        self,
        reason: str,
        *,
        point: object,
        colour: str | None,
        move_number: int,
        file: str | None = None,
        game: int | None = None,
    ) -> None:
        super().__init__(reason, file=file, game=game, move_number=move_number)
        self.point = point
        self.colour = colour

    @classmethod
    def at(
        cls: type[_Illegal],
        where: str,
        *,
        size: int,
        point: object,
        colour: str | None,
        move_number: int,
    ) -> _Illegal:
        """The error of the move ``where`` names (``"white at 'Q16'"``: the
        player and the point in GTP coordinates) on a ``size`` board, worded as
        every tool shows it: ``white at 'Q16' is occupied``."""
        return cls(
            f"{where} {cls.WHY.format(size=size)}",
            point=point,
            colour=colour,
            move_number=move_number,
        )


class OccupiedPointError(IllegalMoveError):
    """A play on a point that already holds a stone: an error of the record in
    every tool (``gohash superko`` included: it is no ko rule's to judge)."""

    WHY = "is occupied"


class OffBoardError(IllegalMoveError):
    """A point that is not on the board (or not a ``(row, col)`` pair at all)."""

    WHY = "is not a point of the {size}x{size} board"


class KoError(IllegalMoveError):
    """An immediate recapture of a simple ko."""

    WHY = "retakes a ko"


class SuperkoError(KoError):
    """A play that repeats an earlier position of the game, on a board that keeps
    a superko rule (:class:`gohash.go.board.Board`'s ``superko``)."""

    WHY = "repeats an earlier position (superko)"


class SuicideError(IllegalMoveError):
    """A play that leaves its own group without liberties, on a board that forbids it."""

    WHY = "is suicide"


class HandicapPlacementError(GohashError):
    """``HA`` without ``AB`` where every known placement of the stones has one
    under a move of the game: where the record's stones stood is unknown."""


class OutputExistsError(GohashError):
    """An output that would replace earlier output, or that is also an input.

    A file that holds anything, a dataset folder or an index of another kind is
    written over only when the caller asks (``overwrite=True``, ``--overwrite``);
    a folder or file that gohash did not write is never replaced.  ``file`` is
    the output.
    """


class SgfError(GohashError):
    """Malformed SGF data, or a source that cannot be read."""


class SgfReadError(SgfError):
    """Data that cannot be read on: the rest of the file is skipped."""


class SgfLimitError(SgfReadError):
    """A source, a value, a node, a game's setup or a nesting beyond the documented limits."""


class SgfBudgetError(SgfLimitError):
    """An input whose decompression went beyond its :class:`Budget`: the rest of it
    is not read."""


class SgfSyntaxError(SgfReadError):
    """Data that is not SGF."""


class UnknownRuleError(GohashError):
    """A ko rule or ruleset name that gohash does not know."""


class WorkerDied(GohashError):
    """A task whose worker process died on it, and died again when it was retried alone.

    ``reason`` says how: ``worker process died (killed by signal 9; out of
    memory?)``; the caller fills in ``file`` with :meth:`GohashError.located`."""


class IndexFileError(GohashError):
    """A database path that is missing, not SQLite, not a gohash index, of another
    schema version, or built with another key scheme."""


class IndexCreationError(IndexFileError):
    """An index that another process is creating at the same moment: the build that
    finds the creation under way stops at once, and can be run again."""


class UnknownGameError(GohashError):
    """A game id that is not in the index."""


class SourceGoneError(GohashError):
    """An indexed game whose source file is no longer where the index found it,
    so it cannot be read again (the index keeps its positions, not its record)."""


class MoveListError(GohashError):
    """A move list that cannot be read or replayed; ``step`` is the bad step (from 1).

    Steps are not moves (edits are steps too), so the message says "step N" and
    ``move_number`` is left unset.  ``refusal`` says what is wrong with an illegal
    step in a few words for a player, its point in GTP (``C3 is occupied``), for
    the explorer to show beside the board; None for a list that does not read.
    """

    def __init__(self, reason: str, *, step: int | None = None,
                 refusal: str | None = None) -> None:
        super().__init__(reason)
        self.step = step
        self.refusal = refusal


class BadRequest(GohashError):
    """A request the explorer cannot answer; ``status`` is its HTTP status (4xx, or
    503 when the server cannot answer it now)."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


class DamagedIndexError(IndexFileError):
    """An index whose contents are not what gohash wrote: a value out of range, a
    frame that does not decode, or keys that its frames and key scheme do not give
    (``gohash index check`` lists every such fault)."""


class StoredGameError(GohashError):
    """A stored game (docs/design.md, "Stored games") that does not replay, met by a
    compiled kernel replaying many at once: ``index`` is its place among them, for
    the caller to name the game (a :class:`DamagedIndexError` of an index)."""

    def __init__(self, reason: str, *, index: int) -> None:
        super().__init__(reason)
        self.index = index


class PatternError(GohashError):
    """A pattern diagram, move sequence or option that gohash cannot read: the
    message quotes it and names the row, or the point in GTP coordinates."""


class ServerBusy(BadRequest):
    """A request the explorer cannot take now: its queue of slow work (pattern
    searches, games read again) is full.  ``retry_after`` is the seconds to wait
    before asking again (HTTP ``Retry-After``)."""

    def __init__(self, reason: str, *, retry_after: int) -> None:
        super().__init__(reason, 503)
        self.retry_after = retry_after


class QueryTooBroad(GohashError):
    """A query that used up its time budget before it was done: ``scanned`` of
    the ``total`` games to search were searched, with ``hits`` found in them.
    The message starts "too broad: narrow the region or add a filter"."""

    def __init__(self, reason: str, *, scanned: int, total: int, hits: int) -> None:
        super().__init__(reason)
        self.scanned = scanned
        self.total = total
        self.hits = hits


class QueryCancelled(GohashError):
    """A query stopped by its caller before it was done (its ``cancel`` event
    set: a server's client went away)."""
