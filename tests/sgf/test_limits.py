"""Limits bound what input expands to, not only the bytes read (defect 5, issue 22):
point-list rectangles, values repeated in a node, setup points in a game and in
a file, the undo history of a line, the nesting of variations; and each input's
decompression budget (tar with every codec, zip entries sharing one stream,
archives in files read whole, packed datasets), with hand-made packed parts.
Each hostile file gives one clear limit error (or a correct result) and
``gohash canon`` stays under 200 MB (the budget's bombs: 400 and 800 MB),
measured as the peak RSS of the command run in a child process."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gohash.errors import GohashError, HistoryLimitError, SgfBudgetError, SgfError, SgfLimitError
from gohash.go.board import MAX_HISTORY, Board
from gohash.sgf import pack
from gohash.sgf.inputs import MAX_SOURCE_BYTES, PACK_MARKER, Budget, Source, budget_for
from gohash.sgf.pack import slices
from gohash.sgf.parser import (
    MAX_DEPTH,
    MAX_GAME_SETUP_POINTS,
    MAX_NODE_SETUP_POINTS,
    MAX_NODE_VALUES,
    MAX_SOURCE_SETUP_POINTS,
    NODE,
    OPEN,
    Limits,
    decode_point_list,
    game_events,
)
from gohash.sgf.sources import find_inputs, read_input
from gohash.sgf.walk import MAX_FILE_ERRORS, MAX_FILE_NOTES, BaseVisitor, walk_source
from tests.support.env import CORPUS
from tests.support.hostile import (
    GAME,
    dictionary_bomb,
    overlapping_zip,
    pack_columns,
    packed,
    siblings,
    tar_of,
)

COMMAND = Path(sys.executable).parent / "gohash"
RSS_LIMIT_KIB = 200 * 1000  # 200 MB
# Runs a command and reports its exit code, the peak RSS of it (the only child)
# and its standard error; standard output goes to a file.
MEASURE = """
import json, resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    done = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE, timeout=600)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps([done.returncode, peak, done.stderr.decode("utf-8", "replace")]))
"""


def canon(tmp_path: Path, data: bytes, *options: str) -> tuple[int, int, list[str], Path]:
    """``gohash canon`` of ``data``: exit code, peak RSS in KiB, stderr lines, output file."""
    assert COMMAND.exists(), f"install gohash first: pip install -e . (no {COMMAND})"
    path = tmp_path / "hostile.sgf"
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    report = subprocess.run(
        [sys.executable, "-c", MEASURE, str(out), str(COMMAND), "canon", *options, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    ).stdout
    code, peak, stderr = json.loads(report)
    return code, peak, stderr.splitlines(), out


class Errors(BaseVisitor):
    """Keeps the errors; abandons the game at each, as the commands do."""

    def __init__(self) -> None:
        self.errors: list[GohashError] = []

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return False


def parse_all(data: bytes, limits: Limits) -> int:
    """Parse every game; the number of nodes."""
    nodes = 0
    for game in game_events(data, "t.sgf", limits=limits):
        nodes += sum(kind == NODE for kind, _ in game.events())
    return nodes


# -- the parser's limits, small ---------------------------------------------------------------


def test_values_in_one_node() -> None:
    limits = Limits(node_values=10)
    assert parse_all(b"(;SZ[9]" + b"C[x]" * 9 + b";B[aa]" + b"C[]" * 9 + b")", limits) == 2
    for node in [b"C[x]" * 11, b"AB[aa]" + b"[bb]" * 10, b"C[x]" * 6 + b"MA[aa][bb][cc][dd][ee]"]:
        with pytest.raises(SgfLimitError, match="has more than the limit of 10 property values"):
            parse_all(b"(;SZ[9]" + node + b")", limits)
    # Values beyond the tokeniser's bounds (17 values, 17 escapes) are counted too.
    for node in [b"C[x]" * 9 + b"AB" + b"[aa]" * 17, b"C[x]" * 10 + b"C[" + b"\\]" * 17 + b"]"]:
        with pytest.raises(SgfLimitError, match="has more than the limit of 10 property values"):
            parse_all(b"(;SZ[9]" + node + b")", limits)
    # The move fast path counts too: B[aa] and 10 more.
    with pytest.raises(SgfLimitError, match="limit of 10 property values"):
        parse_all(b"(;SZ[9];B[aa]" + b"C[]" * 10 + b")", limits)


def test_setup_points_in_a_node_a_game_and_a_file() -> None:
    limits = Limits(node_setup_points=81, game_setup_points=200, source_setup_points=500)
    assert parse_all(b"(;SZ[9]AB[aa:ii])", limits) == 1
    assert parse_all(b"(;SZ[9]AB[aa:ie]AW[af:ii])", limits) == 1  # 45 + 36
    with pytest.raises(SgfLimitError, match="the node names more than the limit of 81 setup"):
        parse_all(b"(;SZ[9]AB[aa:ii]AE[aa])", limits)
    with pytest.raises(SgfLimitError, match="the game names more than the limit of 200 setup"):
        parse_all(b"(;SZ[9]AB[aa:ii];AE[aa:ii](;AB[aa:ii])(;AW[aa]))", limits)
    games = b"(;SZ[9]AB[aa:ii];AE[aa:ii])" * 3  # 162 points each
    assert parse_all(games, limits) == 6
    with pytest.raises(SgfLimitError, match="the file names more than the limit of 500 setup"):
        parse_all(games + b"(;SZ[9]AB[aa:ii])", limits)
    # A rectangle counts its area whichever corners name it; a bad value counts one.
    node = b"(;SZ[9]AB[ia:ai][ai:ia][zz:zy][a:bcd])"  # 81 + 81 + 2 + 1
    assert parse_all(node, Limits(node_setup_points=165)) == 1
    with pytest.raises(SgfLimitError, match="limit of 164 setup points"):
        parse_all(node, Limits(node_setup_points=164))


def test_the_defaults() -> None:
    assert (MAX_NODE_VALUES, MAX_NODE_SETUP_POINTS) == (10_000, 4 * 26 * 26)
    assert (MAX_GAME_SETUP_POINTS, MAX_SOURCE_SETUP_POINTS) == (1_000_000, 10_000_000)
    assert (MAX_DEPTH, MAX_HISTORY) == (200_000, 200_000)
    assert Limits() == Limits(1024 * 1024, MAX_DEPTH, 10_000, 2704, 1_000_000, 10_000_000)


def test_board_history_limit() -> None:
    board = Board(9, max_history=3)
    board.setup([(0, 0)])
    board.play((1, 1), "w")
    board.pass_("b")
    before = board.position_key(), board.move_number
    for step in [lambda: board.play((2, 2), "w"), lambda: board.pass_("w"), board.setup]:
        with pytest.raises(HistoryLimitError, match="at its limit of 3 steps"):
            step()
        assert (board.position_key(), board.move_number) == before
    board.undo()
    board.play((2, 2), "w")  # room again
    assert (board.get((2, 2)), board.move_number) == ("w", 2)
    unbounded = Board(9, max_history=None)
    for _ in range(10):
        unbounded.pass_("b")
    assert unbounded.move_number == 10


def test_walker_reports_the_history_limit_and_goes_on() -> None:
    data = b"(;SZ[9]" + b";B[];W[]" * (MAX_HISTORY // 2) + b";B[])(;SZ[9];B[aa])"
    visitor = Errors()
    summary = walk_source(Source("p.sgf", data), visitor)
    (error,) = visitor.errors
    assert str(error) == (
        f"p.sgf, game 0, move {MAX_HISTORY + 1}: the board's undo history is at its limit "
        f"of {MAX_HISTORY:,} steps (plays, passes and setups not undone)"
    )
    assert summary.games == 2 and summary.positions == MAX_HISTORY + 1 + 2


# -- real records stay far from the limits ------------------------------------------------




@pytest.mark.corpus
def test_real_collections_are_far_from_every_limit() -> None:
    """Every record of the corpus, parsed: its largest node, game, file, nesting and
    line stay below a tenth of each limit."""
    files = sorted(CORPUS.rglob("*.sgf"))
    assert len(files) > 9000, f"{CORPUS} holds only {len(files)} records"
    largest = dict.fromkeys(["values", "node", "game", "file", "depth", "line"], 0)
    for path in files:
        in_file = 0
        for game in game_events(path.read_bytes(), str(path)):
            in_game = depth = line = 0
            lines = []
            for kind, props in game.events():
                if kind == NODE:
                    assert props is not None
                    line += "B" in props or "W" in props
                    largest["line"] = max(largest["line"], line)
                    largest["values"] = max(largest["values"], sum(map(len, props.values())))
                    if not _SETUP.isdisjoint(props):
                        points = sum(_points(props.get(p, [])) for p in _SETUP)
                        line += 1
                        in_game += points
                        largest["node"] = max(largest["node"], points)
                elif kind == OPEN:
                    depth += 1
                    lines.append(line)
                    largest["depth"] = max(largest["depth"], depth)
                else:
                    depth -= 1
                    line = lines.pop()
            largest["game"] = max(largest["game"], in_game)
            in_file += in_game
        largest["file"] = max(largest["file"], in_file)
    limits = {
        "values": MAX_NODE_VALUES,
        "node": MAX_NODE_SETUP_POINTS,
        "game": MAX_GAME_SETUP_POINTS,
        "file": MAX_SOURCE_SETUP_POINTS,
        "depth": MAX_DEPTH,
        "line": MAX_HISTORY,
    }
    assert all(largest[k] < limits[k] / 10 for k in limits), largest


def _points(values: list[bytes]) -> int:
    return sum(len(decode_point_list([v], 26)) if b":" in v else 1 for v in values)


_SETUP = frozenset(("AB", "AW", "AE"))


def test_large_problem_collections_are_read() -> None:
    """Problem collections hold many full-board setups: 2,000 problems of a whole board
    of stones each, as games of one file or as variations of one game, are read."""
    # Black fills the top nine lines but for an eye, white the bottom nine point by
    # point, the middle line is empty: 343 setup points.
    white = b"".join(b"[%c%c]" % (97 + col, 97 + row) for row in range(10, 19) for col in range(19))
    problem = b"C[problem]AB[aa:si]AE[aa]AW" + white + b";B[aj];W[bj]"
    games = b"".join(b"(;GM[1]SZ[19]" + problem + b")" for _ in range(2000))
    one_game = b"(;GM[1]SZ[19]" + b"".join(b"(;" + problem + b")" for _ in range(2000)) + b")"
    for data, variations, positions in [(games, False, 2000 * 3), (one_game, True, 1 + 2000 * 3)]:
        summary = walk_source(Source("problems.sgf", data), Errors(), variations=variations)
        assert summary.errors == []
        assert summary.positions == positions


# -- hostile files through the command, with its peak memory ------------------------------------


RECTANGLE = b"AB[aa:ss]"  # the whole 19x19 board: 361 points from 9 bytes


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        (
            "the reported file: 140 KB of rectangles",
            b"(;SZ[26]AB" + b"[aa:zz]" * 20_000 + b")",
            "has more than the limit of 10,000 property values",
        ),
        (
            "rectangles in one node",
            b"(;SZ[19]" + RECTANGLE * 20_000 + b")",
            "the node names more than the limit of 2,704 setup points",
        ),
        (
            "rectangles over 20,000 nodes",
            b"(;SZ[19]" + b";" + b";".join([RECTANGLE] * 20_000) + b")",
            "the game names more than the limit of 1,000,000 setup points",
        ),
        (
            "AB and AE alternating",
            b"(;SZ[19]" + b";AB[aa:ss];AE[aa:ss]" * 10_000 + b")",
            "the game names more than the limit of 1,000,000 setup points",
        ),
        (
            "AB and AW alternating",
            b"(;SZ[19]" + b";AB[aa:ss];AW[aa:ss]" * 10_000 + b")",
            "the game names more than the limit of 1,000,000 setup points",
        ),
        (
            "AB and AW alternating in variations",
            b"(;SZ[19]" + b"(;AB[aa:ss];AW[aa:ss])" * 10_000 + b")",
            "the game names more than the limit of 1,000,000 setup points",
        ),
        (
            "repeated properties in one node",
            b"(;SZ[19]" + b"C[x]" * 1_000_000 + b")",
            "has more than the limit of 10,000 property values",
        ),
        (
            "repeated points in one node",
            b"(;SZ[19]AB" + b"[aa]" * 1_000_000 + b")",
            "has more than the limit of 10,000 property values",
        ),
        (
            "escapes in one value",
            b"(;SZ[19]C[" + b"\\]" * 3_000_000 + b"])",
            "property b'C' at byte 8 is larger than the limit of 1,048,576 bytes",
        ),
        (
            "deep variations",
            b"(;SZ[19]" + b"(;C[]" * 300_000 + b")" * 300_001,
            "variations nested deeper than the limit of 200,000",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and " " in v else "",
)
def test_hostile_files_stay_small(tmp_path: Path, name: str, data: bytes, reason: str) -> None:
    for options in [(), ("--variations",)]:
        code, peak, stderr, _ = canon(tmp_path, data, *options)
        assert peak < RSS_LIMIT_KIB, f"{name}: {peak} KiB"
        assert code == 2
        (error,) = [line for line in stderr if line.startswith("gohash canon: error: ")]
        # The move is unknown when the limit is met in a variation that is not
        # replayed (it is only read to find where the game ends): the byte is given.
        assert error.startswith(f"gohash canon: error: {tmp_path / 'hostile.sgf'}, game 0")
        assert reason in error


def test_64_mib_of_passes(tmp_path: Path) -> None:
    # Undo history grows on the main line; 64 MiB of ";B[]" once needed some 1.6 GB.
    head = b"(;SZ[19]"
    data = head + b";B[]" * ((64 * 1024 * 1024 - len(head) - 1) // 4) + b")"
    assert len(data) <= 64 * 1024 * 1024
    code, peak, stderr, out = canon(tmp_path, data)
    assert peak < RSS_LIMIT_KIB, f"{peak} KiB"
    assert code == 2
    assert stderr[0] == (
        f"gohash canon: error: {tmp_path / 'hostile.sgf'}, game 0, move {MAX_HISTORY + 1}: "
        "the board's undo "
        f"history is at its limit of {MAX_HISTORY:,} steps (plays, passes and setups not undone)"
    )
    with out.open() as f:
        assert sum(1 for _ in f) == MAX_HISTORY + 1  # every position up to the limit


def test_a_flood_of_broken_games_is_cut_at_the_error_limit(tmp_path: Path) -> None:
    # 8 MB of "(;SZ[0])": a million games, each an error.  Kept whole, with their
    # tracebacks, they once took 3.1 GB.
    data = b"(;SZ[0])" * (8 * 1024 * 1024 // 8)
    code, peak, stderr, _ = canon(tmp_path, data)
    assert peak < RSS_LIMIT_KIB, f"{peak} KiB"
    assert code == 2
    errors = [line for line in stderr if line.startswith("gohash canon: error: ")]
    assert len(errors) == MAX_FILE_ERRORS + 1
    assert errors[0].endswith("board size SZ[0] is outside 1..26")
    assert errors[-1].endswith(
        f"more than {MAX_FILE_ERRORS:,} errors in this file: the rest of it is skipped"
    )


def test_a_flood_of_notes_is_cut_at_the_note_limit(tmp_path: Path) -> None:
    data = b"(;HA[x])" * (8 * 1024 * 1024 // 8)
    # --verbose: every note kept is shown (by default a kind's first only, then
    # its count before the summary).
    code, peak, stderr, out = canon(tmp_path, data, "--verbose")
    assert peak < RSS_LIMIT_KIB, f"{peak} KiB"
    assert code == 0
    notes = [line for line in stderr if "note" in line]
    assert len(notes) == MAX_FILE_NOTES + 1
    assert notes[-1].endswith(f"more than {MAX_FILE_NOTES:,} notes; the rest are not kept")
    with out.open() as f:  # every game's position is still there
        assert sum(1 for _ in f) == len(data) // 8


class GoOn(Errors):
    """Keeps the errors and goes on with the game, as the superko checker does."""

    def handle_error(self, error: GohashError) -> bool:
        self.errors.append(error)
        return True


def test_errors_within_one_game_are_cut_at_the_error_limit() -> None:
    data = b"(;SZ[9]" + b";B[zz]" * (MAX_FILE_ERRORS * 3) + b")(;SZ[9];B[aa])"
    visitor = GoOn()
    summary = walk_source(Source("t.sgf", data), visitor)
    assert len(visitor.errors) == len(summary.errors) == MAX_FILE_ERRORS + 1
    assert "bad coordinates b'zz'" in str(visitor.errors[0])
    assert isinstance(visitor.errors[-1], SgfLimitError)
    assert all(e.__traceback__ is None for e in summary.errors)
    assert summary.games == 1  # the file ends there: the second game is not read


# -- what an input expands to: archives, packed datasets, the budget ----------------------


MIB = 1024 * 1024
COMPRESS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


def read_all(path: Path | str, budget: Budget | None = None) -> list[Source | SgfError]:
    return [s for inp in find_inputs([str(path)]) for s in read_input(inp, budget=budget)]


@pytest.mark.parametrize("codec", ["", "gz", "bz2", "xz"])
def test_a_tar_is_read_within_its_budget(tmp_path: Path, codec: str) -> None:
    """The members read or skipped count: a non-SGF member of 4 MiB of zeros, in a
    budget of 3 MiB, ends the archive with one error naming it, after the
    record before it and before the one after it."""
    data = tar_of([("a.sgf", GAME), ("big.bin", bytes(4 * MIB)), ("b.sgf", GAME)])
    path = tmp_path / (f"t.tar.{codec}" if codec else "t.tar")
    path.write_bytes(COMPRESS[codec](data) if codec else data)
    first, error = read_all(path, Budget(3 * MIB, 60))
    assert isinstance(first, Source) and first.name == f"{path}:a.sgf"
    assert isinstance(error, SgfBudgetError) and error.file == str(path)
    assert str(error) == (f"{path}: the input expands to more than its budget of 3,145,728 "
                          "bytes (decompressed, members read or skipped counted): the rest "
                          "of it is not read")
    assert [s.name for s in read_all(path, Budget(5 * MIB, 60))] == [
        f"{path}:a.sgf", f"{path}:b.sgf"]


# Not gzip with flipped bytes: deflate may decode them to other bytes, and its
# checksum is at the end of the stream, which a tar's reading stops before.
@pytest.mark.parametrize(("codec", "damage"), [
    ("gz", "cut"), ("bz2", "cut"), ("xz", "cut"), ("bz2", "flipped"), ("xz", "flipped")])
def test_a_damaged_compressed_tar_is_one_error(tmp_path: Path, codec: str, damage: str) -> None:
    """Decompressed by gzip, bz2 and lzma, not tarfile: their errors are still one
    error naming the archive."""
    data = bytearray(COMPRESS[codec](tar_of([("a.sgf", GAME * 5000), ("b.sgf", GAME)])))
    if damage == "cut":
        del data[len(data) // 2 :]
    else:
        data[len(data) // 2 : len(data) // 2 + 2] = bytes(b ^ 0xFF for b in data[len(data) // 2 :
                                                                              len(data) // 2 + 2])
    path = tmp_path / f"t.tar.{codec}"
    path.write_bytes(data)
    *_, error = read_all(path)
    assert isinstance(error, SgfError) and str(error).startswith(f"{path}: cannot read ")


def test_cpu_seconds_are_budgeted_too(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.bz2"
    path.write_bytes(bz2.compress(tar_of([("big.bin", bytes(8 * MIB)), ("b.sgf", GAME)])))
    (error,) = read_all(path, Budget(1 << 40, 1e-9))
    assert isinstance(error, SgfBudgetError)
    assert "took more than its budget of 1e-09 CPU seconds to decompress" in str(error)


def test_the_default_budget_grows_with_the_input() -> None:
    assert budget_for(0) == Budget(256 * MIB, 30.0)
    assert budget_for(10 * MIB) == Budget(1000 * MIB, 30.0)
    assert budget_for(100 * MIB) == Budget(10_000 * MIB, 100.0)


def test_zip_entries_sharing_one_stream_count_once_each(tmp_path: Path) -> None:
    path = tmp_path / "overlap.zip"
    overlapping_zip(path, 1000, GAME + b" " * (MIB - len(GAME)))
    found = read_all(path, Budget(5 * MIB + 1, 60))
    assert [type(s) for s in found] == [Source] * 5 + [SgfBudgetError]
    assert found[-1].file == str(path)


def test_an_archive_in_a_file_found_in_a_folder_is_budgeted(tmp_path: Path) -> None:
    """Data read whole (a *.sgf in a folder) that is an archive is read within the
    budget too; an archive inside an archive's member is not opened: it is text."""
    (tmp_path / "games").mkdir()
    bomb = lzma.compress(tar_of([("big.bin", bytes(4 * MIB)), ("b.sgf", GAME)]))
    (tmp_path / "games" / "bomb.sgf").write_bytes(bomb)
    (error,) = read_all(tmp_path / "games", Budget(MIB, 60))
    assert isinstance(error, SgfBudgetError) and error.file.endswith("bomb.sgf")
    outer = tmp_path / "outer.tar.gz"
    outer.write_bytes(gzip.compress(tar_of([("inner.sgf", bomb)])))
    (inner,) = read_all(outer)
    assert isinstance(inner, Source) and inner.data == bomb


