"""read_positions(): the compiled core against the pure walker, column for column, error
for error, note for note; the columns' meaning against Board and sgfmill; batches,
GOHASH_PURE and a missing core."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sgfmill import boards, sgf

from gohash import ELEMENTS, _native
from gohash.errors import GohashError
from gohash.go.board import MAX_HISTORY, Board
from gohash.group.schemes import SCHEMES, scheme
from gohash.metadata import TEXT_PROPERTIES
from gohash.pipeline import positions as positions_module
from gohash.pipeline.positions import CORE_AVAILABLE, read_positions
from gohash.sgf.inputs import Source
from gohash.sgf.parser import (
    MAX_GAME_SETUP_POINTS,
    MAX_NODE_SETUP_POINTS,
    MAX_NODE_VALUES,
    MAX_SOURCE_SETUP_POINTS,
)
from gohash.sgf.walk import _LOOKAHEAD, BaseVisitor, PositionEvent, walk_paths, walk_source
from tests.support.positions import DATA, DATA_FILES, assert_same_as_pure, flatten
from tests.support.symmetry import design_map

OPTIONS = [
    {},
    {"variations": True, "packed": True},
    {"scheme": "huima64-add", "packed": True},
    {"scheme": "regular64", "symmetry": "d4", "variations": True},
    {"scheme": "regular128", "packed": True, "variations": True},
    {"frames": True, "symmetry": "d4", "suicide_allowed": True},
    {"scheme": "huima64-add", "frames": True, "variations": True, "suicide_allowed": False},
]


def test_core_is_built() -> None:
    # Every differential test below would compare the pure path with itself.
    assert CORE_AVAILABLE


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_data_files_compiled_equals_pure(options: dict[str, Any]) -> None:
    flat = assert_same_as_pure(DATA_FILES, **options)
    # The files include errors (superko/; suicides as the rule says) and a note (HA
    # without AB): the pure walker's own, reached through the core's refusals.
    suicides = {None: 2, True: 0, False: 4}[options.get("suicide_allowed")]
    assert len(flat["errors"]) == 2 + suicides and len(flat["notes"]) >= 1


def test_errors_and_notes_are_the_walkers(tmp_path: Path) -> None:
    (tmp_path / "bad.sgf").write_bytes(b"(;SZ[5];B[cc];W[cc])")
    (tmp_path / "ha.sgf").write_bytes(b"(;SZ[9]HA[2];W[ee])")
    paths = [str(tmp_path / "bad.sgf"), str(tmp_path / "missing.sgf"), str(tmp_path / "ha.sgf")]
    (batch,) = read_positions(paths)
    # Written out, not asked of the walker: both files go to the walker, so its
    # own report would be compared with itself.  cc on 5x5 is C3 (row 5-1-2);
    # GTP's two handicap stones on 9x9 are C3 and G7.
    assert [str(e) for e in batch.errors] == [
        f"{paths[0]}, game 0, move 2: white at 'C3' is occupied",
        f"{paths[1]}: no such file or folder",
    ]
    assert batch.notes == [f"{paths[2]}, game 0: HA[2] without AB: placed GTP fixed handicap C3 G7"]
    assert batch.pure_files == 2
    # Each error and note with its file; the missing file has no id.
    assert batch.files == {0: paths[0], 1: paths[2]}
    assert batch.error_files == [0, -1] and batch.note_files == [1]
    assert sum(batch.file_games.values()) == 2
    assert_same_as_pure(paths)


def test_errors_notes_and_games_by_file() -> None:
    """Per file, as walk_source counts and reports them: a game abandoned at its
    root counts as read; notes on how a source was read come first, on either path."""
    sources = [
        Source("clean.sgf", b"(;SZ[9];B[aa];W[bb])(;SZ[9];B[cc])", notes=("read from UTF-16",)),
        Source("badroot.sgf", b"(;SZ[99];B[aa])(;SZ[9];B[cc];W[cc])"),
        Source("noted.sgf", b"(;SZ[9]RU[Lunar];B[aa])", notes=("read from UTF-16",)),
    ]
    flat = assert_same_as_pure(sources)
    for source in sources:
        summary = walk_source(source, _Keep())
        assert [n for n, f in zip(flat["notes"], flat["note_files"], strict=True)
                if f == source.name] == summary.notes
        assert [e[1] for e, f in zip(flat["errors"], flat["error_files"], strict=True)
                if f == source.name] == [str(e) for e in summary.errors]
        assert dict(flat["file_games"])[source.name] == summary.games
    assert flat["notes"][0] == "clean.sgf: read from UTF-16"
    (batch,) = read_positions(sources[:1])
    assert batch.pure_files == 0 and batch.notes == ["clean.sgf: read from UTF-16"]


def test_notes_of_clean_games_are_the_walkers(tmp_path: Path) -> None:
    """An RU gohash does not know is noted by the walker, and the core leaves
    that file to it; a UTF-16 file's reading note comes on either path (the core
    once dropped both notes)."""
    (tmp_path / "ru.sgf").write_bytes(b"(;SZ[9]RU[Foo];B[ee];W[dd])")
    (tmp_path / "utf16.sgf").write_bytes("(;SZ[9];B[ee];W[dd])".encode("utf-16"))
    (tmp_path / "known.sgf").write_bytes(b"(;SZ[9]RU[Japanese];B[ee];W[dd])")
    paths = [str(tmp_path / name) for name in ("ru.sgf", "utf16.sgf", "known.sgf")]
    (batch,) = read_positions(paths)
    # Written out, not asked of the walker.
    assert batch.notes == [
        f"{paths[0]}, game 0: RU[Foo] is not a ruleset gohash knows: the default, chinese, "
        "applies",
        f"{paths[1]}: text is UTF-16-LE (byte-order mark): decoded to UTF-8",
    ]
    assert batch.pure_file_ids == [0]
    assert_same_as_pure(paths)


def design_images(arrays: np.ndarray) -> list[np.ndarray]:
    """The 16 images of every position in ``arrays[B, row, col]``, in table order,
    drawn with the point maps of docs/design.md, section "The 16 elements" (colours
    exchanged by the ``swap`` elements)."""
    count, size = arrays.shape[0], arrays.shape[1]
    flat = arrays.reshape(count, size * size)
    exchange = np.array([0, 2, 1], dtype=flat.dtype)
    images = []
    for g in ELEMENTS:
        source = np.empty(size * size, dtype=np.intp)  # image.flat[j] = board.flat[source[j]]
        for row in range(size):
            for col in range(size):
                r, c = design_map(g.name, (row, col), size)
                source[r * size + c] = row * size + col
        image = exchange[flat[:, source]] if g.swap else flat[:, source]
        images.append(image.reshape(count, size, size))
    return images


@pytest.mark.parametrize("name", SCHEMES)
def test_hashes_and_packed_positions_are_the_boards(name: str) -> None:
    """Every row's hash is that of the exact position it carries, hashed afresh from
    the position by numpy; its canonical key is the least hash of the position's
    16 images and its transform the element onto its frame: of the elements giving
    that hash, the first whose image is least (:mod:`gohash.pipeline.frames`; only where two
    different images share the least hash does it differ from the first element
    giving it, as regular64 has it for mirror-symmetric positions), by brute
    force, without the transform or canonical code of the schemes."""
    (batch,) = read_positions(DATA_FILES, scheme=name, packed=True, variations=True)
    for size in np.unique(batch.size).tolist():
        rows = np.flatnonzero(batch.size == size)
        keys = scheme(name, size)
        arrays = np.stack([Board.from_position_key(batch.packed(i)).to_array() for i in rows])
        assert np.array_equal(keys.hash_arrays(arrays), batch.hash[rows])
        drawn = design_images(arrays)
        images = [keys.to_ints(keys.hash_arrays(image)) for image in drawn]
        per_row = [list(hashes) for hashes in zip(*images, strict=True)]
        assert keys.to_ints(batch.canonical[rows]) == [min(hashes) for hashes in per_row]
        # Images compare as their packings do: digits in row-major order.
        assert batch.transform[rows].tolist() == [
            min((drawn[g][i].tobytes(), g) for g in range(16) if h[g] == min(h))[1]
            for i, h in enumerate(per_row)
        ]


class _Keep(BaseVisitor):
    def handle_error(self, error: Exception) -> bool:  # type: ignore[override]
        return False


class Boards(BaseVisitor):
    def __init__(self) -> None:
        self.rows: list[tuple[int, int, str | None, bytes, int]] = []

    def visit_position(self, event: PositionEvent) -> None:
        board = event.board
        self.rows.append((event.game, event.move_number, event.colour, board.position_key(),
                          board.hash))

    def handle_error(self, error: Exception) -> bool:  # type: ignore[override]
        return False


@pytest.mark.parametrize("name", SCHEMES)
def test_rows_are_the_walkers_positions(name: str) -> None:
    visitor = Boards()
    walk_paths(DATA_FILES, visitor, board_options={"scheme": name})
    (batch,) = read_positions(DATA_FILES, packed=True, scheme=name)
    hashes = scheme(name, 19).to_ints(batch.hash)
    colours = {0: None, 1: "b", 2: "w"}
    rows = [
        (g, m, colours[c], batch.packed(i), h)
        for i, (g, m, c, h) in enumerate(
            zip(batch.game.tolist(), batch.move_number.tolist(), batch.colour.tolist(),
                hashes, strict=True)
        )
    ]
    assert rows == visitor.rows
    assert batch.pure_files < len(DATA_FILES) / 2


class Depths(BaseVisitor):
    def __init__(self) -> None:
        self.rows: list[tuple[int, tuple[int, ...], int, int]] = []

    def visit_position(self, event: PositionEvent) -> None:
        self.rows.append((event.game, event.variation, event.move_number, event.depth))

    def handle_error(self, error: Exception) -> bool:  # type: ignore[override]
        return False


def test_depth_is_the_walkers() -> None:
    """The compiled core's depth column is the walker's PositionEvent.depth, in every
    variation (the pure path copies it; the equality tests above compare the two)."""
    nested = (b"(;SZ[9]AB[aa];B[bb](;W[cc](;B[dd];AE[aa];W[ee])(;B[ff](;W[gg])(;AW[hh])))"
              b"(;W[ii];B[ab])(;AB[cd]))")
    path = DATA / "variations-9x9.sgf"
    sources = [Source(str(path), path.read_bytes()), Source("nested.sgf", nested)]
    visitor = Depths()
    for source in sources:
        walk_source(source, visitor, variations=True)
    (batch,) = read_positions(sources, variations=True, pure=False)
    assert batch.pure_files == 0
    rows = [
        (g, batch.variations[v], m, d)
        for g, v, m, d in zip(batch.game.tolist(), batch.variation.tolist(),
                              batch.move_number.tolist(), batch.depth.tolist(), strict=True)
    ]
    assert rows == visitor.rows
    assert max(d for *_, d in rows) > 1 and len({v for _, v, _, _ in rows}) > 1


def test_columns_against_sgfmill() -> None:
    """Points, colours, side to move and stones of a real record, from sgfmill's replay."""
    path = DATA / "game-9x9.sgf"
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    board = boards.Board(9)
    expected = []
    for number, node in enumerate(game.get_main_sequence()[1:], start=1):
        colour, point = node.get_move()
        assert colour is not None
        if point is not None:
            board.play(point[0], point[1], colour)
        stones = sorted((p, c) for c, p in board.list_occupied_points())
        index = -1 if point is None else point[0] * 9 + point[1]
        expected.append((number, " bw".index(colour), index, 2 if colour == "b" else 1, stones))
    (batch,) = read_positions([str(path)], packed=True)
    assert batch.pure_files == 0
    got = []
    for i in range(1, len(batch)):
        cells = Board.from_position_key(batch.packed(i)).to_array()
        stones = sorted(
            ((int(r), int(c)), "b" if cells[r, c] == 1 else "w") for r, c in zip(*cells.nonzero(),
                                                                                strict=True)
        )
        got.append((int(batch.move_number[i]), int(batch.colour[i]), int(batch.point[i]),
                    int(batch.to_move[i]), stones))
    assert got == expected
    assert batch.colour[0] == 0 and batch.point[0] == -1 and batch.move_number[0] == 0


