"""Tests of gohash.index: packing twins, canonical frames, exact search of rotated,
mirrored and colour-swapped copies, a deliberately weak key scheme, incremental
builds, duplicates and prefixes, and bad index files.

The collections are generated here: random legal games, written as SGF, and
copies of them with every coordinate mapped by a group element (and B/W
exchanged for the swap elements).  The helpers are shared with
``test_index_resume.py``.
"""

from __future__ import annotations

import random
import sqlite3
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gohash.errors import IndexFileError, PositionError
from gohash.go.board import Board
from gohash.group.schemes import scheme
from gohash.group.symmetry import ELEMENTS, element
from gohash.index.find import position_from_sgf
from gohash.index.index import Index
from gohash.pipeline.frames import (
    canonical_frame,
    canonical_frames,
    pack_array,
    pack_arrays,
    unpack_frames,
)
from gohash.sgf.walk import BaseVisitor, PositionEvent, walk_paths
from tests.support.indexes import (
    Move,
    array_at,
    consistency_problems,
    random_game,
    sgf,
    table_dump,
    transformed,
    weak_scheme,
    write_game,
)

# -- generated collections --------------------------------------------------------------------


COPY_ELEMENTS = ("rot90", "rot180", "flip", "transpose", "swap", "rot270_swap", "flipud_swap",
                 "antitranspose_swap")


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[int, list[Move]]]]:
    """Originals on 9x9, 13x13 and 19x19, each with copies under COPY_ELEMENTS."""
    folder = tmp_path_factory.mktemp("copies")
    rng = random.Random(6)
    games = [(size, random_game(rng, size, moves))
             for size, moves in ((9, 50), (9, 70), (13, 80), (19, 120), (19, 60))]
    for n, (size, moves) in enumerate(games):
        write_game(folder, f"g{n}-identity.sgf", size, moves)
        for name in COPY_ELEMENTS:
            write_game(folder, f"g{n}-{name}.sgf", size, transformed(moves, element(name), size))
    return folder, games


@pytest.fixture(scope="module")
def copies_index(
    copies: tuple[Path, list[tuple[int, list[Move]]]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    db = tmp_path_factory.mktemp("db") / "copies.db"
    with Index(db, create=True) as index:
        summary = index.build([str(copies[0])])
    assert summary.errors == []
    assert summary.files_indexed == 5 * (1 + len(COPY_ELEMENTS))
    return db


# -- packing and canonical frames -------------------------------------------------------------


def boards_of(rng: random.Random, size: int, moves: int) -> list[Board]:
    board = Board(size)
    out = [board.copy()]
    for colour, point in random_game(rng, size, moves):
        if point is None:
            board.pass_(colour)
        else:
            board.play(point, colour)
        out.append(board.copy())
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 19), st.integers(0, 40), st.randoms(use_true_random=False))
def test_packing_twins_agree_with_position_key(size: int, moves: int, rng: random.Random) -> None:
    boards = boards_of(rng, size, moves)
    arrays = np.stack([b.to_array() for b in boards])
    packed = pack_arrays(arrays)
    assert packed == [pack_array(a) for a in arrays] == [b.position_key() for b in boards]
    assert np.array_equal(unpack_frames(b"".join(packed), len(boards), size), arrays)


def symmetric_positions(size: int) -> list[npt.NDArray[np.int8]]:
    """Positions whose hashes several elements fix: where frames need the slow path."""
    empty = np.zeros((size, size), np.int8)
    centre = empty.copy()
    centre[size // 2, size // 2] = 1
    corners = empty.copy()
    corners[0, 0] = corners[-1, -1] = 1
    corners[0, -1] = corners[-1, 0] = 2
    mirror = empty.copy()
    mirror[1, 2] = 1
    mirror[1, size - 3] = 2
    return [empty, centre, corners, mirror]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([3, 5, 8, 9, 13, 19]), st.integers(0, 30), st.randoms(use_true_random=False),
       st.sampled_from(["huima64", "huima64-add", "regular64", "regular128"]))
def test_canonical_frames_twin_and_invariance(
    size: int, moves: int, rng: random.Random, name: str
) -> None:
    keys = scheme(name, size)
    arrays = [b.to_array() for b in boards_of(rng, size, moves)] + symmetric_positions(size)
    batch = canonical_frames(np.stack(arrays), keys)
    for i, arr in enumerate(arrays):
        key, frame, g = canonical_frame(arr, keys)
        assert (batch[0][i], batch[1][i], batch[2][i]) == (key, frame, g.index)
        assert pack_array(g.image_array(arr)) == frame
        # The frame is a canonical form: every image of the position has it.
        image = ELEMENTS[rng.randrange(16)].image_array(arr)
        assert canonical_frame(image, keys)[:2] == (key, frame)


