"""The DuckDB queries of ``docs/large-corpora.md``, run as the page prints them on a canon
dataset, give what Python finds in the JSON Lines output of the same input (and sgfmill
in the SGF files, for players and results)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from sgfmill import sgf, sgf_grammar

from gohash.go.board import Board
from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.dataset import write_dataset
from tests.support.env import CORPUS, ROOT

DATA = ROOT / "data" / "sgf"

pytestmark = pytest.mark.corpus


def queries() -> dict[str, str]:
    """The SQL blocks of the page, by their first line (a comment)."""
    page = (ROOT / "docs" / "large-corpora.md").read_text()
    blocks = re.findall(r"```sql\n(.*?)```", page, re.S)
    return {block.splitlines()[0].removeprefix("-- "): block for block in blocks}


def mirrored(text: str) -> str:
    """A game transposed and with colours exchanged: the same positions up to symmetry."""
    def move(m: re.Match[str]) -> str:
        return f";{'W' if m[1] == 'B' else 'B'}[{m[2][::-1]}]"

    return re.sub(r";([BW])\[([a-s]{2}|)\]", move, text)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("dupes")
    nine = (DATA / "game-9x9.sgf").read_text()
    (folder / "copy.sgf").write_text(nine)
    (folder / "mirrored.sgf").write_text(mirrored(nine))
    inputs = [str(DATA), str(CORPUS / "small"), str(folder)]
    options = CanonOptions(position=True)
    out = tmp_path_factory.mktemp("dataset") / "out"
    write_dataset(inputs, str(out), options, partition_bytes=200_000)
    lines: list[str] = []
    write_records(inputs, lines.append, options)
    return out, [json.loads(line) for line in "".join(lines).splitlines()]


def run(out: Path, query: str, parameters: dict[str, Any] | None = None) -> list[Any]:
    """The query on the dataset at ``out``, gohash's macros defined as the page says."""
    sql = query.replace("'out/", f"'{out}/")
    with duckdb.connect() as con:
        con.execute(queries()["gohash's macros: a position as a board, a key as hex"])
        return con.execute(sql, parameters).fetchall()


def test_distinct_positions(dataset: tuple[Path, list[dict[str, Any]]]) -> None:
    out, records = dataset
    [(count,)] = run(out, queries()["distinct positions up to symmetry"])
    assert count == len({r["position"] for r in records}) > 40_000
    [(keys,)] = run(out, "SELECT count(DISTINCT key) FROM read_parquet('out/positions/*.parquet')")
    # Fewer: keys are a filter; the empty boards of every size share the key 0, for one.
    assert keys == len({r["key"] for r in records}) < count


def test_most_frequent_after_move_20(dataset: tuple[Path, list[dict[str, Any]]]) -> None:
    out, records = dataset
    found = run(out, queries()["the most frequent positions after move 20"])
    counts = Counter(r["position"] for r in records if r["move_number"] > 20)
    keys = {r["position"]: r["key"] for r in records}
    expected = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:10]
    # Boards as gohash draws them, keys as the JSON Lines output writes them.
    assert found == [(str(Board.from_position_key(bytes.fromhex(p))), keys[p], n)
                     for p, n in expected]
    assert found[0][2] >= 3  # the 9x9 game and its two copies at least


def roots(file: str) -> list[Any]:
    """The root nodes of a file's games, as sgfmill reads them."""
    trees = sgf_grammar.parse_sgf_collection(Path(file).read_bytes())
    return [sgf.Sgf_game.from_coarse_game_tree(tree).get_root() for tree in trees]


def test_occurrences_of_a_key_with_players(dataset: tuple[Path, list[dict[str, Any]]]) -> None:
    out, records = dataset
    mirror = next(r for r in records if r["file"].endswith("mirrored.sgf")
                  and r["move_number"] == 30)
    position = bytes.fromhex(mirror["position"])
    found = run(out, queries()["every occurrence of a key with its game's players and result"],
                {"key": bytes.fromhex(mirror["key"][2:]), "position": position})
    expected = []
    for r in records:
        if r["position"] == mirror["position"]:
            root = roots(r["file"])[r["game"]]
            expected.append((r["file"], r["game"], r["move_number"], r["transform"],
                             *(root.get(p) if root.has_property(p) else None
                               for p in ("PB", "PW", "RE"))))
    assert found == sorted(expected)
    # The mirror image reaches the frame by another element than the original does.
    assert len(found) >= 3 and len({row[3] for row in found}) > 1


def test_duplicate_games(dataset: tuple[Path, list[dict[str, Any]]]) -> None:
    out, records = dataset
    found = run(out, queries()["duplicate games: the same main line up to symmetry, "
                               "position by position"])
    lines: dict[tuple[str, int], list[str]] = {}
    for r in records:
        if not r["variation"]:
            lines.setdefault((r["file"], r["game"]), []).append(r["position"])
    groups: dict[tuple[str, ...], list[tuple[str, int]]] = {}
    for game, line in lines.items():
        if len(line) >= 10:
            groups.setdefault(tuple(line), []).append(game)
    expected = sorted((sorted(games), len(line)) for line, games in groups.items()
                      if len(games) > 1)
    assert [([(d["file"], d["game"]) for d in games], length)
            for games, length in found] == expected  # ordered by games, as the query says
    nine = [group for group, _ in found if {"file": str(DATA / "game-9x9.sgf"), "game": 0}
            in group]
    assert [len(group) for group in nine] == [3]  # the game, its copy, its mirror image