def test_variations_and_metadata() -> None:
    data = (b"(;GM[1]SZ[9]PB[Black \\] name]PW[W]RE[B+R]HA[2]AB[cc][gg]KM[0.5]"
            b";W[ee](;B[dd];W[ff](;B[gc])(;B[cg]))(;B[ff]))")
    (batch,) = read_positions([Source("v.sgf", data)], variations=True)
    assert batch.pure_files == 0
    paths = [batch.variations[v] for v in batch.variation]
    assert paths == [(), (), (), (), (), (0, 1), (1,)]
    assert batch.move_number.tolist() == [0, 1, 2, 3, 4, 4, 2]
    # Positions before each on its line: a branch goes back to its branch point's.
    assert batch.depth.tolist() == [0, 1, 2, 3, 4, 4, 2]
    assert batch.setup.tolist() == [True] + [False] * 6
    games = batch.games
    assert (games.size.tolist(), games.handicap.tolist()) == ([9], [2])
    assert games.text["PB"] == ["Black ] name"] and games.text["KM"] == ["0.5"]
    assert games.text["DT"] == [None]


def test_batches_end_between_games_in_order() -> None:
    small = list(read_positions(DATA_FILES, batch_size=1))
    # One game a batch: every batch holds the rows of exactly one game.
    for batch in small:
        assert len(set(zip(batch.file.tolist(), batch.game.tolist(), strict=True))) <= 1
    names = [name for b in small for name in b.files.values()]
    assert list(dict.fromkeys(names)) == DATA_FILES
    (whole,) = read_positions(DATA_FILES)
    assert sum(len(b) for b in small) == len(whole)
    # Cut anywhere, the batches say what one batch says.
    for batch_size in (1, 2, 7, 64):
        cut = flatten(list(read_positions(DATA_FILES, batch_size=batch_size, variations=True)))
        one = flatten(list(read_positions(DATA_FILES, variations=True)))
        merged = {}
        for name, count in cut.pop("file_games"):
            merged[name] = merged.get(name, 0) + count
        assert merged == dict(one.pop("file_games"))
        for key in one:
            assert np.array_equal(cut[key], one[key]) if isinstance(one[key], np.ndarray) \
                else cut[key] == one[key], key
    for name, column in whole.columns().items():
        assert column.flags.c_contiguous, name  # so Arrow takes it without a copy
    assert whole.packed_offsets is None
    with pytest.raises(GohashError, match="not requested"):
        whole.packed(0)


