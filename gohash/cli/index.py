"""``gohash index``: build a position index of SGF files, search it, find duplicate
games, look after it.

Scope: arguments and printing only; everything else is :mod:`gohash.index` and
:mod:`gohash.index.store`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..errors import GohashError, counted
from ..go.board import Board
from ..go.rulesets import SUICIDE_HELP, SUICIDE_OPTIONS
from ..group.coords import gtp
from ..group.schemes import DEFAULT_SCHEME
from ..index.dupes import DupeGroup
from ..index.filters import FILTERS, Filters
from ..index.find import position_from_sgf
from ..index.index import Index
from ..index.movelist import play_moves
from ..index.players import PlayerSummary, Results, chosen_player
from ..index.records import PARSE_VERSION
from ..index.results import Continuations, FindResult, Record
from ..index.schema import SCHEMA_VERSION
from ..index.shards import (
    ShardedIndex,
    build_shards,
    is_sharded,
    open_index,
    upgrade_shards,
)
from ..index.store import build_index, upgrade_index
from ..index.view import SETUP, TO_MOVE
from ..pattern.diagram import SYMMETRIES as PATTERN_SYMMETRIES
from ..pattern.search import PatternResult
from ..sgf.inputs import special_file
from ..sgf.sources import find_inputs
from .options import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_FINDINGS,
    add_deprecated,
    add_exit_codes,
    add_format,
    add_jobs,
    add_overwrite,
    add_scheme,
    add_suicide,
    add_symmetry,
    add_variations,
    leaf,
    non_negative_int,
    positive_int,
)
from .progress import Reporter, reporter

__all__ = ["register"]

MAX_DIAGRAM_BYTES = 64 * 1024


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "index",
        help="search SGF collections for a position up to symmetry; find duplicate games",
        description="Build an SQLite index of every main-line position of SGF files (or "
        "every variation's too), find every game where a position occurred in any "
        "orientation or with colours exchanged (confirmed exactly, never by hash alone), "
        "list duplicate games, and show or trim what an index holds.",
    )
    commands = parser.add_subparsers(dest="index_command", metavar="ACTION", required=True)

    build = commands.add_parser(
        "build",
        help="create or extend an index",
        description="Index every game of PATH (SGF files, folders searched recursively for "
        "*.sgf, zip or tar archives, - for standard input).  A file already indexed "
        "with the same content is skipped, a changed one replaces its games, and one "
        "indexed by a gohash that read records differently is read again; a build commits "
        "whole files about once a second, so an interrupted build is completed by running "
        "it again.",
    )
    build.add_argument("db", metavar="DB", help="the index file (created if missing), or "
                       "the folder of a sharded index")
    build.add_argument("paths", nargs="+", metavar="PATH")
    build.add_argument(
        "--shards", type=positive_int, default=None, metavar="N",
        help="a sharded index: DB is a folder of N index files, each input in the shard "
        "a hash of its path names (docs/shards.md), --jobs shards built at once in worker "
        "processes; an existing sharded DB keeps its N",
    )
    _add_dask(build, "build the shards on the Dask scheduler tcp://HOST:PORT, or on local:N, "
              "a local cluster of N workers: one task per shard (a sharded DB only)")
    add_scheme(
        build, default=None,
        help=f"key scheme of a new index (default {DEFAULT_SCHEME}); an existing index "
        "keeps its own",
    )
    add_variations(
        build, help="a new index stores every variation's positions, not only the main "
        "line's (find reports the variation; dupes compares main lines); an existing "
        "index keeps what it was created with",
    )
    add_overwrite(build, "an index DB with a new one", "without it an index of another key "
                  "scheme, variations or version is refused, and one of the same kind extended")
    add_jobs(build)
    build.add_argument(
        "--files-per-commit", type=positive_int, default=None, metavar="N",
        help="write N whole files per transaction (default: the files of about a "
        "second); a build killed midway loses the files of its last transaction, "
        "which the next run indexes",
    )
    add_suicide(
        build, help=SUICIDE_HELP + "; files already indexed and unchanged are not replayed again"
    )
    add_exit_codes(build, files=True)
    leaf(build, _run_build)

    find = commands.add_parser(
        "find",
        help="every game and move where a position occurred",
        description="List every game and move number where the position occurred, up to "
        "the symmetries of --symmetry, with the element that maps the query onto it.  "
        "Positions are compared stone by stone (the side to move is ignored).",
    )
    find.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    _add_dask(find)
    query = find.add_mutually_exclusive_group()
    query.add_argument("--sgf", metavar="FILE",
                       help="take the position from an SGF file (- for standard input)")
    query.add_argument(
        "--position", metavar="DIAGRAM",
        help="an ASCII diagram as gohash prints boards (X black, O white, . empty): the "
        "text itself, a file holding it, or - for standard input",
    )
    find.add_argument(
        "--moves", metavar="MOVES",
        help="moves played from the empty board, or after --sgf's position: GTP points or "
        "pass, each by the side to move unless B or W comes before it ('Q16 D4 Q3 D16', "
        "'B Q16 W D4'), as the explorer's play mode does",
    )
    find.add_argument("--size", type=positive_int, metavar="N",
                      help="with --moves alone: the board's size (default 19)")
    find.add_argument("--move", type=non_negative_int, metavar="N",
                      help="with --sgf: after move N (default: the last)")
    find.add_argument("--game", type=non_negative_int, metavar="G",
                      help="with --sgf: game G of the file (from 0; default 0)")
    add_suicide(find, help="with --sgf: " + SUICIDE_HELP)
    add_symmetry(find)
    add_deprecated(find, "--no-colour-swap", "--symmetry d4", "symmetry", const="d4")
    add_format(find, ("text", "json"), help="result format")
    find.add_argument("--limit", type=non_negative_int, default=100, metavar="N",
                      help="show at most N matches (default 100; 0: all)")
    find.add_argument("--offset", type=non_negative_int, default=0, metavar="N",
                      help="skip the first N matches (for paging)")
    find.add_argument(
        "--continuations", action="store_true",
        help="instead of the games, the moves played next, seen in the query's orientation "
        "and colours, most played first, with results and dates (--limit: moves shown)",
    )
    find.add_argument(
        "--setup", choices=SETUP, default="exclude",
        help="with --continuations: occurrences that setup made or ended (handicap stones, "
        "the empty board before them) are left out and counted (exclude, the default), "
        "counted with the others (include), or kept alone (only)",
    )
    find.add_argument(
        "--to-move", choices=TO_MOVE,
        help="only occurrences with this side to move, in the query's colours (any: "
        "either side); default with --continuations: the query's, the record's side to "
        "move with --sgf (Black at first, then the opponent of the last mover), either "
        "side for a --position diagram (it has none); default without: either side",
    )
    _add_filters(find)
    add_exit_codes(find)
    leaf(find, _run_find)

    pattern = commands.add_parser(
        "pattern",
        help="every game where a corner, side or local shape occurred, and what came next",
        description="Find every game where a pattern occurred on the main line, placed up "
        "to --symmetry (a corner pattern in all four corners, a side pattern sliding along "
        "every side), with the next moves played in its region.  FILE holds the pattern as "
        "a full-board diagram, top row first: X black, O white, . empty, * anything, "
        "x black or empty, o white or empty, - outside the pattern (docs/patterns.md).",
    )
    pattern.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    _add_dask(pattern)
    pattern.add_argument("diagram", metavar="FILE",
                         help="the pattern diagram: a file, or - for standard input")
    pattern.add_argument("--symmetry", choices=PATTERN_SYMMETRIES, default="full",
                         help="full: rotations, reflections and colour exchange (default); "
                         "d4: rotations and reflections; none: as drawn")
    pattern.add_argument("--to-move", choices=("b", "w"),
                         help="only where this side is to move, in the pattern's colours")
    pattern.add_argument("--max-move", type=non_negative_int, metavar="N",
                         help="only hits up to move N")
    pattern.add_argument(
        "--sequence", metavar="MOVES",
        help="moves that must follow in the pattern's region, in order (other moves "
        "elsewhere in between allowed): colour and point pairs like 'B C3 W D4'",
    )
    add_format(pattern, ("text", "json"), help="result format")
    pattern.add_argument("--limit", type=non_negative_int, default=100, metavar="N",
                         help="show at most N games (default 100; 0: all)")
    pattern.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                         help="give up after SECONDS with what was counted so far, an error "
                         "(exit 2; default: no limit)")
    _add_filters(pattern)
    add_exit_codes(pattern)
    leaf(pattern, _run_pattern)

    player = commands.add_parser(
        "player",
        help="a player's games, results, openings and corner patterns",
        description="Find the player whose name holds NAME (case-insensitively; part of a "
        "name will do, in any script) and show their results by colour and year, their most "
        "played openings and corner patterns, and their games, as the explorer's player "
        "page does.  When several names hold NAME, they are listed with their games: "
        "give one of them.",
    )
    player.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    player.add_argument("name", metavar="NAME", help="the player's name, or part of it")
    add_format(player, ("text", "json"), help="result format")
    player.add_argument("--limit", type=non_negative_int, default=20, metavar="N",
                        help="show at most N games, most recent first (default 20; 0: all)")
    player.add_argument("--openings", type=positive_int, default=10, metavar="N",
                        help="show the N most played openings and corner patterns (default 10)")
    _add_dask(player)
    add_exit_codes(player)
    leaf(player, _run_player)

    dupes = commands.add_parser(
        "dupes",
        help="records that are the same game, or a prefix of another",
        description="Groups of records with the same sequence of main-line positions up to "
        "symmetry and colour exchange, and records whose sequence is a proper prefix of "
        "others'.",
    )
    dupes.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    _add_dask(dupes)
    dupes.add_argument(
        "--min-positions", type=positive_int, default=10, metavar="N",
        help="ignore records of fewer than N positions (default 10)",
    )
    add_format(dupes, ("text", "json"), help="result format")
    add_exit_codes(dupes, "duplicate or prefix games found")
    leaf(dupes, _run_dupes)

    info = commands.add_parser(
        "info",
        help="what an index holds and how it was built",
        description="The files, games and positions of an index, its key scheme, whether it "
        "holds variations, its format version, and the gohash versions that indexed its "
        "files (files indexed by a gohash that read records differently are read again "
        "by the next build given them).",
    )
    info.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    _add_dask(info)
    add_format(info, ("text", "json"), help="result format")
    add_exit_codes(info)
    leaf(info, _run_info)

    check = commands.add_parser(
        "check",
        help="check that an index is whole and consistent",
        description="Read every row of an index and check it: SQLite's integrity check, "
        "the schema and format version, the meta table, every value in range, references "
        "between tables, and every stored position (its frame decodes and gives its stored "
        "key under the index's key scheme).  Each fault is an error line.",
    )
    check.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    _add_dask(check)
    add_exit_codes(check)
    leaf(check, _run_check)

    remove = commands.add_parser(
        "remove",
        help="remove files from an index",
        description="Remove the games of files from an index, in one transaction.  PATH "
        "is as build was given it: a file, a folder (every file indexed under it) or an "
        "archive (all its members); positions no other game has go too.  The paths "
        "removed are printed.",
    )
    remove.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    remove.add_argument("paths", nargs="+", metavar="PATH")
    add_exit_codes(remove)
    leaf(remove, _run_remove)

    upgrade = commands.add_parser(
        "upgrade",
        help="rebuild an index of an earlier format version",
        description="Rebuild an index of an earlier format version in the current one, "
        "from the files it names (read again from their paths as indexed), with its key "
        "scheme, variations and suicide rules.  The index is replaced only if every "
        "file was found again; otherwise it is left as it was.  An index of format 4 is "
        "upgraded in place, without its files (format 5 adds the aggregates of frequent "
        "positions).",
    )
    upgrade.add_argument("db", metavar="DB", help="the index file, or a sharded index's "
                         "folder (its older shards are upgraded)")
    add_jobs(upgrade)
    add_exit_codes(upgrade, files=True)
    leaf(upgrade, _run_upgrade)


# -- build -------------------------------------------------------------------------------------


def _add_dask(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    parser.add_argument(
        "--dask", metavar="ADDRESS",
        help=help or "ask the shards of a sharded index on the Dask scheduler tcp://HOST:PORT "
        "(or local:N, a local cluster of N workers) instead of in threads here",
    )


def _open(args: argparse.Namespace) -> Index | ShardedIndex:
    return open_index(args.db, read_only=True, dask=args.dask)


def _run_build(args: argparse.Namespace) -> int:
    report = reporter(args)
    options = dict(scheme=args.scheme, variations=True if args.variations else None,
                   overwrite=args.overwrite, jobs=args.jobs,
                   files_per_commit=args.files_per_commit, progress=report.progress,
                   suicide_allowed=_suicide(args))
    if args.shards is not None or args.dask is not None or is_sharded(args.db):
        built = build_shards(args.db, args.paths, shards=args.shards, dask=args.dask, **options)
    else:
        built = build_index(args.db, args.paths, **options)
    summary, counts = built.summary, built.counts
    for note in summary.notes:
        report.note(note)
    for message in summary.errors:
        report.error(message)
    report.say(str(summary))
    if counts is None:
        report.say(f"some shards of {args.db} not built: build again to complete them"
                    if is_sharded(args.db) else f"no index written: {args.db} left as it was")
        return EXIT_ERRORS
    report.say(f"index {args.db}: {counted(counts['files'], 'file')}, "
               f"{counted(counts['games'], 'game')}, "
               f"{counted(counts['occurrences'], 'position')}, "
               f"{counts['positions']:,} distinct up to symmetry")
    return EXIT_ERRORS if summary.errors else EXIT_CLEAN


def _run_upgrade(args: argparse.Namespace) -> int:
    report = reporter(args)
    upgrade = upgrade_shards if is_sharded(args.db) else upgrade_index
    built = upgrade(args.db, jobs=args.jobs, progress=report.progress)
    summary, counts = built.summary, built.counts
    for note in summary.notes:
        report.note(note)
    for message in summary.errors:
        report.error(message)
    if counts is None:
        report.say(f"not upgraded: {args.db} left as it was")
        return EXIT_ERRORS
    report.say(str(summary))
    report.say(f"index {args.db}: format version {SCHEMA_VERSION}, "
               f"{counted(counts['files'], 'file')}, {counted(counts['games'], 'game')}, "
               f"{counted(counts['occurrences'], 'position')}")
    return EXIT_ERRORS if summary.errors else EXIT_CLEAN


def _suicide(args: argparse.Namespace) -> bool | None:
    return None if args.suicide is None else SUICIDE_OPTIONS[args.suicide]


# -- find --------------------------------------------------------------------------------------


def _query(args: argparse.Namespace) -> Board:
    if args.size is not None and (args.moves is None or args.sgf or args.position):
        raise GohashError("--size goes with --moves alone (from the empty board)")
    if args.sgf is not None:
        _check_one_file(args.sgf)
        board = position_from_sgf(args.sgf, args.move, game=args.game or 0,
                                  suicide_allowed=_suicide(args))
        return board if args.moves is None else play_moves(args.moves, board)
    for option, value in (("--move", args.move), ("--game", args.game),
                          ("--suicide", args.suicide)):
        if value is not None:
            other = ", not --position" if args.position is not None else ""
            raise GohashError(f"{option} goes with --sgf{other}")
    if args.position is None:
        if args.moves is None:
            raise GohashError("give the position: --sgf FILE, --position DIAGRAM or --moves")
        return play_moves(args.moves, Board(args.size or 19))
    if args.moves is not None:
        raise GohashError("--moves plays from the empty board or --sgf's position, "
                          "not a --position diagram")
    text = args.position
    if "\n" not in text and (text == "-" or os.path.isfile(text)):
        text = _read_text(text)
    return Board.from_diagram(text)


def _read_text(path: str) -> str:
    """A diagram from a file, or standard input for ``-``; at most
    :data:`MAX_DIAGRAM_BYTES`."""
    if path == "-":
        text = sys.stdin.read(MAX_DIAGRAM_BYTES + 1)
    else:
        special = special_file(path)
        if special is not None:  # a read could wait for ever: standard input is "-"
            raise GohashError(f"the diagram {path!r} is {special}, not a regular file: "
                              "not read (give - to read standard input)", file=path)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(MAX_DIAGRAM_BYTES + 1)
        except OSError as error:
            raise GohashError(f"cannot read the diagram {path!r}: {error.strerror}",
                              file=path) from None
    if len(text) > MAX_DIAGRAM_BYTES:
        raise GohashError(f"the diagram is larger than {MAX_DIAGRAM_BYTES} bytes")
    return text


def _check_one_file(path: str) -> None:
    """Refuse a folder or an archive for --sgf: their games have no one numbering."""
    if path != "-" and os.path.isdir(path):
        raise GohashError(f"--sgf takes one SGF file, not the folder {path!r}")
    (inp,) = find_inputs([path])
    if inp.kind in ("zip", "tar"):
        raise GohashError(f"--sgf takes one SGF file, not the {inp.format or inp.kind} "
                          f"archive {path!r}")


def _filters(args: argparse.Namespace) -> Filters | None:
    return Filters.from_values({spec.name: getattr(args, spec.name) for spec in FILTERS})


def _run_find(args: argparse.Namespace) -> int:
    if args.continuations and args.offset:
        raise GohashError("--offset pages through games, not --continuations")
    if args.setup != "exclude" and not args.continuations:
        raise GohashError("--setup goes with --continuations")
    filters = _filters(args)
    board = _query(args)
    with _open(args) as index:
        if args.continuations:
            # A diagram has no side to move: either, unless --to-move names one.
            to_move = args.to_move or ("any" if args.position is not None else "query")
            moves = index.continuations(
                board, symmetry=args.symmetry, filters=filters, to_move=to_move,
                limit=args.limit or None, setup=args.setup,
            )
            hex_key = index.keys(board.size).hex(moves.key)
            if args.format == "json":
                _print_json(moves.to_json())
            else:
                _print_continuations(moves, hex_key, reporter(args))
            return EXIT_CLEAN
        result = index.find(board, symmetry=args.symmetry,
                            limit=args.limit or None, offset=args.offset, filters=filters,
                            to_move=args.to_move)
        hex_key = index.keys(board.size).hex(result.key)
    report = reporter(args)
    rejected = (f"; {counted(result.rejected, 'other position')} share the key"
                if result.rejected else "")
    report.say(f"{board.size}x{board.size} position, key {hex_key}: "
               f"{counted(result.total, 'occurrence')}{rejected}")
    if args.format == "json":
        _print_json(result.to_json())
    else:
        _print_find(result, board.size)
    shown_to = result.offset + len(result.matches)
    if shown_to < result.total:
        report.say(f"showing {result.offset + 1:,}-{shown_to:,} of {result.total:,}: "
                   f"--offset {shown_to} for more, --limit 0 for all")
    return EXIT_CLEAN


def _print_find(result: FindResult, size: int) -> None:
    for m in result.matches:
        colours = ", colours exchanged" if m.colours_exchanged else ""
        record = m.record
        line = f"  variation {'.'.join(map(str, m.variation))}" if m.variation else ""
        about = ", ".join(x for x in (record.result, record.date) if x)
        nxt = "end" if m.next_move is None else (
            f"{m.next_move[0].upper()} {gtp(m.next_move[1], size)}")
        print(f"{record.file}  game {record.game}{line}  move {m.move_number}  "
              f"{m.element.name}{colours}  ({_players(record)}{', ' + about if about else ''})"
              f"  next {nxt}")


def _print_continuations(moves: Continuations, hex_key: str, report: Reporter) -> None:
    size = moves.size
    exchanged = f", {moves.exchanged_colours:,} with colours exchanged" if moves.total else ""
    side = {"b": "Black", "w": "White", None: "either side"}[moves.to_move]
    left_out = ""
    if moves.setup_left_out:
        which = "made or ended by setup" if moves.setup == "exclude" else "of play"
        other = "include" if moves.setup == "exclude" else "exclude"
        left_out = (f"; {counted(moves.setup_left_out, 'occurrence')} {which} left out "
                    f"(--setup {other} for {'them too' if other == 'include' else 'them'})")
    report.say(f"{size}x{size} position, {side} to move, key {hex_key}: "
               f"{counted(moves.total, 'occurrence')}{exchanged}; "
               f"{moves.ended:,} without a next move{left_out}")
    if not moves.total:
        return
    print(f"results: B {moves.black_wins:,}, W {moves.white_wins:,}, other {moves.other:,}")
    print(f"{'move':<6}{'count':>7}{'share':>8}{'B wins':>8}{'W wins':>8}{'other':>7}"
          f"{'same':>7}{'exch':>6}  first       last")
    for m in moves.moves:
        name = f"{m.colour.upper()} {gtp(m.point, size)}"
        print(f"{name:<6}{m.count:>7,}{m.share:>8.1%}{m.black_wins:>8,}{m.white_wins:>8,}"
              f"{m.other:>7,}{m.same_colours:>7,}{m.exchanged_colours:>6,}  "
              f"{m.first_date or '-':<10}  {m.last_date or '-'}")
    if moves.years:
        print("by year: " + ", ".join(f"{y} {n:,}" for y, n in moves.years.items()))


def _players(record: Record) -> str:
    black = " ".join(x for x in (record.black or "?", record.black_rank) if x)
    white = " ".join(x for x in (record.white or "?", record.white_rank) if x)
    return f"{black} (B) vs {white} (W)"


def _add_filters(parser: argparse.ArgumentParser) -> None:
    """The filters of find and pattern (:data:`~gohash.index.filters.FILTERS`)."""
    filters = parser.add_argument_group(
        "filters", "count only the games these let through (all that are given)"
    )
    for spec in FILTERS:
        if spec.kind == "yes_no":
            filters.add_argument(spec.option, action=argparse.BooleanOptionalAction,
                                 default=None, help=spec.help)
        elif spec.kind == "choice":
            filters.add_argument(spec.option, choices=[value for value, _ in spec.choices],
                                 help=spec.help)
        else:
            filters.add_argument(spec.option, metavar=spec.metavar, help=spec.help)


# -- pattern -----------------------------------------------------------------------------------


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds, more than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text!r}")
    return value


def _run_pattern(args: argparse.Namespace) -> int:
    filters = _filters(args)
    text = _read_text(args.diagram)
    with _open(args) as index:
        found = index.pattern(text, symmetry=args.symmetry, to_move=args.to_move,
                              max_move=args.max_move, sequence=args.sequence or (),
                              filters=filters, limit=args.limit or None, timeout=args.timeout)
    report = reporter(args)
    report.say(f"{found.pattern.size}x{found.pattern.size} pattern, "
               f"{counted(found.placements, 'placement')}: {counted(found.total, 'hit')} in "
               f"{counted(found.games, 'game')} ({found.candidates:,} of "
               f"{found.searched:,} games replayed)")
    if args.format == "json":
        _print_json(found.to_json())
    else:
        _print_pattern(found)
    if len(found.matches) < found.total:
        report.say(f"showing {len(found.matches):,} of {found.total:,} hits: --limit 0 for all")
    return EXIT_CLEAN


def _print_pattern(found: PatternResult[Record]) -> None:
    size = found.pattern.size
    if found.total:
        print(f"{'move':<6}{'count':>7}{'tenuki':>8}{'B wins':>8}{'W wins':>8}{'other':>7}"
              "  first       last")
    for m in found.continuations:
        name = f"{m.colour.upper()} {gtp(m.point, size)}"
        print(f"{name:<6}{m.count:>7,}{m.tenuki:>8,}{m.black_wins:>8,}{m.white_wins:>8,}"
              f"{m.other:>7,}  {m.first_date or '-':<10}  {m.last_date or '-'}")
    if found.total:
        print(f"{found.ended:,} without a next move in the region")
    for hit in found.matches:
        record = hit.record
        colours = ", colours exchanged" if hit.colours_exchanged else ""
        nxt = "-" if hit.continuation is None else (
            f"{hit.continuation[0].upper()} {gtp(hit.continuation[1], size)}"
            f"{' (tenuki)' if hit.tenuki else ''}")
        moved = "" if hit.offset == (0, 0) else f", moved {hit.offset[0]:+d},{hit.offset[1]:+d}"
        print(f"{record.file}  game {record.game}  move {hit.move_number}  {hit.element.name}"
              f"{moved}{colours}  ({_players(record)})  next {nxt}")


# -- player ------------------------------------------------------------------------------------


def _run_player(args: argparse.Namespace) -> int:
    report = reporter(args)
    with _open(args) as index:
        matches = index.players(args.name, limit=None)
        name = chosen_player(matches, args.name)
        if name is None:
            if not matches:
                raise GohashError(f"no player's name holds {args.name!r}")
            if args.format == "json":
                _print_json({"query": args.name,
                             "players": [m.to_json() for m in matches]})
            else:
                for match in matches:
                    print(f"{match.name}  {counted(match.games, 'game')}")
            report.say(f"{len(matches):,} players' names hold {args.name!r}: give one of them")
            return EXIT_CLEAN
        summary = index.player(name, openings=args.openings)
    if args.format == "json":
        _print_json(summary.page(0, args.limit or None).to_json())
    else:
        _print_player(summary, args.limit or None)
    report.say(f"{name}: {counted(len(summary.records), 'game')}")
    return EXIT_CLEAN


def _print_player(summary: PlayerSummary, limit: int | None) -> None:
    def results(r: Results) -> str:
        return f"{counted(r.games, 'game')}: {r.wins:,} won, {r.losses:,} lost, {r.other:,} other"

    print(f"{summary.name}")
    for colour, name in (("b", "Black"), ("w", "White")):
        print(f"  as {name}: {results(summary.colours[colour])}")
    for year, by_year in summary.years.items():
        print(f"  {year}: {results(by_year)}")
    for title, length, counted_, shapes in (
        ("openings", summary.opening_length, summary.openings_counted, summary.openings),
        ("corner patterns", summary.corner_length, summary.corners_counted, summary.corners),
    ):
        print(f"{title} of {length} moves ({counted_:,} counted):")
        for shape in shapes:
            moves = " ".join(f"{c.upper()} {gtp(p, shape.size)}" for c, p in shape.moves)
            years = (f"  {min(shape.years)}-{max(shape.years)}" if shape.years else "")
            print(f"  {shape.count:>6,}  {moves}  ({shape.results.wins:,} won, "
                  f"{shape.results.losses:,} lost){years}")
    shown = summary.records if limit is None else summary.records[:limit]
    print(f"games ({len(shown):,} of {len(summary.records):,}, most recent first):")
    for record in shown:
        about = ", ".join(x for x in (record.result, record.date) if x)
        print(f"  {record.file}  game {record.game}  ({_players(record)}"
              f"{', ' + about if about else ''})")


# -- dupes -------------------------------------------------------------------------------------


def _run_dupes(args: argparse.Namespace) -> int:
    with _open(args) as index:
        dupes = index.dupes(min_positions=args.min_positions)
    if args.format == "json":
        _print_json(dupes.to_json())
    else:
        for group in dupes.groups:
            print(f"same game ({counted(group.positions, 'position')}):")
            _print_group(group)
        for prefix in dupes.prefixes:
            print(f"prefix ({prefix.shorter.positions:,} of {prefix.longer.positions:,} "
                  "positions):")
            _print_group(prefix.shorter)
            print("  is the start of")
            _print_group(prefix.longer)
    reporter(args).say(
        f"{counted(len(dupes.groups), 'group')} of duplicates, "
        f"{counted(len(dupes.prefixes), 'prefix', 'prefixes')}"
    )
    return EXIT_FINDINGS if dupes.groups or dupes.prefixes else EXIT_CLEAN


def _print_group(group: DupeGroup) -> None:
    for record, g in zip(group.records, group.elements, strict=True):
        print(f"  {record.file}  game {record.game}  {g.name}  "
              f"({_players(record)}, {record.result or '?'})")


# -- info and remove ---------------------------------------------------------------------------


def _run_info(args: argparse.Namespace) -> int:
    with _open(args) as index:
        info = index.info()
    if args.format == "json":
        _print_json(info.to_json())
        return EXIT_CLEAN
    print(f"index {info.path}")
    print(f"  format version {info.schema_version}, key scheme {info.scheme}, "
          f"{'every variation' if info.variations else 'main lines only'}")
    print(f"  {counted(info.files, 'file')}, {counted(info.games, 'game')}, "
          f"{counted(info.positions, 'position')} ({info.distinct:,} distinct up to "
          f"symmetry), {counted(info.errors, 'error')}")
    versions = ", ".join(f"{version} ({counted(n, 'file')})"
                         for version, n in info.gohash_versions.items())
    print(f"  indexed by gohash {versions or '-'}")
    if info.outdated:
        print(f"  {counted(info.outdated, 'file')} indexed by a gohash that read records "
              f"differently (parse version other than {PARSE_VERSION}): index build reads "
              "them again")
    return EXIT_CLEAN


def _run_check(args: argparse.Namespace) -> int:
    report = reporter(args)
    with _open(args) as index:
        faults = index.check()
    for fault in faults:
        report.error(fault)
    report.say(f"index {args.db}: {counted(len(faults), 'fault')}")
    return EXIT_ERRORS if faults else EXIT_CLEAN


def _run_remove(args: argparse.Namespace) -> int:
    report = reporter(args)
    with open_index(args.db) as index:
        removed = index.remove(args.paths)
    for path in removed.files:
        print(path)
    for path in removed.missing:
        report.error(f"{path}: not in the index")
    report.say(f"{counted(len(removed.files), 'file')} removed "
               f"({counted(removed.games, 'game')}), {counted(report.errors, 'error')}")
    return EXIT_ERRORS if report.errors else EXIT_CLEAN


def _print_json(document: object) -> None:
    """One JSON document on standard output; never a non-JSON number (``Infinity``,
    ``NaN``): the index's values are checked, and this holds it to that."""
    print(json.dumps(document, ensure_ascii=False, allow_nan=False))