def test_a_tar_bomb_through_the_command(tmp_path: Path) -> None:
    """A 100-entry zip of one 64 MiB stream (70 KB): the default budget stops it after
    four entries, and the file given before it is written."""
    overlapping_zip(tmp_path / "overlap.zip", 100, bytes(64 * MIB))
    (tmp_path / "good.sgf").write_bytes(GAME)
    code, peak, stderr, out = canon_paths(tmp_path, [tmp_path / "good.sgf",
                                                     tmp_path / "overlap.zip"])
    assert code == 2
    assert peak < 400 * 1000, f"{peak} KiB"
    assert stderr[-2] == (
        f"gohash canon: error: {tmp_path / 'overlap.zip'}: the input expands to more than its "
        "budget of 268,435,456 bytes (decompressed, members read or skipped counted): the "
        "rest of it is not read")
    assert stderr[-1] == "gohash canon: 5 files, 1 game, 3 positions, 5 errors"
    assert len(out.read_text().splitlines()) == 3


def canon_paths(tmp_path: Path, paths: list[Path]) -> tuple[int, int, list[str], Path]:
    """``gohash canon`` of ``paths``: exit code, peak RSS in KiB, stderr lines, output."""
    out = tmp_path / "out.jsonl"
    report = subprocess.run(
        [sys.executable, "-c", MEASURE, str(out), str(COMMAND), "canon", *map(str, paths)],
        capture_output=True, text=True, check=True, timeout=300,
    ).stdout
    code, peak, stderr = json.loads(report)
    return code, peak, stderr.splitlines(), out


pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda c: c.update(notes=pa.array([True])),
         "not a packed part: column 'notes' is 'bool', not list<string>"),
        (lambda c: c.update(sha256=pa.array([b"x"], pa.binary())),
         "not a packed part: column 'sha256' is 'binary', not fixed_size_binary(32)"),
        (lambda c: c.pop("path"), "not a packed part: no column 'path'"),
    ],
)
def test_packed_parts_of_the_wrong_shape(tmp_path: Path, change: Any, reason: str) -> None:
    columns = pack_columns([GAME])
    change(columns)
    folder = packed(tmp_path / "pack", columns)
    (error,) = read_all(folder)
    assert str(error) == f"{folder / 'part-00000.parquet'}: {reason}"


def test_a_packed_part_with_two_data_columns(tmp_path: Path) -> None:
    columns = pack_columns([GAME])
    # A dict holds one "data": the second goes in by a name the table then repeats.
    columns["data2"] = pa.array([GAME], pa.binary())
    folder = packed(tmp_path / "pack", columns)
    part = folder / "part-00000.parquet"
    table = pq.read_table(part)
    pq.write_table(table.rename_columns([*table.column_names[:-1], "data"]), part)
    (error,) = read_all(folder)
    assert str(error) == f"{folder / 'part-00000.parquet'}: not a packed part: 2 columns 'data'"