@pytest.mark.parametrize("batch_size", [1, 3, 1 << 16])
def test_the_walker_takes_a_file_over_from_the_game_the_core_leaves(batch_size: int) -> None:
    """Games the core replays stay the core's; from the first it leaves (an
    occupied point in game 2, an unknown RU in game 4), the walker replays the
    rest of the file, with its errors and notes, exactly as the pure path."""
    clean = b"(;SZ[9];B[aa];W[bb];B[cc])"
    data = (clean * 2 + b"(;SZ[9];B[cc];W[cc])" + clean + b"(;SZ[9]RU[Lunar];B[ee])"
            + clean)
    source = Source("mixed.sgf", data)
    flat = assert_same_as_pure([source], batch_size=batch_size)
    batches = list(read_positions([source], batch_size=batch_size))
    assert {f for b in batches for f in b.walker_from.values()} == {2}
    assert sum(b.pure_files for b in batches) >= 1
    core_games = {g for b in batches for f, g in zip(b.file.tolist(), b.game.tolist(),
                                                      strict=True) if g < b.walker_from.get(f, 99)}
    assert core_games == {0, 1}
    assert [e[1] for e in flat["errors"]] == [
        "mixed.sgf, game 2, move 2: white at 'C7' is occupied"
    ]
    assert flat["notes"] == [
        "mixed.sgf, game 4: RU[Lunar] is not a ruleset gohash knows: the default, chinese, "
        "applies"
    ]
    assert sum(n for _, n in flat["file_games"]) == 6


