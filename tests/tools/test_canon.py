"""``gohash canon`` records: keys and positions equal for every image of a game (and
symmetries conjugated), hashes equal to an independent replay with sgfmill, and the
JSON Lines and CSV schema."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sgfmill import boards, sgf, sgf_grammar, sgf_properties

import gohash.pipeline.pool
from gohash.errors import GohashError, UnknownElementError, UnknownSchemeError
from gohash.group.schemes import SCHEMES, scheme
from gohash.group.symmetry import ELEMENTS, Element, element, elements_of
from gohash.pipeline.frames import pack_array
from gohash.tools.canon import FIELDS, CanonOptions, write_records
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"
# Every record of ours but the one whose handicap stones are implied by HA (GTP's
# placement is not symmetric, and sgfmill does not place it): tested in test_walk.
GAMES = sorted(p for p in DATA.glob("*.sgf") if p.name != "handicap-5-no-ab.sgf")


def records(paths: list[str], **options: Any) -> list[dict[str, Any]]:
    out: list[str] = []
    summary = write_records(paths, out.append, CanonOptions(**options))
    assert summary.errors == []
    return [json.loads(line) for line in "".join(out).splitlines()]


# -- a test helper that rewrites SGF coordinates --------------------------------------------


def _map_value(value: bytes, g: Element, size: int) -> bytes:
    if value == b"" or (value == b"tt" and size <= 19):
        return value
    corners = value.split(b":")
    mapped = [
        sgf_properties.serialise_go_point(
            g.map_point(sgf_properties.interpret_go_point(c, size), size), size
        )
        for c in corners
    ]
    return b":".join(mapped)


def image_sgf(data: bytes, g: Element) -> bytes:
    """The SGF of the images under ``g`` of every game in ``data``: coordinates mapped,
    and with a colour exchange B<->W, AB<->AW and no HA."""
    swap = {"B": "W", "W": "B", "AB": "AW", "AW": "AB"} if g.swap else {}
    games = []
    for tree in sgf_grammar.parse_sgf_collection(data):
        size = int(tree.sequence[0].get("SZ", [b"19"])[0])
        stack = [tree]
        while stack:
            t = stack.pop()
            stack += t.children
            for i, props in enumerate(t.sequence):
                new = {}
                for name, values in props.items():
                    if name == "HA" and g.swap:
                        continue  # a handicap is Black's: the image has none
                    if name in ("B", "W", "AB", "AW", "AE"):
                        values = [_map_value(v, g, size) for v in values]
                    new[swap.get(name, name)] = values
                t.sequence[i] = new
        games.append(sgf_grammar.serialise_game_tree(tree))
    return b"".join(games)


def test_image_helper() -> None:
    rot90 = ELEMENTS[1]
    assert rot90.name == "rot90"
    # B at A1 (row 0, col 0) turns counter-clockwise to the lower-right corner.
    assert image_sgf(b"(;SZ[9];B[ai])", rot90) == b"(;SZ[9];B[ii])\n"
    swap = ELEMENTS[8]
    assert image_sgf(b"(;SZ[9]AB[aa:bb];W[])", swap) == b"(;AW[aa:bb]SZ[9];B[])\n"


def conjugates(names: list[str], g: Element) -> list[str]:
    """The symmetries of ``g.P`` from those of ``P``: ``g s g^-1``, in table order."""
    mapped = {g.compose(element(n)).compose(g.inverse) for n in names}
    return [e.name for e in sorted(mapped, key=lambda e: e.index)]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_keys_are_equal_for_every_image(path: Path, tmp_path: Path) -> None:
    original = records([str(path)], variations=True, position=True)
    assert len(original) > 2
    data = path.read_bytes()
    for g in ELEMENTS:
        image_path = tmp_path / f"{g.name}.sgf"
        image_path.write_bytes(image_sgf(data, g))
        image = records([str(image_path)], variations=True, position=True)
        assert [r["key"] for r in image] == [r["key"] for r in original], g.name
        assert [r["position"] for r in image] == [r["position"] for r in original], g.name
        assert [(r["move_number"], r["variation"]) for r in image] == [
            (r["move_number"], r["variation"]) for r in original
        ]
        assert [r["symmetries"] for r in image] == [
            conjugates(r["symmetries"], g) for r in original
        ]
        if not g.swap:
            d4 = records([str(image_path)], variations=True, symmetry="d4", position=True)
            d4_original = records([str(path)], variations=True, symmetry="d4", position=True)
            assert [(r["key"], r["position"]) for r in d4] == [
                (r["key"], r["position"]) for r in d4_original
            ]


def _sgfmill_positions(data: bytes, *, main_line: bool = False) -> list[np.ndarray]:
    """Every position the walker should visit, replayed from the root by sgfmill."""
    positions = []
    for tree in sgf_grammar.parse_sgf_collection(data):
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
        size = game.get_size()
        stack = [game.get_root()]
        while stack:
            node = stack.pop()
            stack += list(node)[:1] if main_line else reversed(list(node))
            if (
                node.parent is not None
                and not node.has_setup_stones()
                and node.get_move()[0] is None
            ):
                continue
            board = boards.Board(size)
            for step in [*game.get_sequence_above(node), node]:
                if step.has_setup_stones():
                    board.apply_setup(*step.get_setup_stones())
                colour, point = step.get_move()
                if point is not None:
                    board.play(point[0], point[1], colour)
            array = np.zeros((size, size), np.int8)
            for colour, (row, col) in board.list_occupied_points():
                array[row, col] = 1 if colour == "b" else 2
            positions.append(array)
    return positions


@pytest.mark.parametrize("name", SCHEMES)
def test_every_hash_is_that_of_an_independent_replay(name: str) -> None:
    for path in GAMES:
        recs = records([str(path)], variations=True, scheme=name)
        arrays = _sgfmill_positions(path.read_bytes())
        assert len(recs) == len(arrays), path.name
        for record, array in zip(recs, arrays, strict=True):
            s = scheme(name, array.shape[0])
            assert record["hash"] == s.hex(s.hash_array(array)), (path.name, record)


@pytest.mark.parametrize("name", SCHEMES)
@pytest.mark.parametrize("group", ["full", "d4"])
def test_key_transform_and_symmetries(name: str, group: str) -> None:
    paths = [DATA / "variations-9x9.sgf", DATA / "game-9x9.sgf"]
    recs = records([str(p) for p in paths], scheme=name, symmetry=group, position=True)
    arrays = [a for p in paths for a in _sgfmill_positions(p.read_bytes(), main_line=True)]
    assert len(recs) == len(arrays)
    s = scheme(name, 9)
    width = 2 + s.bits // 4
    elements = elements_of(group)
    for r, array in zip(recs, arrays, strict=True):
        h, key = int(r["hash"], 16), int(r["key"], 16)
        assert len(r["hash"]) == len(r["key"]) == width
        assert key == min(s.transform(h, g) for g in elements)
        assert s.transform(h, r["transform"]) == key
        # transform maps the position onto the frame, the least image attaining the key.
        images = {g: pack_array(g.image_array(array)) for g in elements}
        frame = min(images[g] for g in elements if s.transform(h, g) == key)
        assert r["position"] == frame.hex()
        assert r["transform"] == next(g.name for g in elements if images[g] == frame)
        assert r["symmetries"] == [
            g.name for g in elements if np.array_equal(g.image_array(array), array)
        ]
    # The empty board is fixed by the whole group.
    assert recs[0]["symmetries"] == [g.name for g in elements]


def test_json_lines_schema() -> None:
    recs = records([str(DATA / "passes-9x9.sgf")])
    assert all(list(r) == list(FIELDS) for r in recs)
    first, second = recs[0], recs[1]
    assert first == {
        "file": str(DATA / "passes-9x9.sgf"),
        "game": 0,
        "variation": [],
        "move_number": 0,
        "colour": None,
        "move": None,
        "gtp": None,
        # The default scheme, regular128: 32 hex digits, nothing lost.
        "hash": "0x" + "0" * 32,
        "key": "0x" + "0" * 32,
        "transform": "identity",
        "symmetries": [g.name for g in ELEMENTS],
    }
    assert (second["colour"], second["move_number"]) == ("b", 1)
    passes = [r for r in recs if r["gtp"] == "pass"]
    assert passes and all(r["move"] == "" for r in passes)


def test_file_names_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / 'odd "name", with\\ comma.sgf'
    path.write_bytes(b"(;SZ[9];B[aa])")
    assert [r["file"] for r in records([str(path)])] == [str(path)] * 2
    out: list[str] = []
    write_records([str(path)], out.append, CanonOptions(format="csv"))
    rows = list(csv.reader(io.StringIO("".join(out))))
    assert rows[1][0] == str(path)


@pytest.mark.parametrize("position", [False, True])
def test_csv_has_the_same_columns_and_values(position: bool) -> None:
    paths = [str(DATA / "variations-9x9.sgf"), str(DATA / "passes-9x9.sgf")]
    jsonl = records(paths, variations=True, position=position)
    out: list[str] = []
    write_records(paths, out.append, CanonOptions(format="csv", variations=True, position=position))
    text = "".join(out)
    header = ",".join([*FIELDS, "position"] if position else FIELDS) + "\r\n"
    assert text.startswith(header)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(jsonl)
    for row, r in zip(rows, jsonl, strict=True):
        expected = {
            **{k: "" if v is None else str(v) for k, v in r.items()},
            "variation": " ".join(map(str, r["variation"])),
            "symmetries": " ".join(r["symmetries"]),
        }
        assert row == expected


@pytest.mark.parametrize("position", [False, True])
def test_jobs_keep_the_order_and_the_output(position: bool) -> None:
    paths = [str(p) for p in sorted(DATA.glob("*.sgf"))] * 3
    options = CanonOptions(variations=True, position=position)
    single: list[str] = []
    one = write_records(paths, single.append, options)
    parallel: list[str] = []
    two = write_records(paths, parallel.append, options, jobs=2)
    assert "".join(parallel) == "".join(single)
    assert (two.files, two.games, two.positions) == (one.files, one.games, one.positions)
    assert [n.split(":")[0] for n in two.notes] == [n.split(":")[0] for n in one.notes]


def test_workers_records_pass_through_whole_across_buffer_ends(tmp_path: Path) -> None:
    # Workers write a batch's records to one file, which the parent copies on a
    # MiB at a time: as bytes, and decoded as text, where a MiB ends inside a
    # character of a non-ASCII path (CSV keeps it as it is).
    folder = tmp_path / ("棋譜" * 30)
    folder.mkdir()
    long_game = b"(;SZ[9]" + b";B[];W[]" * 4000 + b")"
    for i in range(4):
        (folder / f"對局{i}.sgf").write_bytes(long_game if i % 2 else b"(;SZ[9];B[ee])")
    options = CanonOptions(format="csv")
    single: list[str] = []
    write_records([str(folder)], single.append, options)
    assert len("".join(single).encode("utf-8")) > 2 * (1 << 20)
    text: list[str] = []
    write_records([str(folder)], text.append, options, jobs=2)
    assert "".join(text) == "".join(single)
    header: list[str] = []
    data = bytearray()
    write_records([str(folder)], header.append, options, jobs=2, write_bytes=data.extend)
    assert "".join(header) + data.decode("utf-8") == "".join(single)


def test_errors_and_progress_in_input_order(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_bytes(b"(;SZ[9];B[aa];W[aa])")
    paths = [str(bad), str(DATA / "game-9x9.sgf"), str(tmp_path / "missing.sgf")]
    for jobs in (1, 2):
        errors: list[GohashError] = []
        progress: list[tuple[int, int]] = []
        out: list[str] = []
        summary = write_records(
            paths,
            out.append,
            jobs=jobs,
            on_error=errors.append,
            progress=lambda d, t, seen=progress: seen.append((d, t)),
        )
        assert [(e.file, e.game, e.move_number) for e in errors] == [
            (str(bad), 0, 2),
            (str(tmp_path / "missing.sgf"), None, None),
        ]
        assert str(errors[0]).startswith(f"{bad}, game 0, move 2: white at 'A9' is occupied")
        assert str(errors[1]) == f"{tmp_path / 'missing.sgf'}: no such file or folder"
        assert progress == [(1, 3), (2, 3), (3, 3)]
        assert len(summary.errors) == 2
        assert json.loads(out[0].splitlines()[0])["file"] == str(bad)


def test_bad_options() -> None:
    with pytest.raises(UnknownSchemeError):
        CanonOptions(scheme="md5")
    with pytest.raises(UnknownElementError):
        CanonOptions(symmetry="d8")
    with pytest.raises(GohashError, match="unknown format 'xml'"):
        CanonOptions(format="xml")


def test_archive_members_are_spread_and_progress_counts_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gohash.pipeline.pool, "MAX_BATCH_BYTES", 1000)  # batches split by bytes
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in GAMES:
            z.write(path, path.name)
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    paths = [str(archive), str(empty), str(DATA / "game-9x9.sgf")]
    outputs = []
    for jobs in (1, 2):
        progress: list[tuple[int, int]] = []
        out: list[str] = []
        summary = write_records(
            paths, out.append, jobs=jobs, progress=lambda d, t, seen=progress: seen.append((d, t))
        )
        assert progress == [(1, 3), (2, 3), (3, 3)]
        assert summary.files == len(GAMES) + 1
        outputs.append("".join(out))
    assert outputs[0] == outputs[1]
    files = [json.loads(line)["file"] for line in outputs[0].splitlines()]
    assert files[0] == f"{archive}:{GAMES[0].name}"