@pytest.mark.parametrize(
    ("marker", "reason"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('{"format": "gohash-pack", "version": 1, "parts": [' + "[" * 10_000,
         "nested too deeply"),
        ("\xff", "Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_hand_made_pack_markers(tmp_path: Path, marker: str, reason: str) -> None:
    folder = packed(tmp_path / "pack", pack_columns([GAME]), marker)
    (error,) = read_all(folder)
    assert str(error) == (f"{folder}: cannot read the packed dataset's marker "
                          f"{PACK_MARKER}: {reason}")


def test_a_packed_row_group_is_read_within_the_budget(tmp_path: Path) -> None:
    """Thirty equal records of 1 MiB compress to almost nothing (a dictionary of one
    value): they are read a record at a time and count against the budget."""
    record = GAME + b" " * (MIB - len(GAME))
    folder = packed(tmp_path / "pack", pack_columns([record] * 30))
    part = folder / "part-00000.parquet"
    assert pq.ParquetFile(part).metadata.row_group(0).column(1).has_dictionary_page
    # Every column counts (issue 31): a record's path, digest and offsets too.
    found = read_all(folder, Budget(3 * MIB + 1000, 60))
    assert [type(s) for s in found] == [Source] * 3 + [SgfBudgetError]
    assert found[-1].file == str(part)
    assert len(read_all(folder, Budget(31 * MIB, 60))) == 30


def test_a_packed_part_with_more_columns_is_read_by_its_data_column(tmp_path: Path) -> None:
    """Columns beyond pack's are left alone; a nested one before ``data`` (three
    Parquet columns) does not make another column be taken for it."""
    record = GAME + b" " * (MIB - len(GAME))
    extra = pa.array([{"a": 1, "b": 2, "c": b"x" * 10}] * 30)
    folder = packed(tmp_path / "pack", {"extra": extra, **pack_columns([record] * 30)},
                    dictionary=False)
    (piece,) = slices(str(folder / "part-00000.parquet"), 1 << 40)
    assert 30 * MIB <= piece.bytes < 31 * MIB
    assert [s.data for s in read_all(folder)] == [record] * 30


def test_the_slices_of_a_part_share_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty row groups of dictionary bombs, read as twenty slices (as Dask
    partitions read them): together they produce no more than the part's budget."""
    record = GAME + b" " * (MIB - len(GAME))
    folder = packed(tmp_path / "pack", dictionary_bomb(record, 200), store_schema=False,
                    row_group_size=10)
    part = folder / "part-00000.parquet"
    # Every column counts (issue 31): room for eight records' paths and digests too.
    monkeypatch.setattr(pack, "budget_for", lambda size: Budget(8 * MIB + 1000, 60))
    pieces = slices(str(part), 1)
    assert len(pieces) == 20
    found = [s for piece in pieces for s in pack.read_slice(piece)]
    assert sum(len(s.data) for s in found if isinstance(s, Source)) <= 8 * MIB + 1000
    assert sum(isinstance(s, SgfBudgetError) for s in found) == 20
    whole = list(pack.read_slice(pack.PackedSlice(str(part), tuple(range(20)), 0)))
    assert [type(s) for s in whole] == [Source] * 8 + [SgfBudgetError]


def test_a_packed_record_beyond_the_limit_is_not_read(tmp_path: Path) -> None:
    folder = packed(tmp_path / "pack", pack_columns([bytes(MAX_SOURCE_BYTES + 2 * MIB)]),
                    dictionary=False)
    (error,) = read_all(folder)
    assert isinstance(error, SgfLimitError)
    assert str(error) == (f"{folder / 'part-00000.parquet'}: row group 0 holds one record "
                          f"larger than the limit of {MAX_SOURCE_BYTES:,} bytes")


def test_a_packed_dictionary_bomb_through_the_command(tmp_path: Path) -> None:
    """Thirty records of 60 MB in a 3 KB part: once 5.9 GB; now the default budget
    ends the part after four records, a record at a time in memory."""
    record = b"(;" + b" " * (60_000_000 - 4) + b")"
    folder = packed(tmp_path / "pack", dictionary_bomb(record, 30), store_schema=False)
    code, peak, stderr, _ = canon_paths(tmp_path, [folder])
    assert code == 2
    assert peak < 800 * 1000, f"{peak} KiB"
    assert stderr[-2].startswith(f"gohash canon: error: {folder / 'part-00000.parquet'}: the "
                                 "input expands to more than its budget of 268,435,456 bytes")


SIBLINGS = 200_000


def test_every_variation_of_a_game_of_200000_sibling_variations_is_linear(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The build and canon, bounded in CPU time (not the wall clock) at some ten times
    # what their linear work takes: a quadratic one takes minutes.
    from gohash.cli import main
    from gohash.index.index import Index

    path = tmp_path / "siblings.sgf"
    path.write_bytes(siblings(SIBLINGS))
    began = time.process_time()
    with Index(tmp_path / "i.db", create=True, variations=True) as index:
        summary = index.build([str(path)])
        assert (summary.games, summary.positions) == (1, SIBLINGS + 2)
        rows = index._db.execute(
            "SELECT count(*), max(seq), max(path) FROM variations").fetchone()
        assert rows == (SIBLINGS - 1, SIBLINGS + 1, "99999")
    assert main(["canon", "--variations", str(path), "-o", str(tmp_path / "out.jsonl")]) == 0
    with open(tmp_path / "out.jsonl") as f:
        lines = [json.loads(line) for line in f]
    assert [line["variation"] for line in lines[-2:]] == [[SIBLINGS - 2], [SIBLINGS - 1]]
    assert len(lines) == SIBLINGS + 2
    assert time.process_time() - began < 60
    capsys.readouterr()
