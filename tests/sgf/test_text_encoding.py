"""Root text without CA: UTF-8 with holes (Fox's names, some bytes replaced by
``?``) decoded as UTF-8 with U+FFFD only where a byte is invalid, noted once per
file, the same on the compiled and the pure path, and found by the name's valid
part through the index's player filter; genuinely Latin-1 text stays Latin-1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gohash.index.filters import Filters
from gohash.index.index import Index
from gohash.pipeline.positions import CORE_AVAILABLE
from gohash.sgf.inputs import Source
from gohash.sgf.parser import root_text
from gohash.sgf.walk import BaseVisitor, GameInfo, walk_paths, walk_source
from tests.support.env import CORPUS
from tests.support.positions import assert_same_as_pure

# Real players' names: Chinese, Korean and Japanese professionals.
NAMES = ["柯洁", "聂卫平", "芈昱廷", "이세돌", "박정환", "신진서", "井山裕太", "一力遼"]


def fox(name: str, *holes: int) -> bytes:
    """``name`` in UTF-8 with the bytes at ``holes`` replaced by ``?``, as Fox writes them."""
    data = bytearray(name.encode())
    for hole in holes:
        data[hole] = ord("?")
    return bytes(data)


def record(black: bytes, white: bytes, extra: bytes = b"") -> bytes:
    return b"(;GM[1]FF[4]SZ[19]PB[" + black + b"]PW[" + white + b"]" + extra + b";B[pd];W[dp])"


class Infos(BaseVisitor):
    def __init__(self) -> None:
        self.games: list[GameInfo] = []

    def begin_game(self, info: GameInfo) -> None:
        self.games.append(info)


def read(data: bytes) -> tuple[list[GameInfo], list[str]]:
    visitor = Infos()
    summary = walk_source(Source("fox.sgf", data), visitor)
    assert summary.errors == []
    return visitor.games, summary.notes


def test_a_hole_becomes_replacement_characters_and_the_rest_is_kept() -> None:
    # 聂 is e8 81 82: its second byte replaced leaves e8 (invalid), "?" and 82
    # (invalid); 卫平 are whole.
    (info,), notes = read(record(fox("聂卫平", 1), "柯洁".encode(), "BR[9段]WR[9段]".encode()))
    assert info.players == {"b": "\ufffd?\ufffd卫平", "w": "柯洁"}
    assert info.root["BR"] == "9段"
    assert notes == [
        "fox.sgf, game 0: text is not valid UTF-8 (no CA; read as UTF-8: its valid multi-byte "
        "sequences say so); bad bytes shown as U+FFFD (noted once per file)"
    ]
    assert info.notes == [notes[0].removeprefix("fox.sgf, game 0: ").removesuffix(
        " (noted once per file)")]


def test_latin1_text_without_ca_stays_latin1() -> None:
    (info,), notes = read(record("Jan Hrabánek".encode("latin-1"), b"fuego"))
    assert info.players["b"] == "Jan Hrabánek" and notes == []
    # Two accented letters in a row are no valid UTF-8 sequence either.
    (info,), notes = read(record("Émile Éèry".encode("latin-1"), "Søren".encode("latin-1")))
    assert info.players == {"b": "Émile Éèry", "w": "Søren"} and notes == []


def test_evidence_is_the_whole_root() -> None:
    # 柯 alone with a hole holds no valid sequence; its opponent's name and the
    # ranks do, so the root is UTF-8 with a hole.
    (info,), _ = read(record(fox("柯", 1), "이세돌".encode()))
    assert info.players == {"b": "\ufffd?\ufffd", "w": "이세돌"}
    # Alone, it is not evidence of UTF-8: Latin-1, as before.
    (info,), notes = read(record(fox("柯", 1), b"Lee"))
    assert info.players["b"] == fox("柯", 1).decode("latin-1") and notes == []


def test_root_text_judges_values_together() -> None:
    ok = {"PB": "柯洁".encode(), "PW": b"Gu Li"}
    assert root_text(ok, None) == ({"PB": "柯洁", "PW": "Gu Li"}, None)
    holed = {"PB": fox("井山裕太", 4), "PW": "一力遼".encode()}
    text, repaired = root_text(holed, None)
    assert repaired == "UTF-8" and text["PB"].endswith("裕太") and text["PW"] == "一力遼"
    # A declared encoding is kept whatever the bytes say.
    assert root_text({"PB": b"M\xfcller"}, "ISO-8859-1") == ({"PB": "Müller"}, None)


CHINESE = [
    "柯洁", "聂卫平", "芈昱廷", "古力", "常昊", "马晓春", "俞斌", "周睿羊", "时越", "唐韦星",
    "檀啸", "范廷钰", "江维杰", "陈耀烨", "辜梓豪", "杨鼎新", "党毅飞", "连笑", "谢尔豪",
    "许嘉阳", "李轩豪", "童梦成", "朴廷桓", "王元均", "刘小光", "张文东", "丁浩", "王星昊",
]


@pytest.mark.parametrize(("encoding", "names", "most"), [
    # Valid 2-byte UTF-8 sequences would count GBK pairs as UTF-8 in 114 of these
    # 784; 3- and 4-byte ones do in 5.
    ("gbk", CHINESE, 8),
    ("euc_kr", ["이세돌", "박정환", "신진서", "최정", "김지석", "변상일", "신민준", "조훈현"], 0),
    ("shift_jis", ["井山裕太", "一力遼", "張栩", "芝野虎丸", "許家元", "山下敬吾"], 0),
    ("latin-1", ["Müller", "Hrabánek", "Søren Ærø", "José Núñez", "François", "Jürgen Göß"], 0),
])
def test_other_encodings_are_rarely_taken_for_utf8_with_holes(
    encoding: str, names: list[str], most: int
) -> None:
    taken = [
        (black, white) for black in names for white in names
        if root_text({"PB": black.encode(encoding), "PW": white.encode(encoding)}, None)[1]
    ]
    assert len(taken) <= most, taken


@given(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2), st.data())
def test_any_hole_keeps_the_valid_characters(names: list[str], data: st.DataObject) -> None:
    black, white = names
    encoded = black.encode()
    hole = data.draw(st.integers(0, len(encoded) - 1))
    text, repaired = root_text({"PB": fox(black, hole), "PW": white.encode()}, None)
    assert repaired == "UTF-8" and text["PW"] == white
    # Every character of the name whose bytes the hole did not touch is there.
    start = 0
    for char in black:
        end = start + len(char.encode())
        if not start <= hole < end:
            assert char in text["PB"]
        start = end


def test_noted_once_per_file() -> None:
    games = b"".join(
        record(fox(name, 1), "柯洁".encode()) for name in NAMES
    )
    infos, notes = read(games)
    assert len(infos) == len(NAMES) and all(len(i.notes) == 1 for i in infos)
    assert len(notes) == 1 and notes[0].startswith("fox.sgf, game 0: text is not valid UTF-8")


@pytest.mark.skipif(not CORE_AVAILABLE, reason="the compiled core is not built")
def test_compiled_equals_pure() -> None:
    # A clean game first (the core replays it), then holed names (the walker
    # does, noting once), then Latin-1 (the walker again, as it took the file on).
    data = (
        record("柯洁".encode(), "이세돌".encode())
        + record(fox("聂卫平", 1), "芈昱廷".encode())
        + record(fox("井山裕太", 5), fox("一力遼", 2))
        + record("Jan Hrabánek".encode("latin-1"), b"fuego")
    )
    flat = assert_same_as_pure([Source("fox.sgf", data), Source("lat.sgf", record(
        "Søren".encode("latin-1"), b"x"))])
    assert len(flat["notes"]) == 1


def test_the_player_filter_finds_the_valid_part(tmp_path: Path) -> None:
    folder = tmp_path / "fox"
    folder.mkdir()
    pairs = list(zip(NAMES[::2], NAMES[1::2], strict=True))
    for number, (black, white) in enumerate(pairs):
        # The first character of each name loses a byte; the rest is whole.
        (folder / f"{number}.sgf").write_bytes(record(fox(black, 1), fox(white, 2)))
    empty = np.zeros((19, 19), np.int8)
    with Index(tmp_path / "fox.db", create=True) as index:
        assert index.build([str(folder)]).errors == []
        for number, (black, white) in enumerate(pairs):
            for part in (black[1:], white[1:]):
                found = index.find(empty, filters=Filters(player=part), limit=None)
                assert [Path(m.record.file).name for m in found.matches] == [f"{number}.sgf"]


@pytest.mark.corpus
def test_the_corpus_latin1_file_stays_latin1() -> None:
    visitor = Infos()
    path = CORPUS / "small" / "fuego-regression-games" / "2010" / "LittleGolem" / "1177582.sgf"
    summary = walk_paths([str(path)], visitor)
    assert summary.notes == [] and visitor.games[0].players["w"] == "Jan Hrabánek"
