"""SGF reading: sources (files, folders, archives, stdin), the streaming parser,
size limits and property decoding."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import sgf_grammar

from gohash.errors import BoardSizeError, SgfError, SgfLimitError, SgfSyntaxError
from gohash.sgf.inputs import Input, Source
from gohash.sgf.parser import (
    CLOSE,
    NODE,
    OPEN,
    Limits,
    board_size,
    decode_point,
    decode_point_list,
    decode_text,
    encoding_of,
    game_events,
)
from gohash.sgf.sources import _read_limited, find_inputs, read_input
from tests.support.env import ROOT

DATA = ROOT / "data" / "sgf"


def events_of(data: bytes) -> list[list[tuple[int, dict[str, list[bytes]] | None]]]:
    return [list(game.events()) for game in game_events(data, "t.sgf")]


def notes_of(data: bytes) -> list[list[str]]:
    notes = []
    for game in game_events(data, "t.sgf"):
        list(game.events())
        notes.append(game.notes)
    return notes


def preorder(tree: sgf_grammar.Coarse_game_tree) -> list[dict[str, list[bytes]]]:
    """sgfmill's parse tree as a list of nodes in file order (pre-order)."""
    nodes = []
    stack = [tree]
    while stack:
        t = stack.pop()
        nodes += t.sequence
        stack += reversed(t.children)
    return nodes


def test_events_are_a_preorder_walk_of_the_tree() -> None:
    games = events_of(b"(;SZ[9];B[aa](;W[bb])(;W[cc];B[dd]))")
    assert games == [
        [
            (OPEN, None),
            (NODE, {"SZ": [b"9"]}),
            (NODE, {"B": [b"aa"]}),
            (OPEN, None),
            (NODE, {"W": [b"bb"]}),
            (CLOSE, None),
            (OPEN, None),
            (NODE, {"W": [b"cc"]}),
            (NODE, {"B": [b"dd"]}),
            (CLOSE, None),
            (CLOSE, None),
        ]
    ]


def test_values_as_sgfmill_reads_them() -> None:
    data = rb"(;GM[1]C[a \] bracket]AB[aa] [bb]" + b"\n[cc]AddWhite[dd];B[ee]C[x]C[y])"
    (game,) = events_of(data)
    root = game[1][1]
    (coarse,) = sgf_grammar.parse_sgf_collection(data)
    assert root == coarse.sequence[0]
    assert game[2][1] == coarse.sequence[1] == {"B": [b"ee"], "C": [b"x", b"y"]}


def test_several_games_and_junk_between_them() -> None:
    data = b"\xef\xbb\xbfheader (;SZ[9];B[aa])\n-- next --\n(;SZ[13];W[bb])\ntrailer"
    games = events_of(data)
    assert [g[1][1] for g in games] == [{"SZ": [b"9"]}, {"SZ": [b"13"]}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"(;SZ[9];B[aa];W[bb]", "truncated"),
        (b"(;SZ[9];B[aa", "unterminated property value"),
        (b"(;SZ[9]()", "empty variation"),
        (b"(;SZ[9](B[aa]))", "outside a node"),
        (b"(;SZ[9](;B[aa])W[bb])", "outside a node"),
        (b"(;SZ[9];B[aa]!)", "unexpected data"),
    ],
)
def test_syntax_errors(data: bytes, message: str) -> None:
    with pytest.raises(SgfSyntaxError, match=message) as info:
        events_of(data)
    assert info.value.file == "t.sgf"
    assert info.value.game == 0


def test_a_file_starting_with_its_root_is_read_as_a_game_with_a_note() -> None:
    # sgfmill would find "(;W[bb])" and read it as a whole game; Sabaki, KataGo
    # and gohash read the game its missing "(" would have opened (some Fox files).
    data = b";GM[1]SZ[9];B[aa](;W[bb])(;W[cc]))"
    assert events_of(data) == events_of(b"(" + data)
    assert notes_of(data) == [["the game has no '(' before its root ';': read as if it had one"]]
    # Nor its ")": read to the end of the file.
    data = b" ;GM[1]SZ[9];B[aa]\n"
    assert events_of(data) == events_of(b"(;GM[1]SZ[9];B[aa])")
    assert notes_of(data)[0][1] == "the game has no ')' at its end: read to the end of the file"
    both = b";SZ[9];B[aa])(;SZ[9];B[bb])"
    assert [len(list(g.events())) for g in game_events(both, "t.sgf")] == [4, 4]


