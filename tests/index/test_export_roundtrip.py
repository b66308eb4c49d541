"""The download of a game (Index.sgf) gives back its text as the readers decoded it.

Records as real collections hold them, generated here: UTF-8 with bytes lost
to ``?`` (Fox), GB18030, Big5, Shift-JIS and EUC-KR under their CA (with
multi-byte characters whose second byte is a backslash, escaped as byte-wise
writers do, and a byte invalid in the encoding), Latin-1 without CA.  Each
exported record is read by sgfmill, an independent reader, and its names and
moves compared with the index's; the same for the index's own copy once the
files are gone.  The originals read by sgfmill (where every byte is valid) are
a second reference for the names.  Also: the name a download is given.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sgfmill import sgf

from gohash.index.export import MAX_NAME_CHARS, download_name
from gohash.index.index import Index
from gohash.index.results import Record
from gohash.sgf.extract import game_record
from tests.support.serve_fixtures import build_index

MOVES = b";B[pd];W[dp];B[pq];W[dd];B[qk]"


def _record(root: bytes, moves: bytes = MOVES) -> bytes:
    return b"(;GM[1]FF[4]SZ[19]" + root + moves + b")\n"


def _utf8_with_holes(text: str) -> bytes:
    """UTF-8 with the second byte of the first character turned into ``?``, as Fox writes."""
    data = text.encode("utf-8")
    return data[:1] + b"?" + data[2:]


# name: (file bytes, whether every byte is valid in its encoding)
RECORDS: dict[str, tuple[bytes, bool]] = {
    "fox-utf8-holes": (_record(b"PB[" + _utf8_with_holes("\u8042\u536b\u5e73") + b"]PW["
                               + "\u67ef\u6d01".encode() + b"]DT[2017-05-23]RE[B+R]"), False),
    "gb18030": (_record(b"CA[GB18030]PB[" + "\u67ef\u6d01".encode("gb18030") + b"]PW["
                        + "\u5e38\u660a".encode("gb18030") + b"]C["
                        + "\u9ed1\u80dc".encode("gb18030") + b"]"), True),
    "gb18030-invalid": (_record(b"CA[GB18030]PB[" + "\u67ef".encode("gb18030") + b"\xff]PW[x]"),
                        False),
    # Big5 許 is B3 5C: its second byte a backslash, escaped by the writer.
    "big5": (_record(b"CA[Big5]PB[\xb3\\\\" + "\u6587".encode("big5") + b"]PW["
                     + "\u8076\u885b\u5e73".encode("big5") + b"]"), True),
    # Shift-JIS ソ is 83 5C.
    "shift-jis": (_record(b"CA[Shift_JIS]PB[" + "\u4e95\u5c71\u88d5\u592a".encode("shift_jis")
                          + b"]PW[\x83\\\\" + "\u30cb\u30fc".encode("shift_jis") + b"]"), True),
    "euc-kr": (_record(b"CA[EUC-KR]PB[" + "\uc774\uc138\ub3cc".encode("euc-kr") + b"]PW["
                       + "\ubc15\uc815\ud658".encode("euc-kr") + b"]HA[2]",
                       b";AB[dd][pp];W[pd];B[dp]"), True),
    "latin-1": (_record("PB[Hrab\u00e1nek]PW[M\u00fcller]EV[Praha]".encode("latin-1")), True),
    "utf-8": (_record("CA[UTF-8]PB[\u674e\u4e16\u77f3]PW[Ke Jie]".encode()), True),
}


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    folder = tmp_path_factory.mktemp("records")
    paths = {}
    for name, (data, _) in RECORDS.items():
        paths[name] = folder / f"{name}.sgf"
        paths[name].write_bytes(data)
    return build_index(folder / "index.db", list(paths.values())), paths


def _main_line(game: sgf.Sgf_game) -> list[tuple[str | None, tuple[int, int] | None]]:
    return [m for node in game.get_main_sequence()[1:] if (m := node.get_move())[0]]


def _check_exported(index: Index, record: Record) -> str:
    text = index.sgf(record.id)
    game = sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    root = game.get_root()
    assert root.get("CA") == "UTF-8"
    assert (root.get("PB"), root.get("PW")) == (record.black, record.white)
    positions = index.game(record.id).positions
    # The index's moves, setup stones aside.
    played = [(p.colour, p.point) for p in positions[1:] if p.colour is not None]
    assert _main_line(game) == played
    # The handicap stones, in the root or a later node.
    black = {p for node in game.get_main_sequence() for p in node.get_setup_stones()[0]}
    setup = [p.stones for p in positions if p.setup] or [positions[0].stones]
    assert black == {(r, c) for r, c in zip(*(setup[0] == 1).nonzero(), strict=True)}
    return text


def test_exported_records_read_as_indexed(collection: tuple[Path, dict[str, Path]]) -> None:
    db, _ = collection
    with Index(db, read_only=True) as index:
        records = {Path(r.file).stem: r for r in index.records().values()}
        assert set(records) == set(RECORDS)
        for name, record in records.items():
            text = _check_exported(index, record)
            data, valid = RECORDS[name]
            if valid:  # sgfmill reads the original in its encoding (no CA: ISO-8859-1)
                original = sgf.Sgf_game.from_bytes(data).get_root()
                assert (original.get("PB"), original.get("PW")) == (record.black, record.white)
            if name == "gb18030":
                assert "C[\u9ed1\u80dc]" in text  # other text decoded too
        assert "\ufffd" in records["fox-utf8-holes"].black
        assert records["fox-utf8-holes"].black.endswith("\u536b\u5e73")
        assert records["gb18030-invalid"].black == "\u67ef\ufffd"
        assert records["big5"].black == "\u8a31\u6587"
        assert records["shift-jis"].white == "\u30bd\u30cb\u30fc"


def test_index_copy_reads_as_indexed(collection: tuple[Path, dict[str, Path]],
                                     tmp_path: Path) -> None:
    db, paths = collection
    copy = tmp_path / "index.db"
    copy.write_bytes(db.read_bytes())
    Path(f"{copy}-postings").write_bytes(Path(f"{db}-postings").read_bytes())
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    with Index(copy, read_only=True) as index:
        for path in paths.values():
            path.rename(moved / path.name)
        try:
            for record in index.records().values():
                text = _check_exported(index, record)
                assert "C[" not in text  # the copy has no comments
        finally:
            for path in paths.values():
                (moved / path.name).rename(path)


def test_a_valid_utf8_record_is_given_as_it_is() -> None:
    data = "(;GM[1]SZ[9]PB[\u674e]C[a \\] b];B[ee])".encode()
    assert game_record(data, "x.sgf", 0) == "(;CA[UTF-8]GM[1]SZ[9]PB[\u674e]C[a \\] b];B[ee])"
    labelled = "(;CA[utf8]GM[1]SZ[9];B[ee])"
    assert game_record(labelled.encode(), "x.sgf", 0) == labelled


def test_a_record_without_parenthesis_is_exported_whole() -> None:
    text = game_record(b";GM[1]SZ[9]PB[\xe9];B[ee];W[cc]", "x.sgf", 0)
    assert text == "(;CA[UTF-8]GM[1]SZ[9]PB[\u00e9];B[ee];W[cc])"
    game = sgf.Sgf_game.from_string(text)
    assert [n.get_move() for n in game.get_main_sequence()[1:]] == [("b", (4, 4)), ("w", (6, 2))]


def _record_of(**fields: object) -> Record:
    base: dict[str, object] = dict(
        id=7, file="games/kgs-2017-01.sgf", game=0, size=19, black=None, white=None,
        result=None, moves=0, black_rank=None, white_rank=None, dt=None, date=None, event=None,
        komi=None, handicap=0, winner=None)
    base.update(fields)
    return Record(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fields", "name"), [
    ({"black": "Lee Sedol", "white": "AlphaGo", "date": "2016-03-13"},
     "2016-03-13 Lee Sedol vs AlphaGo.sgf"),
    ({"black": None, "white": "\u67ef\u6d01"}, "\u67ef\u6d01.sgf"),
    ({"black": "a/b", "white": 'c:"d"?'}, "a_b vs c_d.sgf"),
    ({"black": "\ufffd?\u536b\u5e73", "white": "x"}, "\u536b\u5e73 vs x.sgf"),
    ({}, "kgs-2017-01.sgf"),
    ({"game": 2}, "kgs-2017-01-3.sgf"),
    ({"file": "set.zip:inner/g 1.SGF"}, "g 1.sgf"),
    ({"file": "-"}, "game-7.sgf"),
    ({"black": "x" * 300}, "x" * (MAX_NAME_CHARS - 4) + ".sgf"),
])
def test_download_names(fields: dict[str, object], name: str) -> None:
    assert download_name(_record_of(**fields)) == name