def test_gohash_pure_forces_the_walker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOHASH_PURE", "1")
    (batch,) = read_positions(DATA_FILES)
    assert batch.pure_files == len(DATA_FILES)
    assert batch.pure_file_ids == list(range(len(DATA_FILES)))
    monkeypatch.setenv("GOHASH_PURE", "0")
    (batch,) = read_positions(DATA_FILES)
    assert batch.pure_files < len(DATA_FILES) / 2


def test_missing_core_says_so_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_native, "core", None)
    monkeypatch.setattr(positions_module, "_warned", False)
    monkeypatch.delenv("GOHASH_PURE", raising=False)
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    first = list(read_positions(DATA_FILES[:2]))
    second = list(read_positions(DATA_FILES[:2]))
    assert err.getvalue().count("compiled core is not built") == 1
    assert [b.pure_files for b in first + second] == [2, 2]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown key scheme"):
        list(read_positions(DATA_FILES, scheme="nope"))
    with pytest.raises(ValueError):
        list(read_positions(DATA_FILES, symmetry="nope"))


@pytest.mark.parametrize(
    "data",
    [
        b"(;SZ[9]C[" + b"x" * (1024 * 1024 + 1) + b"];B[aa])",
        b"(;SZ[9]" + b"(;B[aa]" * 20_000 + b")" * 20_001,
        b"\xef\xbb\xbf(;SZ[9];B[aa])",
        b"(;SZ[9];B[a\x00])",
        b"(;SZ[9]AB[aa:cc];W[ee])",
        b"(;SZ[9];b[aa])",
        b"(;SZ[9];B[aa];;W[bb](;B[cc]);W[dd])",
        b"(;SZ[9];C" + b"[x]" * 10_001 + b";B[aa])",
        b"(;SZ[26];AB" + b"[aa]" * 2_705 + b";W[ee])",
        b"(;SZ[9]" + b";B[]" * 200_001 + b")",
    ],
    ids=["value-limit", "deep-nesting", "bom", "nul", "rectangle", "lower-case", "node-after",
         "node-values", "node-setup-points", "undo-history"],
)
def test_limits_and_irregular_syntax_are_the_walkers(data: bytes) -> None:
    """The core leaves them to the walker, which reports or reads them as it does."""
    fast = list(read_positions([Source("odd.sgf", data)], pure=False, variations=True))
    assert [batch.pure_files for batch in fast] == [1]
    assert_same_as_pure([Source("odd.sgf", data)], fast=fast, variations=True)