def test_missing_opening_parenthesis_elsewhere_is_an_error_not_a_partial_parse() -> None:
    with pytest.raises(SgfError, match="no SGF game found"):
        events_of(b"just text")
    with pytest.raises(SgfError, match="missing opening parenthesis"):
        events_of(b"(;SZ[9];B[aa]) ;SZ[9];B[bb])")


def test_property_value_limit() -> None:
    data = b"(;SZ[9]C[" + b"x" * 100 + b"];B[aa])"
    with pytest.raises(SgfLimitError, match="larger than the limit of 50 bytes"):
        for game in game_events(data, "t.sgf", limits=Limits(value_bytes=50)):
            list(game.events())
    assert len(events_of(data)) == 1


@pytest.mark.parametrize(
    "node",
    [
        b"C[" + b"a\\]b" * 40 + b"]",  # more escapes than the token reads
        b"AB" + b"[aa]" * 40,  # more values than the token reads
        b"LB[aa:x][bb:" + b"\\]" * 20 + b"][cc:y]",  # the second value has many escapes
        b"C[" + b"\\\\" * 30 + b"]TR[cc]",
        b"C[x" + b"\\)" * 17 + b"] [y]\n[" + b"\\" * 40 + b"]",
    ],
)
def test_long_values_read_as_sgfmill_reads_them(node: bytes) -> None:
    data = b"(;SZ[9]" + node + b";B[aa]" + node + b"(;W[bb])(;W[cc]" + node + b"))"
    (game,) = events_of(data)
    (tree,) = sgf_grammar.parse_sgf_collection(data)
    assert [props for kind, props in game if kind == NODE] == preorder(tree)


def test_long_values_keep_the_limits() -> None:
    with pytest.raises(SgfSyntaxError, match=r"unterminated property value at byte 7: b'C\["):
        events_of(b"(;SZ[9]C[" + b"\\]" * 40)
    with pytest.raises(SgfSyntaxError, match="unterminated property value at byte 7"):
        events_of(b"(;SZ[9]C[" + b"\\]" * 40 + b"\\")
    data = b"(;SZ[9]C[" + b"\\]" * 30 + b"])"
    with pytest.raises(SgfLimitError, match="property b'C' at byte 7 is larger than the limit"):
        for game in game_events(data, "t.sgf", limits=Limits(value_bytes=59)):
            list(game.events())
    for game in game_events(data, "t.sgf", limits=Limits(value_bytes=60)):
        assert list(game.events())[1] == (NODE, {"SZ": [b"9"], "C": [b"\\]" * 30]})


def test_deep_tree_is_parsed_without_recursion() -> None:
    depth = 100_000
    data = b"(;SZ[19]" + b"(;B[aa]" * depth + b")" * (depth + 1)
    (game,) = events_of(data)
    assert len(game) == 2 + 3 * depth + 1


def test_nesting_limit() -> None:
    data = b"(;SZ[19]" + b"(;B[aa]" * 100 + b")" * 101
    with pytest.raises(SgfLimitError, match="nested deeper than the limit of 99 at byte 694"):
        for game in game_events(data, "t.sgf", limits=Limits(depth=99)):
            list(game.events())
    assert len(events_of(data)) == 1