# -- find -------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", range(5))
def test_find_returns_every_copy_with_its_transform(
    copies: tuple[Path, list[tuple[int, list[Move]]]], copies_index: Path, game: int
) -> None:
    folder, games = copies
    last = len(games[game][1])
    with Index(copies_index) as index:
        for move in (1, 7, last // 2, last):
            query = array_at(folder / f"g{game}-identity.sgf", move)
            # An empty board (game 4 opens with a pass) is its own colour-swapped image.
            swap_symmetric = any(np.array_equal(g.image_array(query), query) for g in ELEMENTS[8:])
            result = index.find(query, limit=None)
            found = {m.record.file: m for m in result.matches if m.move_number == move}
            for name in ("identity", *COPY_ELEMENTS):
                path = str(folder / f"g{game}-{name}.sgf")
                match = found[path]
                assert np.array_equal(match.element.image_array(query), array_at(Path(path), move))
                if not swap_symmetric:
                    assert match.colours_exchanged == element(name).swap
            assert result.total == len(result.matches)

            d4_only = index.find(query, symmetry="d4", limit=None)
            files = {m.record.file for m in d4_only.matches if m.move_number == move}
            assert files == {str(folder / f"g{game}-{n}.sgf") for n in
                             ("identity", *COPY_ELEMENTS) if swap_symmetric or not element(n).swap}
            assert all(not m.element.swap for m in d4_only.matches)


class _Positions(BaseVisitor):
    def __init__(self) -> None:
        self.rows: list[tuple[str, int, npt.NDArray[np.int8]]] = []

    def visit_position(self, event: PositionEvent) -> None:
        self.rows.append((event.file, event.move_number, event.board.to_array()))


Stack = tuple[list[tuple[str, int]], npt.NDArray[np.int8]]


@cache
def collection_positions(folder: str) -> dict[int, Stack]:
    """Every (file, move) of a collection and its position, stacked per board size."""
    visitor = _Positions()
    walk_paths([folder], visitor)
    by_size: dict[int, tuple[list[tuple[str, int]], list[npt.NDArray[np.int8]]]] = {}
    for file, move, position in visitor.rows:
        places, arrays = by_size.setdefault(position.shape[0], ([], []))
        places.append((file, move))
        arrays.append(position)
    return {size: (places, np.stack(arrays)) for size, (places, arrays) in by_size.items()}


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_find_equals_brute_force_over_the_collection(
    copies: tuple[Path, list[tuple[int, list[Move]]]], copies_index: Path, data: st.DataObject
) -> None:
    """Differential: every (file, move) whose position is an image of the query, by
    comparing the query's images with every position of the collection."""
    stacks = collection_positions(str(copies[0]))
    places, arrays = stacks[data.draw(st.sampled_from(sorted(stacks)))]
    query = arrays[data.draw(st.integers(0, len(places) - 1))].copy()
    if data.draw(st.booleans()):  # often absent from the collection, sometimes not
        row, col = data.draw(st.tuples(*[st.integers(0, query.shape[0] - 1)] * 2))
        query[row, col] = data.draw(st.sampled_from([0, 1, 2]))
    query = data.draw(st.sampled_from(ELEMENTS)).image_array(query)
    try:
        Board.from_array(query)
    except PositionError:  # the change left a group without liberties
        return
    colour_swap = data.draw(st.booleans())
    group = ELEMENTS if colour_swap else ELEMENTS[:8]
    hits = np.zeros(len(places), dtype=bool)
    for g in group:
        hits |= (arrays == g.image_array(query)).all(axis=(1, 2))
    expected = {places[i] for i in np.flatnonzero(hits)}
    with Index(copies_index) as index:
        result = index.find(query, symmetry="full" if colour_swap else "d4", limit=None)
    assert {(m.record.file, m.move_number) for m in result.matches} == expected
    assert result.total == len(result.matches)
    for m in result.matches:
        assert m.element in group
        position = arrays[places.index((m.record.file, m.move_number))]
        assert np.array_equal(m.element.image_array(query), position)


def test_find_pages_through_many_occurrences(copies_index: Path) -> None:
    with Index(copies_index) as index:
        everything = index.find(np.zeros((9, 9), np.int8), limit=None)
        # The empty 9x9 board begins each of the 18 9x9 games.
        assert everything.total == len(everything.matches) == 18
        pages = [index.find(np.zeros((9, 9), np.int8), limit=5, offset=o) for o in range(0, 18, 5)]
        assert [m for page in pages for m in page.matches] == everything.matches
        assert all(page.total == 18 for page in pages)


def test_find_position_absent_from_the_index(copies_index: Path) -> None:
    lonely = np.zeros((9, 9), np.int8)
    lonely[0, 0] = lonely[0, 1] = lonely[1, 0] = 1
    with Index(copies_index) as index:
        assert index.find(lonely).total == 0
        assert index.find(np.zeros((7, 7), np.int8)).total == 0


def test_weak_scheme_collisions_are_never_returned(
    copies: tuple[Path, list[tuple[int, list[Move]]]], copies_index: Path, tmp_path: Path
) -> None:
    folder, games = copies
    with Index(tmp_path / "weak.db", create=True, scheme=weak_scheme) as weak, \
            Index(copies_index) as strong:
        weak.build([str(folder)])
        assert weak.scheme_name == "weak8"
        rejected = 0
        for game, (_, moves) in enumerate(games):
            for move in range(0, len(moves), 9):
                query = array_at(folder / f"g{game}-identity.sgf", move)
                got = weak.find(query, limit=None)
                want = strong.find(query, limit=None)
                assert [(m.record.file, m.move_number, m.element) for m in got.matches] == \
                    [(m.record.file, m.move_number, m.element) for m in want.matches]
                for m in got.matches:
                    assert np.array_equal(
                        m.element.image_array(query), array_at(Path(m.record.file), m.move_number)
                    )
                rejected += got.rejected
        # The test means something only if the weak keys did collide.
        assert rejected > 100
    with pytest.raises(IndexFileError, match="'weak8', not 'huima64'"):
        Index(tmp_path / "weak.db", scheme="huima64")


def test_regular128_index_finds_copies(
    copies: tuple[Path, list[tuple[int, list[Move]]]], tmp_path: Path
) -> None:
    folder = copies[0]
    with Index(tmp_path / "r128.db", create=True, scheme="regular128") as index:
        index.build([str(folder / "g3-identity.sgf"), str(folder / "g3-rot270_swap.sgf")])
    with Index(tmp_path / "r128.db") as index:
        assert index.scheme_name == "regular128"
        query = array_at(folder / "g3-identity.sgf", 40)
        result = index.find(query)
        assert [(Path(m.record.file).name, m.element.name) for m in result.matches] == [
            ("g3-identity.sgf", "identity"), ("g3-rot270_swap.sgf", "rot270_swap")]


def test_position_from_sgf_errors(copies: tuple[Path, list[tuple[int, list[Move]]]]) -> None:
    path = str(copies[0] / "g0-identity.sgf")
    assert position_from_sgf(path, 0).to_array().sum() == 0
    with pytest.raises(ValueError, match="beyond the end"):
        position_from_sgf(path, 51)
    with pytest.raises(ValueError, match="no game 3"):
        position_from_sgf(path, game=3)


def test_position_from_sgf_picks_the_game_and_move(tmp_path: Path) -> None:
    collection = tmp_path / "two.sgf"
    collection.write_text(
        "(;SZ[5];B[aa];W[bb];B[cc])(;SZ[5]AB[ee];W[dd];AW[ab];B[cc])"
    )
    second = position_from_sgf(str(collection), 1, game=1)
    # Move 1 of game 1 is W[dd]; the setup node after it keeps its move number.
    assert str(second).splitlines() == [
        "5 . . . . .",
        "4 O . . . .",
        "3 . . . . .",
        "2 . . . O .",
        "1 . . . . X",
        "  A B C D E",
    ]
    assert position_from_sgf(str(collection), game=1).to_array().sum() == 1 + 2 + 2 + 1
    assert position_from_sgf(str(collection)).to_array().sum() == 1 + 2 + 1


# -- building ---------------------------------------------------------------------------------


def test_rebuild_skips_unchanged_and_replaces_changed_files(tmp_path: Path) -> None:
    rng = random.Random(3)
    folder = tmp_path / "games"
    folder.mkdir()
    for n in range(6):
        write_game(folder, f"{n}.sgf", 9, random_game(rng, 9, 40))
    db = tmp_path / "index.db"
    with Index(db, create=True) as index:
        first = index.build([str(folder)])
        assert (first.files_indexed, first.games) == (6, 6)
        again = index.build([str(folder) + "/"])
        assert (again.files_indexed, again.files_unchanged) == (0, 6)

        replacement = random_game(rng, 9, 25)
        (folder / "2.sgf").write_text(sgf(9, replacement) + sgf(9, replacement[:10]))
        changed = index.build([str(folder)])
        assert (changed.files_indexed, changed.files_replaced, changed.games) == (1, 1, 2)
        assert index.counts()["games"] == 7
    assert consistency_problems(db) == []

    fresh = tmp_path / "fresh.db"
    with Index(fresh, create=True) as index:
        index.build([str(folder)])
    assert table_dump(fresh) == table_dump(db)


def test_parallel_build_equals_serial(
    copies: tuple[Path, list[tuple[int, list[Move]]]], copies_index: Path, tmp_path: Path
) -> None:
    with Index(tmp_path / "parallel.db", create=True) as index:
        summary = index.build([str(copies[0])], jobs=2)
    assert summary.files_indexed == 5 * (1 + len(COPY_ELEMENTS))
    assert table_dump(tmp_path / "parallel.db") == table_dump(copies_index)


def test_errors_are_recorded_and_the_build_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "a-illegal.sgf").write_text("(;SZ[9];B[ee];W[ee];B[dd])(;SZ[9];B[aa])")
    (folder / "b-syntax.sgf").write_text("(;SZ[9];B[ee]")
    (folder / "c-good.sgf").write_text("(;SZ[9];B[cc];W[gg])")
    with Index(tmp_path / "index.db", create=True) as index:
        summary = index.build([str(folder), str(folder / "missing.sgf")])
        assert summary.files_indexed == 3
        assert len(summary.errors) == 3
        assert any("a-illegal.sgf, game 0, move 2" in e for e in summary.errors)
        assert any("missing.sgf" in e for e in summary.errors)
        # The illegal game is indexed up to its error; the next game in the file too.
        games = {(Path(r.file).name, r.game): r.moves for r in index.records().values()}
        assert games == {("a-illegal.sgf", 0): 1, ("a-illegal.sgf", 1): 1, ("c-good.sgf", 0): 2}