@pytest.mark.parametrize(
    ("data", "walker"),
    [
        (b"(;SZ[9]HA[2];AB[cc][gg];W[ee])", False),
        (b"(;SZ[9]HA[2](;AB[cc][gg];W[ee])(;W[dd]))", False),
        (b"(;SZ[9]HA[2];W[ee]AB[cc][gg])", False),
        (b"(;SZ[9]HA[2]" + b";C[x]" * (_LOOKAHEAD - 1) + b";AB[cc][gg];W[ee])", False),
        (b"(;SZ[9]HA[2]" + b";C[x]" * _LOOKAHEAD + b";AB[cc][gg];W[ee])", True),
        (b"(;SZ[9]HA[3];B[cc];B[gg];B[ee];W[dd])", True),
        (b"(;SZ[9]HA[2];W[ee])", True),
        (b"(;SZ[9]HA[2](;W[ee])(;AB[cc][gg]))", True),
        (b"(;SZ[9];B[cc];B[gg];W[ee];W[dd])", False),
    ],
    ids=["ab-after-root", "ab-in-first-variation", "ab-with-first-move", "ab-at-lookahead-end",
         "ab-beyond-lookahead", "black-moves-first", "white-moves-first", "ab-off-main-line",
         "two-moves-in-a-row"],
)
def test_handicap_forms_go_to_the_walker_only_where_it_places_or_notes_stones(
    data: bytes, walker: bool
) -> None:
    # The walker decides from the main line up to its first move or AB (read
    # ahead at most _LOOKAHEAD events); the core replays exactly the records
    # where that decision places nothing and notes nothing.
    (batch,) = read_positions([Source("handicap.sgf", data)])
    assert batch.pure_files == walker
    assert_same_as_pure([Source("handicap.sgf", data)], variations=True)


def test_core_reads_the_walkers_text_properties() -> None:
    from gohash.pipeline import _sgf_replay

    assert tuple(name for name, _ in _sgf_replay.TEXT_PROPERTIES) == TEXT_PROPERTIES


def test_the_cores_limits_are_the_readers() -> None:
    # The scan leaves a file to the walker at the reader's limits, so the walker
    # reports them; a limit changed on one side only would split the two paths.
    from gohash.pipeline import _scan

    assert _scan.LIMITS == {
        "node_values": MAX_NODE_VALUES,
        "node_setup_points": MAX_NODE_SETUP_POINTS,
        "game_setup_points": MAX_GAME_SETUP_POINTS,
        "source_setup_points": MAX_SOURCE_SETUP_POINTS,
        "line_nodes": MAX_HISTORY,
        "handicap_lookahead": _LOOKAHEAD,
    }