def test_points() -> None:
    assert decode_point(b"aa", 19) == (18, 0)
    assert decode_point(b"as", 19) == (0, 0)
    assert decode_point(b"tt", 19) is None
    assert decode_point(b"", 9) is None
    assert decode_point(b"zz", 26) == (0, 25)
    assert decode_point(b"tt", 20) == (0, 19)  # a point, not a pass, above 19x19
    with pytest.raises(SgfError, match=r"bad coordinates b'ua' for a 20x20 board"):
        decode_point(b"ua", 20)
    with pytest.raises(SgfError, match="bad coordinates b'jj'"):
        decode_point(b"jj", 9)
    assert decode_point_list([b"aa:bb", b"ii"], 9) == [(7, 0), (7, 1), (8, 0), (8, 1), (0, 8)]
    with pytest.raises(SgfError, match="bad point b'aa:'"):
        decode_point_list([b"aa:"], 9)


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (b"0", BoardSizeError, r"SZ\[0\] is outside 1..26"),
        (b"27", BoardSizeError, r"SZ\[27\] is outside"),
        (b"19:13", BoardSizeError, r"rectangular board SZ\[19:13\]"),
        (b"nineteen", SgfError, "not a number"),
        (b"9" * 5000, SgfError, "not a number"),
    ],
)
def test_bad_board_sizes(value: bytes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        board_size({"SZ": [value]})


def test_board_sizes() -> None:
    assert board_size({}) == 19
    assert board_size({"SZ": [b" 9 "]}) == 9
    assert board_size({"SZ": [b"26"]}) == 26


def test_encodings() -> None:
    assert encoding_of({}) is None
    assert encoding_of({"CA": [b"utf8"]}) == "UTF-8"
    assert encoding_of({"CA": [b"latin1"]}) == "ISO-8859-1"
    with pytest.raises(SgfError, match=r"unknown or unsupported encoding CA\['klingon'\]"):
        encoding_of({"CA": [b"klingon"]})
    with pytest.raises(SgfError, match=r"unsupported encoding CA\['UTF-7'\]"):
        encoding_of({"CA": [b"UTF-7"]})  # does not keep "[" as "["
    # Without CA: UTF-8 if it is valid, else Latin-1 (never an error).
    assert decode_text("Müller".encode(), None) == ("Müller", False)
    assert decode_text("Müller".encode("latin-1"), None) == ("Müller", False)
    assert decode_text(b"M\xfcller", "UTF-8") == ("M\ufffdller", True)
    assert decode_text(rb"a\]b", "UTF-8") == ("a]b", False)


@given(st.binary(max_size=30) | st.lists(st.sampled_from(
    [b"a", b" ", b"\\", b"\n", b"\r", b"\t", b"\x0b", b"\x0c", b"]", b"\xc3\xbc", b"\xfc"]),
    max_size=12).map(b"".join), st.sampled_from([None, "UTF-8", "ISO-8859-1", "GB2312"]))
def test_decode_text_is_simpletext_decoded(value: bytes, encoding: str | None) -> None:
    # Values without escapes or line breaks skip sgfmill's SimpleText mapping:
    # the result must be what the mapping gives.
    text = sgf_grammar.simpletext_value(value)
    if encoding is None:
        try:
            expected = text.decode("utf-8"), False
        except UnicodeDecodeError:
            expected = text.decode("iso-8859-1"), False
    else:
        try:
            expected = text.decode(encoding), False
        except UnicodeDecodeError:
            expected = text.decode(encoding, errors="replace"), True
    assert decode_text(value, encoding) == expected


# -- sources -----------------------------------------------------------------------------


def test_folders_are_searched_recursively_in_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.SGF").write_bytes(b"(;)")
    (tmp_path / "a.sgf").write_bytes(b"(;)")
    (tmp_path / "notes.txt").write_bytes(b"(;)")
    names = [inp.name for inp in find_inputs([str(tmp_path)])]
    assert names == [str(tmp_path / "a.sgf"), str(tmp_path / "b" / "x.SGF")]
    assert list(find_inputs([str(tmp_path / "nope.sgf")])) == [
        Input("missing", str(tmp_path / "nope.sgf"))
    ]


def _sources(path: str, limit: int = 1000) -> list[Source | SgfError]:
    return [s for inp in find_inputs([path]) for s in read_input(inp, limit=limit)]


def test_zip_members_are_read_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "games.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("one.sgf", b"(;SZ[9])")
        archive.writestr("sub/two.sgf", b"(;SZ[13])")
        archive.writestr("readme.txt", b"not a game")
        archive.writestr("big.sgf", b"(;C[" + b"x" * 2000 + b"])")
    sources = _sources(str(path))
    assert [s.name if isinstance(s, Source) else None for s in sources[:2]] == [
        f"{path}:one.sgf",
        f"{path}:sub/two.sgf",
    ]
    assert isinstance(sources[1], Source) and sources[1].data == b"(;SZ[13])"
    assert isinstance(sources[2], SgfLimitError)
    assert sources[2].file == f"{path}:big.sgf"
    assert "larger than the limit of 1,000 bytes" in str(sources[2])


def test_tar_gz_members_are_read_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "games.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, data in [("a.sgf", b"(;SZ[9])"), ("big.sgf", b"(;" + b" " * 5000 + b")")]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    sources = _sources(str(path))
    assert sources[0] == Source(f"{path}:a.sgf", b"(;SZ[9])")
    assert isinstance(sources[1], SgfLimitError)
    assert list(tmp_path.iterdir()) == [path]  # nothing extracted


TAR_FLAVOURS = [
    ("games.tar", "w"),
    ("games.tar.gz", "w:gz"),
    ("games.tgz", "w:gz"),
    ("games.tar.bz2", "w:bz2"),
    ("games.tbz2", "w:bz2"),
    ("games.tbz", "w:bz2"),
    ("games.tar.xz", "w:xz"),
    ("games.txz", "w:xz"),
    ("games.dat", "w:bz2"),  # recognised by content, whatever the name
    ("games.zip", "w:xz"),
]


def write_tar(path: Path, mode: str, members: list[tuple[str, bytes]]) -> None:
    with tarfile.open(path, mode) as archive:  # type: ignore[call-overload]
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(("name", "mode"), TAR_FLAVOURS)
def test_every_tar_flavour_is_read(tmp_path: Path, name: str, mode: str) -> None:
    path = tmp_path / name
    write_tar(path, mode, [("a.sgf", b"(;SZ[9])"), ("notes.txt", b"x"), ("d/b.SGF", b"(;SZ[13])")])
    (inp,) = find_inputs([str(path)])
    assert inp.kind == "tar"
    assert _sources(str(path)) == [
        Source(f"{path}:a.sgf", b"(;SZ[9])"),
        Source(f"{path}:d/b.SGF", b"(;SZ[13])"),
    ]
    assert list(tmp_path.iterdir()) == [path]  # nothing extracted


@pytest.mark.parametrize("tar_format", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT,
                                        tarfile.PAX_FORMAT, "v7"])
