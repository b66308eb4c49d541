"""``gohash index``: build a position index of SGF files, search it, find duplicate games.

Scope: arguments and printing only; everything else is :mod:`gohash.index`.

- ``gohash index build DB PATH... [--scheme S] [--jobs N] [--files-per-commit N]
  [--suicide allowed|forbidden]``
- ``gohash index find DB (--sgf FILE [--move N] [--game G] [--suicide allowed|forbidden]
  | --position DIAGRAM) [--no-colour-swap] [--format text|json] [--limit N] [--offset N]
  [--continuations] [--to-move b|w] [--player NAME] [--date-from D] [--date-to D]
  [--result B|W|other] [--min-rank R] [--event TEXT] [--handicap | --no-handicap]``
- ``gohash index dupes DB [--min-positions N] [--format text|json]``

Exit codes: 0 success, 2 bad input (for ``build``: any file or game in error;
the others are still indexed), 1 for ``find`` when the position is not in the index.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..board import Board
from ..coords import gtp, sgf_letters
from ..errors import GohashError
from ..index import (
    BuildSummary,
    Continuations,
    DupeGroup,
    Filters,
    FindResult,
    Index,
    Record,
    position_from_sgf,
)
from ..rules import SUICIDE_HELP, SUICIDE_OPTIONS
from ..schemes import SCHEMES

__all__ = ["register", "run"]

MAX_DIAGRAM_BYTES = 64 * 1024


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "index",
        help="search SGF collections for a position up to symmetry; find duplicate games",
        description="Build an SQLite index of every main-line position of SGF files, find "
        "every game where a position occurred in any orientation or with colours exchanged "
        "(confirmed exactly, never by hash alone), and list duplicate games.",
    )
    commands = parser.add_subparsers(dest="index_command", metavar="ACTION", required=True)

    build = commands.add_parser(
        "build",
        help="create or extend an index",
        description="Index every game of PATH (SGF files, folders searched recursively for "
        "*.sgf, zip or tar archives, - for standard input).  A file already indexed "
        "with the same content is skipped, a changed one replaces its games; each file is "
        "one transaction, so an interrupted build is completed by running it again.",
    )
    build.add_argument("db", metavar="DB", help="the index file (created if missing)")
    build.add_argument("paths", nargs="+", metavar="PATH")
    build.add_argument(
        "--scheme", choices=SCHEMES, default=None,
        help="key scheme of a new index (default huima64); an existing index keeps its own",
    )
    build.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)"
    )
    build.add_argument(
        "--files-per-commit", type=int, default=1, metavar="N",
        help="write N whole files per transaction (default 1): faster; a build killed "
        "midway loses up to N files, which the next run indexes",
    )
    build.add_argument(
        "--suicide", choices=tuple(SUICIDE_OPTIONS),
        help=SUICIDE_HELP + "; files already indexed and unchanged are not replayed again",
    )

    find = commands.add_parser(
        "find",
        help="every game and move where a position occurred",
        description="List every game and move number where the position occurred, up to "
        "rotation, reflection and colour exchange, with the element that maps the query "
        "onto it.  Positions are compared stone by stone (the side to move is ignored).",
    )
    find.add_argument("db", metavar="DB")
    query = find.add_mutually_exclusive_group(required=True)
    query.add_argument("--sgf", metavar="FILE", help="take the position from a record (- stdin)")
    query.add_argument(
        "--position", metavar="DIAGRAM",
        help="an ASCII diagram as gohash prints boards (X black, O white, . empty): the "
        "text itself, a file holding it, or - for standard input",
    )
    find.add_argument("--move", type=int, metavar="N", help="with --sgf: after move N "
                      "(default: the last)")
    find.add_argument("--game", type=int, default=0, metavar="G",
                      help="with --sgf: game G of the file (from 0; default 0)")
    find.add_argument("--suicide", choices=tuple(SUICIDE_OPTIONS),
                      help="with --sgf: " + SUICIDE_HELP)
    find.add_argument("--no-colour-swap", action="store_true",
                      help="rotations and reflections only, colours as they are")
    find.add_argument("--format", choices=("text", "json"), default="text")
    find.add_argument("--limit", type=int, default=100, metavar="N",
                      help="show at most N matches (default 100; 0: all)")
    find.add_argument("--offset", type=int, default=0, metavar="N",
                      help="skip the first N matches (for paging)")
    find.add_argument(
        "--continuations", action="store_true",
        help="instead of the games, the moves played next, seen in the query's orientation "
        "and colours, most played first, with results and dates (--limit: moves shown)",
    )
    find.add_argument("--to-move", choices=("b", "w"),
                      help="only occurrences with this side to move (in the query's colours)")
    filters = find.add_argument_group(
        "filters", "count only the games these let through (all that are given)"
    )
    filters.add_argument("--player", metavar="NAME",
                         help="Black or White's name contains NAME (case-insensitive)")
    filters.add_argument("--date-from", metavar="DATE",
                         help="played on or after DATE (YYYY, YYYY-MM or YYYY-MM-DD)")
    filters.add_argument("--date-to", metavar="DATE",
                         help="played on or before DATE (YYYY, YYYY-MM or YYYY-MM-DD)")
    filters.add_argument("--result", choices=("B", "W", "other"),
                         help="won by Black, by White, or neither (draw, void, unknown)")
    filters.add_argument("--min-rank", metavar="RANK",
                         help="no player with a recorded rank below RANK (like 3k, 5d, 9p)")
    filters.add_argument("--event", metavar="TEXT", help="the event (EV) contains TEXT")
    filters.add_argument("--handicap", action=argparse.BooleanOptionalAction, default=None,
                         help="handicap games only (HA 2 or more); --no-handicap: even games")

    dupes = commands.add_parser(
        "dupes",
        help="records that are the same game, or a prefix of another",
        description="Groups of records with the same sequence of positions up to symmetry "
        "and colour exchange, and records whose sequence is a proper prefix of others'.",
    )
    dupes.add_argument("db", metavar="DB")
    dupes.add_argument(
        "--min-positions", type=int, default=10, metavar="N",
        help="ignore records of fewer than N positions (default 10)",
    )
    dupes.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    actions = {"build": _run_build, "find": _run_find, "dupes": _run_dupes}
    return actions[args.index_command](args)


# -- build -------------------------------------------------------------------------------------


def _run_build(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise GohashError(f"--jobs must be at least 1, not {args.jobs!r}")
    err = sys.stderr
    progress = _progress(err) if err.isatty() else None
    with Index(args.db, create=True, scheme=args.scheme) as index:
        summary = index.build(args.paths, jobs=args.jobs,
                              files_per_commit=args.files_per_commit, progress=progress,
                              suicide_allowed=_suicide(args))
        counts = index.counts()
    if progress is not None:
        err.write("\r\033[K")
    for note in summary.notes:
        print(f"gohash index build: note: {note}", file=err)
    for message in summary.errors:
        print(f"gohash index build: error: {message}", file=err)
    print(f"{summary}")
    print(f"index {args.db}: {counts['files']} files, {counts['games']} games, "
          f"{counts['occurrences']} positions, {counts['positions']} distinct up to symmetry")
    return 2 if summary.errors else 0


def _suicide(args: argparse.Namespace) -> bool | None:
    return None if args.suicide is None else SUICIDE_OPTIONS[args.suicide]


def _progress(stream: Any) -> Any:
    def show(summary: BuildSummary) -> None:
        stream.write(f"\r{summary.files_indexed} files indexed, {summary.files_unchanged} "
                     f"unchanged, {summary.positions} positions")
        stream.flush()

    return show


# -- find --------------------------------------------------------------------------------------


def _query(args: argparse.Namespace) -> Board:
    if args.sgf is not None:
        if args.move is not None and args.move < 0:
            raise GohashError(f"--move must be 0 or more, not {args.move!r}")
        return position_from_sgf(args.sgf, args.move, game=args.game,
                                 suicide_allowed=_suicide(args))
    if args.move is not None:
        raise GohashError("--move goes with --sgf, not --position")
    if args.suicide is not None:
        raise GohashError("--suicide goes with --sgf, not --position")
    text = args.position
    if text == "-":
        text = sys.stdin.read(MAX_DIAGRAM_BYTES + 1)
    elif "\n" not in text and os.path.isfile(text):
        with open(text, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_DIAGRAM_BYTES + 1)
    if len(text) > MAX_DIAGRAM_BYTES:
        raise GohashError(f"the diagram is larger than {MAX_DIAGRAM_BYTES} bytes")
    return Board.from_diagram(text)


def _filters(args: argparse.Namespace) -> Filters | None:
    given = {name: getattr(args, name) for name in
             ("player", "date_from", "date_to", "result", "min_rank", "event", "handicap")}
    return Filters(**given) if any(v is not None for v in given.values()) else None


def _run_find(args: argparse.Namespace) -> int:
    if args.limit < 0 or args.offset < 0:
        raise GohashError(f"--limit and --offset must be 0 or more, not {args.limit!r}, "
                          f"{args.offset!r}")
    if args.continuations and args.offset:
        raise GohashError("--offset pages through games, not --continuations")
    filters = _filters(args)
    board = _query(args)
    with Index(args.db) as index:
        if args.continuations:
            moves = index.continuations(
                board, symmetry="d4" if args.no_colour_swap else "full", filters=filters,
                to_move=args.to_move, limit=args.limit or None,
            )
            hex_key = index.keys(board.size).hex(moves.key)
            if args.format == "json":
                print(json.dumps(_continuations_json(moves, hex_key), ensure_ascii=False))
            else:
                _print_continuations(moves, hex_key)
            return 0 if moves.total else 1
        result = index.find(board, colour_swap=not args.no_colour_swap,
                            limit=args.limit or None, offset=args.offset, filters=filters,
                            to_move=args.to_move)
        hex_key = index.keys(board.size).hex(result.key)
    if args.format == "json":
        print(json.dumps(_find_json(result, hex_key, board.size), ensure_ascii=False))
    else:
        _print_find(result, hex_key, board.size)
    return 0 if result.total else 1


def _move_json(colour: str, point: tuple[int, int] | None, size: int) -> dict[str, Any]:
    return {"colour": colour, "point": None if point is None else list(point),
            "gtp": gtp(point, size), "sgf": sgf_letters(point, size)}


def _record_json(record: Record) -> dict[str, Any]:
    return {
        "id": record.id, "file": record.file, "game": record.game, "size": record.size,
        "black": record.black, "white": record.white, "black_rank": record.black_rank,
        "white_rank": record.white_rank, "result": record.result, "winner": record.winner,
        "date": record.date, "dt": record.dt, "event": record.event, "komi": record.komi,
        "handicap": record.handicap,
    }


def _find_json(result: FindResult, hex_key: str, size: int) -> dict[str, Any]:
    return {
        "key": hex_key,
        "total": result.total,
        "offset": result.offset,
        "limit": result.limit,
        "rejected": result.rejected,
        "matches": [
            {
                **_record_json(m.record),
                "move_number": m.move_number,
                "seq": m.seq,
                "transform": m.element.name,
                "colours_exchanged": m.colours_exchanged,
                "to_move": m.to_move,
                "next_move": None if m.next_move is None else _move_json(*m.next_move, size),
            }
            for m in result.matches
        ],
    }


def _print_find(result: FindResult, hex_key: str, size: int) -> None:
    rejected = f"; {result.rejected} other positions share the key" if result.rejected else ""
    print(f"{size}x{size} position, key {hex_key}: {result.total} occurrences{rejected}")
    for m in result.matches:
        colours = ", colours exchanged" if m.colours_exchanged else ""
        record = m.record
        about = ", ".join(x for x in (record.result, record.date) if x)
        nxt = "end" if m.next_move is None else (
            f"{m.next_move[0].upper()} {gtp(m.next_move[1], size)}")
        print(f"{record.file}  game {record.game}  move {m.move_number}  "
              f"{m.element.name}{colours}  ({_players(record)}{', ' + about if about else ''})"
              f"  next {nxt}")
    shown_to = result.offset + len(result.matches)
    if shown_to < result.total:
        print(f"showing {result.offset + 1}-{shown_to} of {result.total}: "
              f"--offset {shown_to} for more, --limit 0 for all")


def _continuations_json(moves: Continuations, hex_key: str) -> dict[str, Any]:
    return {
        "key": hex_key,
        "size": moves.size,
        "total": moves.total,
        "ended": moves.ended,
        "same_colours": moves.same_colours,
        "exchanged_colours": moves.exchanged_colours,
        "black_wins": moves.black_wins,
        "white_wins": moves.white_wins,
        "other": moves.other,
        "years": {str(year): count for year, count in moves.years.items()},
        "symmetries": [g.name for g in moves.symmetries],
        "moves": [
            {
                **_move_json(m.colour, m.point, moves.size),
                "equivalent": [list(p) for p in m.equivalent],
                "count": m.count, "share": m.share, "black_wins": m.black_wins,
                "white_wins": m.white_wins, "other": m.other, "first_date": m.first_date,
                "last_date": m.last_date, "same_colours": m.same_colours,
                "exchanged_colours": m.exchanged_colours,
            }
            for m in moves.moves
        ],
    }


def _print_continuations(moves: Continuations, hex_key: str) -> None:
    size = moves.size
    exchanged = f", {moves.exchanged_colours} with colours exchanged" if moves.total else ""
    print(f"{size}x{size} position, key {hex_key}: {moves.total} occurrences{exchanged}; "
          f"{moves.ended} without a next move")
    if not moves.total:
        return
    print(f"results: B {moves.black_wins}, W {moves.white_wins}, other {moves.other}")
    print(f"{'move':<6}{'count':>7}{'share':>8}{'B wins':>8}{'W wins':>8}{'other':>7}"
          f"{'same':>7}{'exch':>6}  first       last")
    for m in moves.moves:
        name = f"{m.colour.upper()} {gtp(m.point, size)}"
        print(f"{name:<6}{m.count:>7}{m.share:>8.1%}{m.black_wins:>8}{m.white_wins:>8}"
              f"{m.other:>7}{m.same_colours:>7}{m.exchanged_colours:>6}  "
              f"{m.first_date or '-':<10}  {m.last_date or '-'}")
    if moves.years:
        print("by year: " + ", ".join(f"{y} {n}" for y, n in moves.years.items()))


def _players(record: Record) -> str:
    black = " ".join(x for x in (record.black or "?", record.black_rank) if x)
    white = " ".join(x for x in (record.white or "?", record.white_rank) if x)
    return f"{black} (B) vs {white} (W)"


# -- dupes -------------------------------------------------------------------------------------


def _run_dupes(args: argparse.Namespace) -> int:
    if args.min_positions < 1:
        raise GohashError(f"--min-positions must be at least 1, not {args.min_positions!r}")
    with Index(args.db) as index:
        dupes = index.dupes(min_positions=args.min_positions)
    if args.format == "json":
        print(json.dumps({
            "groups": [_group_json(g) for g in dupes.groups],
            "prefixes": [{"shorter": _group_json(p.shorter), "longer": _group_json(p.longer)}
                         for p in dupes.prefixes],
        }, ensure_ascii=False))
        return 0
    for group in dupes.groups:
        print(f"same game ({group.positions} positions):")
        _print_group(group)
    for prefix in dupes.prefixes:
        print(f"prefix ({prefix.shorter.positions} of {prefix.longer.positions} positions):")
        _print_group(prefix.shorter)
        print("  is the start of")
        _print_group(prefix.longer)
    print(f"{len(dupes.groups)} groups of duplicates, {len(dupes.prefixes)} prefixes")
    return 0


def _group_json(group: DupeGroup) -> dict[str, Any]:
    return {
        "positions": group.positions,
        "records": [
            {"file": r.file, "game": r.game, "transform": g.name, "size": r.size,
             "black": r.black, "white": r.white, "result": r.result}
            for r, g in zip(group.records, group.elements, strict=True)
        ],
    }


def _print_group(group: DupeGroup) -> None:
    for record, g in zip(group.records, group.elements, strict=True):
        print(f"  {record.file}  game {record.game}  {g.name}  "
              f"({_players(record)}, {record.result or '?'})")