# -- dupes ------------------------------------------------------------------------------------


def test_dupes_finds_planted_duplicates_and_prefixes(tmp_path: Path) -> None:
    rng = random.Random(11)
    folder = tmp_path / "collection"
    folder.mkdir()
    a, b = random_game(rng, 19, 80), random_game(rng, 19, 60)
    write_game(folder, "a.sgf", 19, a)
    write_game(folder, "a-copy.sgf", 19, a)
    write_game(folder, "a-rot90-swap.sgf", 19, transformed(a, element("rot90_swap"), 19))
    write_game(folder, "a-prefix-transpose.sgf", 19, transformed(a[:30], element("transpose"), 19))
    write_game(folder, "a-prefix-short.sgf", 19, a[:4])
    write_game(folder, "b.sgf", 19, b)
    write_game(folder, "b-variant.sgf", 19, b[:40] + random_game(rng, 19, 1))
    with Index(tmp_path / "index.db", create=True) as index:
        index.build([str(folder)])
        dupes = index.dupes()
    names = [[Path(r.file).name for r in g.records] for g in dupes.groups]
    assert names == [["a-copy.sgf", "a-rot90-swap.sgf", "a.sgf"]]
    group = dupes.groups[0]
    assert group.positions == 81
    last = array_at(folder / "a.sgf", 80)
    for record, g in zip(group.records, group.elements, strict=True):
        assert np.array_equal(g.image_array(last), array_at(Path(record.file), 80))
    prefixes = [([Path(r.file).name for r in p.shorter.records],
                 [Path(r.file).name for r in p.longer.records]) for p in dupes.prefixes]
    # a-prefix-short has 5 positions, fewer than the default minimum of 10.
    assert prefixes == [(["a-prefix-transpose.sgf"], ["a-copy.sgf", "a-rot90-swap.sgf", "a.sgf"])]