def test_an_uncompressed_tar_of_any_header_format_is_recognised_by_content(
    tmp_path: Path, tar_format: int | str
) -> None:
    # The sniffer refuses text by a tar header's checksum field before tarfile
    # parses it: every format's real header must still pass.
    path = tmp_path / "games.dat"
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT if tar_format == "v7"
                      else tar_format) as archive:
        info = tarfile.TarInfo("a.sgf")
        info.size = 8
        header = info.tobuf(archive.format)
        if tar_format == "v7":  # no "ustar" magic: only the checksum says tar
            block = bytearray(header[:512])
            block[257:265] = bytes(8)
            block[148:156] = b"        "
            block[148:155] = b"%06o\0" % sum(block)
            header = bytes(block)
        archive.fileobj.write(header)  # type: ignore[union-attr]
        archive.fileobj.write(b"(;SZ[9])".ljust(512, b"\0"))  # type: ignore[union-attr]
        archive.offset += len(header) + 512
    (inp,) = find_inputs([str(path)])
    assert inp.kind == "tar"
    assert _sources(str(path)) == [Source(f"{path}:a.sgf", b"(;SZ[9])")]


@pytest.mark.parametrize("text", [b"(;GM[1]FF[4]" + b"C[0123456]" * 60, b"(;" + b" " * 600])
def test_text_like_a_checksum_is_still_text(tmp_path: Path, text: bytes) -> None:
    path = tmp_path / "game.dat"
    path.write_bytes(text)
    (inp,) = find_inputs([str(path)])
    assert inp.kind == "file"


def test_a_zip_is_recognised_by_content(tmp_path: Path) -> None:
    path = tmp_path / "games.tar.gz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("one.sgf", b"(;SZ[9])")
    assert _sources(str(path)) == [Source(f"{path}:one.sgf", b"(;SZ[9])")]


@pytest.mark.parametrize(
    ("name", "compress"),
    [("game.sgf.gz", gzip.compress), ("game.sgf.bz2", bz2.compress), ("x.xz", lzma.compress)],
)
def test_a_lone_compressed_sgf_is_read(
    tmp_path: Path, name: str, compress: Callable[[bytes], bytes]
) -> None:
    path = tmp_path / name
    path.write_bytes(compress(b"(;SZ[9];B[aa])"))
    assert _sources(str(path)) == [Source(str(path), b"(;SZ[9];B[aa])")]
    # A compressed file that expands beyond the limit is refused, the bytes never kept.
    path.write_bytes(compress(b"(;C[" + b"x" * 5000 + b"])"))
    (error,) = _sources(str(path))
    assert isinstance(error, SgfLimitError)
    assert "larger than the limit of 1,000 bytes" in str(error)


