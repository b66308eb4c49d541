"""The table of game metadata (:mod:`gohash.metadata`) drives what is stored and
searched: the place (``PC``) and the game name (``GN``), fields of the table
only, are read by both readers, stored by the index, found by their filters in
the library, the CLI and the server, and written in their JSON."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from gohash.cli import main
from gohash.errors import GohashError
from gohash.explorer.app import create_app
from gohash.index.filters import FILTERS, Filters
from gohash.index.index import Index
from gohash.metadata import FIELDS, STORED, TEXT_PROPERTIES
from gohash.pipeline import positions as positions_module
from gohash.sgf.inputs import Source
from tests.support.serve_fixtures import LOCAL

RECORDS = {
    "tokyo.sgf": "(;GM[1]FF[4]SZ[9]PB[a]PW[b]PC[Tokyo, Nihon Ki-in]GN[Honinbo final];B[ee];W[cc])",
    "seoul.sgf": "(;GM[1]FF[4]SZ[9]PB[c]PW[d]PC[Seoul]GN[Myeongin];B[ee];W[gg])",
    "nowhere.sgf": "(;GM[1]FF[4]SZ[9]PB[e]PW[f];B[ee];W[gc])",
}
# Black's stone at E5 on 9x9: every record has it after move 1.
E5 = np.zeros((9, 9), np.int8)
E5[4, 4] = 1
DIAGRAM = "\n".join(". . . . X . . . ." if row == 4 else ". " * 8 + "." for row in range(9))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("metadata")
    for name, text in RECORDS.items():
        (folder / name).write_text(text)
    path = folder / "index.db"
    assert main(["index", "build", str(path), str(folder)]) == 0
    return path


def test_place_and_name_are_fields_of_the_table() -> None:
    stored = {f.prop: f for f in STORED}
    assert {"PC", "GN"} <= set(stored) and {"PC", "GN"} <= set(TEXT_PROPERTIES)
    assert stored["PC"].filter is not None and stored["GN"].filter is not None
    assert len({f.name for f in FIELDS}) == len(FIELDS)


@pytest.mark.parametrize("pure", [False, True])
def test_both_readers_keep_the_place(monkeypatch: pytest.MonkeyPatch, pure: bool) -> None:
    if pure:
        monkeypatch.setenv("GOHASH_PURE", "1")
    elif not positions_module.CORE_AVAILABLE:
        pytest.skip("the compiled core is not built")
    source = Source("tokyo.sgf", RECORDS["tokyo.sgf"].encode())
    batches = list(positions_module.read_positions([source]))
    text = batches[0].games.text
    assert text["PC"] == ["Tokyo, Nihon Ki-in"] and text["GN"] == ["Honinbo final"]


@pytest.mark.parametrize(("filters", "expected"), [
    (Filters(fields={"place": "tokyo"}), {"tokyo.sgf"}),
    (Filters(fields={"place": "SEOUL"}), {"seoul.sgf"}),
    (Filters(fields={"name": "honinbo"}), {"tokyo.sgf"}),
    (Filters(fields={"name": "o", "place": "seoul"}), {"seoul.sgf"}),
    (Filters(fields={"place": "paris"}), set()),
])
def test_library_filters(db: Path, filters: Filters, expected: set[str]) -> None:
    with Index(db) as index:
        found = index.find(E5, filters=filters, limit=None)
        assert {Path(m.record.file).name for m in found.matches} == expected
        for match in found.matches:
            record = RECORDS[Path(match.record.file).name]
            assert (match.record.fields["place"] or "") in record
        assert index.continuations(E5, filters=filters).total == len(expected)


def test_unknown_or_empty_field_filter_is_refused() -> None:
    with pytest.raises(GohashError, match="no filter 'colour'"):
        Filters(fields={"colour": "red"})
    with pytest.raises(GohashError, match="place ' ' is empty"):
        Filters(fields={"place": " "})


def test_cli_filters_and_json(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diagram = "\n".join(". . . . X . . . ." if row == 4 else ". " * 8 + "."
                        for row in range(9))
    code = main(["index", "find", str(db), "--position", diagram, "--format", "json",
                 "--place", "nihon ki-in"])
    out = capsys.readouterr().out
    assert code == 0
    match, = json.loads(out)["matches"]
    assert (match["place"], match["name"]) == ("Tokyo, Nihon Ki-in", "Honinbo final")
    code = main(["index", "find", str(db), "--position", diagram, "--format", "json",
                 "--name", "myeongin"])
    match, = json.loads(capsys.readouterr().out)["matches"]
    assert code == 0 and match["place"] == "Seoul"


def test_server_filters_json_and_info(db: Path) -> None:
    with TestClient(create_app(db), raise_server_exceptions=False, base_url=LOCAL) as client:
        info = client.get("/api/info").json()
        # The stored fields' filters come after the computed ones, as in the CLI's help.
        assert [f["name"] for f in info["filters"]][-2:] == ["name", "place"]
        assert info["filters"][-1] == {
            "name": "place", "option": "--place", "kind": "substring", "label": "Place",
            "help": "the place (PC) contains TEXT", "placeholder": "", "choices": []}
        answer = client.get("/api/games", params={"size": 9, "moves": "ee",
                                                   "place": "seoul"}).json()
        match, = answer["matches"]
        assert (match["place"], match["name"]) == ("Seoul", "Myeongin")
        everything = client.get("/api/games", params={"size": 9, "moves": "ee"}).json()
        assert everything["total"] == 3
        assert {m["place"] for m in everything["matches"]} == {"Seoul", "Tokyo, Nihon Ki-in",
                                                               None}


# -- one list of filters ----------------------------------------------------------------------

VALID = {"substring": "a", "date": "2017", "rank": "5d", "choice": "B", "yes_no": "yes"}


def test_one_list_of_filters_makes_filters_the_cli_and_the_server(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    computed = [f.name for f in dataclasses.fields(Filters) if f.name != "fields"]
    assert [spec.name for spec in FILTERS] == computed + [f.filter.name for f in STORED
                                                          if f.filter is not None]
    assert main(["index", "find", "--help"]) == 0
    help_text = capsys.readouterr().out
    with TestClient(create_app(db), raise_server_exceptions=False, base_url=LOCAL) as client:
        for spec in FILTERS:
            assert spec.option in help_text and spec.help.split()[0] in help_text
            text = VALID[spec.kind]
            value = spec.parse(text)
            assert Filters.from_values({spec.name: value}) is not None
            response = client.get("/api/games", params={"size": 9, "moves": "ee",
                                                        spec.name: text})
            assert response.status_code == 200, (spec.name, response.text)
            # The CLI takes the same value (a yes_no filter as --name).
            argv = [spec.option] if spec.kind == "yes_no" else [spec.option, text]
            assert main(["index", "find", str(db), "--position", DIAGRAM, "--format", "json",
                         *argv]) == 0
            assert json.loads(capsys.readouterr().out)["total"] == response.json()["total"]