# -- bad index files ----------------------------------------------------------------------------


def test_bad_index_files_give_clear_errors(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    with pytest.raises(IndexFileError, match="not an SQLite database"):
        Index(text)
    with pytest.raises(IndexFileError, match="no such index"):
        Index(tmp_path / "missing.db")
    with pytest.raises(IndexFileError, match="a folder, not an index"):
        Index(tmp_path, create=True)

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE t (x)")
    with pytest.raises(IndexFileError, match="not a gohash index"):
        Index(other)

    old = tmp_path / "old.db"
    Index(old, create=True).close()
    with pytest.raises(IndexFileError, match="built with key scheme 'regular128', not 'regular64'"):
        Index(old, create=True, scheme="regular64")
    with sqlite3.connect(old) as con:
        con.execute("PRAGMA user_version = 99")
    with pytest.raises(IndexFileError, match="schema version 99; this gohash reads version 7"):
        Index(old)
    damaged = tmp_path / "damaged.db"
    with Index(damaged, create=True) as index:
        index.build([str(write_game(tmp_path, "g.sgf", 9, random_game(random.Random(1), 9, 30)))])
    with damaged.open("r+b") as f:
        f.seek(4096)
        f.write(b"\xff" * (damaged.stat().st_size - 4096))
    with pytest.raises(IndexFileError, match="malformed"), Index(damaged) as index:
        index.find(np.zeros((9, 9), np.int8))

    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(IndexFileError, match="empty"):
        Index(empty)
    Index(empty, create=True).close()
    assert Index(empty).counts()["files"] == 0