def test_archives_on_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("x.sgf")
        info.size = 8
        archive.addfile(info, io.BytesIO(b"(;SZ[9])"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.getvalue())))
    assert _sources("-", limit=10_000) == [Source("-:x.sgf", b"(;SZ[9])")]


@pytest.mark.parametrize(
    ("name", "magic", "format"),
    [
        ("games.7z", b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
        ("games.rar", b"Rar!\x1a\x07\x01\x00", "a RAR archive"),
        ("games.tar.zst", b"\x28\xb5\x2f\xfd", "Zstandard-compressed data"),
        ("game.sgf", b"\x28\xb5\x2f\xfd", "Zstandard-compressed data"),
        ("games.tar.lz", b"LZIP\x01", "lzip-compressed data"),
        ("games.tar.Z", b"\x1f\x9d\x90", "compress (.Z) data"),
    ],
    ids=["7z", "rar", "zstd", "zstd-named-sgf", "lzip", "compress"],
)
def test_unsupported_formats_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, magic: bytes, format: str
) -> None:
    path = tmp_path / name
    path.write_bytes(magic + b"\0" * 40)
    (error,) = _sources(str(path))
    assert isinstance(error, SgfError) and not isinstance(error, SgfSyntaxError)
    expected = f"{format}, which gohash does not read (unpack it, or repack it as .zip or .tar.gz)"
    assert str(error) == f"{path}: {expected}"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(magic + b"\0" * 40)))
    (error,) = _sources("-")
    assert str(error) == f"-: {expected}"


def test_a_damaged_archive_is_an_error_for_that_archive(tmp_path: Path) -> None:
    path = tmp_path / "games.tar.gz"
    write_tar(path, "w:gz", [("a.sgf", b"(;SZ[9])" * 1000)])
    path.write_bytes(path.read_bytes()[:60])
    (error,) = _sources(str(path), limit=100_000)
    assert isinstance(error, SgfError) and "cannot read" in str(error)
    assert error.file == str(path)


def test_unreadable_sources_are_errors(tmp_path: Path) -> None:
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"not a zip file")
    (error,) = _sources(str(bad))
    assert isinstance(error, SgfError) and "cannot read" in str(error)
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;" + b" " * 1001 + b")")
    (error,) = _sources(str(big))
    assert isinstance(error, SgfLimitError)
    (error,) = _sources(str(tmp_path / "missing.sgf"))
    assert "no such file or folder" in str(error)


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"(;SZ[9];B[aa])")))
    assert _sources("-") == [Source("-", b"(;SZ[9];B[aa])")]


def test_own_records_parse_as_sgfmill_parses_them() -> None:
    files = sorted(DATA.glob("*.sgf"))
    assert len(files) >= 9
    for path in files:
        data = path.read_bytes()
        ours = [
            [props for kind, props in game.events() if kind == NODE]
            for game in game_events(data, str(path))
        ]
        theirs = sgf_grammar.parse_sgf_collection(data)
        assert len(ours) == len(theirs)
        for nodes, tree in zip(ours, theirs, strict=True):
            assert nodes == preorder(tree)


@pytest.mark.parametrize(
    "data",
    [
        b"(;SZ[9];B[aa];W[];B [bb];W[cc][dd];B[ee]W[ff];White[gg];B[hh]BL[30];W[ii]\n;B[tt])",
        b"(;SZ[26];B[zz];W[za](;B[ab]C[x])(;B[ac];W[ad]))",
    ],
)
def test_move_nodes_read_as_sgfmill_reads_them(data: bytes) -> None:
    # Move nodes take a faster path through the tokeniser than other properties.
    (game,) = events_of(data)
    (tree,) = sgf_grammar.parse_sgf_collection(data)
    assert [props for kind, props in game if kind == NODE] == preorder(tree)


@pytest.mark.parametrize("size", [None, 0, 5, 10, 11, 100])
def test_reading_a_stream_whatever_its_stated_size(size: int | None) -> None:
    # The size a file had when it was opened only decides the first read: a file
    # that grew is read on to the limit, and past the limit it is an error.
    assert _read_limited(io.BytesIO(b"0123456789"), "f", 10, size) == b"0123456789"
    with pytest.raises(SgfLimitError, match="larger than the limit of 9 bytes"):
        _read_limited(io.BytesIO(b"0123456789"), "f", 9, size)
