"""A player's page (Index.player) and sorted game lists (Index.find's ``order``),
against an independent reference: random collections written as SGF, read back
with sgfmill, the eight board maps made with numpy, results counted by hand."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import sgf

from gohash.errors import GohashError
from gohash.group.symmetry import D4
from gohash.index.index import Index
from gohash.index.players import corner_patterns, opening_moves
from tests.support.players import PLAYERS, SIZE, write_games
from tests.support.serve_fixtures import build_index, transforms


def write_long_games(folder: Path, seed: int, count: int) -> list[Path]:
    """``count`` records of 10 to 60 random legal moves (checked on sgfmill's
    board, no suicide), crowded near the corners so that corners get four
    moves and more; some with handicap stones or a pass."""
    from sgfmill import boards

    rng = random.Random(seed)
    near = [p for p in range(SIZE) if p < 6 or p > SIZE - 7]
    paths = []
    for i in range(count):
        black, white = rng.sample(PLAYERS, 2)
        root = f"GM[1]FF[4]CA[UTF-8]SZ[{SIZE}]PB[{black}]PW[{white}]"
        root += rng.choice(["RE[B+R]", "RE[W+3.5]", "RE[0]", ""])
        if rng.random() < 0.8:
            root += f"DT[{rng.choice([2015, 2016])}-05-1{rng.randint(0, 9)}]"
        board = boards.Board(SIZE)
        if rng.random() < 0.1:
            root += "HA[2]AB[dd][pp]"
            board.play(15, 3, "b")
            board.play(3, 15, "b")
        colour = "w" if "AB" in root else "b"
        nodes = []
        for _ in range(rng.randint(10, 60)):
            if rng.random() < 0.02:
                nodes.append(f";{colour.upper()}[]")
            else:
                while True:
                    row, col = rng.choice(near), rng.choice(near)
                    if rng.random() < 0.1:
                        row = rng.randrange(SIZE)
                    if board.get(row, col) is not None:
                        continue
                    trial = board.copy()
                    trial.play(row, col, colour)
                    if trial.get(row, col) is not None:
                        break
                board = trial
                nodes.append(f";{colour.upper()}[{'abcdefghijklmnopqrs'[col]}"
                             f"{'abcdefghijklmnopqrs'[SIZE - 1 - row]}]")
            colour = "w" if colour == "b" else "b"
        path = folder / f"long{i:03d}.sgf"
        path.write_text(f"(;{root}{''.join(nodes)})", encoding="utf-8")
        paths.append(path)
    return paths


def images(point: tuple[int, int]) -> list[tuple[int, int]]:
    """The point's images under the eight board maps (numpy's, as test_serve makes them)."""
    found = []
    for image, swap in transforms(SIZE):
        if not swap:
            where = np.argwhere(image == point[0] * SIZE + point[1])[0]
            found.append((int(where[0]), int(where[1])))
    return found


def least_letters(sequences: list[list[tuple[str, tuple[int, int]]]]) -> tuple[str, ...]:
    """Of some orientations of a move sequence, the one with the least documented
    key (each move's column from the right, then its row from the top), as SGF letters."""
    best = min(sequences, key=lambda ms: [(SIZE - 1 - col, SIZE - 1 - row)
                                         for _, (row, col) in ms])
    return tuple(c + "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[SIZE - 1 - row]
                 for c, (row, col) in best)


def reference(paths: list[Path], name: str, length: int) -> tuple[
    dict[str, tuple[int, int, int, int]], Counter[tuple[str, ...]], dict[int, int]
]:
    """Per colour (games, wins, losses, other); openings as SGF-letter lists; games by year."""
    colours = {c: [0, 0, 0, 0] for c in "bw"}
    openings: Counter[tuple[str, ...]] = Counter()
    years: Counter[int] = Counter()
    for path in paths:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        root = game.get_root()
        winner = game.get_winner()
        date = root.get("DT") if root.has_property("DT") else None
        mine = [c for c, p in (("b", "PB"), ("w", "PW")) if root.get(p) == name]
        for colour in mine:
            tally = colours[colour]
            tally[0] += 1
            tally[1 if winner == colour else 3 if winner is None else 2] += 1
            if date:
                years[int(date[:4])] += 1
        if not mine or root.has_setup_stones():
            continue
        moves = [node.get_move() for node in game.get_main_sequence()[1:]][:length]
        if len(moves) < length or any(p is None for _, p in moves):
            continue
        # Eight orientations of the whole sequence, by the documented key: each
        # move's column from the right, then its row from the top.
        sequences = []
        for k in range(8):
            moved = [(c, images(p)[k]) for c, p in moves]  # type: ignore[arg-type]
            sequences.append(moved)
        openings[least_letters(sequences)] += 1
    return ({c: (t[0], t[1], t[2], t[3]) for c, t in colours.items()}, openings,
            dict(years))


def corner_reference(paths: list[Path], name: str, length: int) -> tuple[
    Counter[tuple[str, ...]], Counter[tuple[tuple[str, ...], str]]
]:
    """The corner patterns of ``name``'s games from an empty board, as SGF-letter
    lists: how often, and how often with the player as Black or White.  Corner
    regions are numpy masks; the maps are numpy's."""
    shapes: Counter[tuple[str, ...]] = Counter()
    sides: Counter[tuple[tuple[str, ...], str]] = Counter()
    side = 9
    masks = []
    for rows in (slice(0, side), slice(SIZE - side, SIZE)):
        for cols in (slice(0, side), slice(SIZE - side, SIZE)):
            mask = np.zeros((SIZE, SIZE), dtype=bool)
            mask[rows, cols] = True
            masks.append(mask)
    for path in paths:
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        root = game.get_root()
        if name not in (root.get("PB"), root.get("PW")) or root.has_setup_stones():
            continue
        player = "b" if root.get("PB") == name else "w"
        moves = [node.get_move() for node in game.get_main_sequence()[1:]]
        played = [(c, p) for c, p in moves if p is not None]
        for mask in masks:
            inside = [(c, p) for c, p in played if mask[p]][:length]
            if len(inside) < length:
                continue
            # The corner this mask holds: of its four board corners, the one inside.
            corner = next(q for q in ((0, 0), (0, SIZE - 1), (SIZE - 1, 0), (SIZE - 1, SIZE - 1))
                          if mask[q])
            turned = [[(c, images(p)[k]) for c, p in inside]  # type: ignore[arg-type]
                      for k in range(8) if images(corner)[k] == (SIZE - 1, SIZE - 1)]
            assert len(turned) == 2
            key = least_letters(turned)
            shapes[key] += 1
            sides[key, player] += 1
    return shapes, sides


@pytest.mark.parametrize("seed", [1, 2])
def test_corner_patterns_equal_a_reference(tmp_path: Path, seed: int) -> None:
    paths = write_long_games(tmp_path, seed, 40)
    db = build_index(tmp_path / "index.db", paths)
    with Index(db, read_only=True) as index:
        for name in PLAYERS:
            for length in (1, 2, 4):
                summary = index.player(name, corner_length=length, openings=None)
                shapes, sides = corner_reference(paths, name, length)
                assert shapes, "the collection should have corner patterns"
                assert Counter({p.letters: p.count for p in summary.corners}) == shapes
                assert Counter({(p.letters, c): n for p in summary.corners
                                for c, n in p.player.items()}) == sides
                assert summary.corners_counted == sum(shapes.values())
                assert summary.corner_length == length
                assert all(p.results.games == p.count for p in summary.corners)
                counts = [p.count for p in summary.corners]
                assert counts == sorted(counts, reverse=True)
            assert len(index.player(name).corners) <= 10
        with pytest.raises(GohashError, match="corner_length must be at least 1"):
            index.player("Lee", corner_length=0)


def test_corner_patterns_on_a_small_board() -> None:
    # 13x13: corners are 7x7, so the centre (6, 6) is in all four.
    size = 13
    moves = [("b", (9, 9)), ("w", (6, 6)), ("b", (2, 10)), ("w", (3, 8)), ("b", (12, 0))]
    # Bottom left has one move; bottom right, turned a quarter to the top right;
    # top left, turned three quarters; top right as played.
    assert corner_patterns(moves, size, 2) == [
        (("w", (6, 6)), ("b", (10, 10))),
        (("w", (6, 6)), ("b", (12, 12))),
        (("b", (9, 9)), ("w", (6, 6))),
    ]
    # (3, 8) turns to (8, 9), or (9, 8) reflected: the first is nearer the right edge.
    assert corner_patterns(moves, size, 3) == [
        (("w", (6, 6)), ("b", (10, 10)), ("w", (8, 9)))]
    assert corner_patterns([], size) == []


@given(st.integers(5, 19).flatmap(lambda size: st.tuples(
    st.just(size),
    st.lists(st.tuples(st.sampled_from("bw"), st.tuples(st.integers(0, size - 1),
                                                         st.integers(0, size - 1))),
             max_size=40),
    st.integers(0, 7), st.integers(1, 5))))
def test_corner_patterns_do_not_depend_on_the_games_orientation(
    case: tuple[int, list[tuple[str, tuple[int, int]]], int, int]
) -> None:
    size, moves, element, length = case
    turned = [(c, D4[element].map_point(p, size)) for c, p in moves]
    assert Counter(corner_patterns(moves, size, length)) == Counter(
        corner_patterns(turned, size, length))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_player_summary_equals_a_reference(tmp_path: Path, seed: int) -> None:
    paths = write_games(tmp_path, seed, 60)
    db = build_index(tmp_path / "index.db", paths)
    with Index(db, read_only=True) as index:
        for name in PLAYERS:
            for length in (1, 3, 4):
                summary = index.player(name, opening_length=length, openings=None)
                colours, openings, years = reference(paths, name, length)
                assert {c: (r.games, r.wins, r.losses, r.other)
                        for c, r in summary.colours.items()} == colours
                assert {y: r.games for y, r in summary.years.items()} == years
                assert Counter({o.letters: o.count for o in summary.openings}) == openings
                assert summary.openings_counted == sum(openings.values())
                counts = [o.count for o in summary.openings]
                assert counts == sorted(counts, reverse=True)
                assert len(summary.records) == sum(
                    1 for p in paths if name in (sgf.Sgf_game.from_bytes(p.read_bytes())
                                                 .get_root().get(k) for k in ("PB", "PW")))
                dates = [r.date for r in summary.records if r.date]
                assert dates == sorted(dates, reverse=True)
        assert index.player("Nobody").records == []
        with pytest.raises(GohashError, match="opening_length must be at least 1"):
            index.player("Lee", opening_length=0)


def test_opening_moves_puts_a_first_4_4_top_right() -> None:
    # A game opening at D4 then C16, as the index stores it under the identity.
    d4, c16 = (3, 3), (15, 2)
    stored = [(0, 1, d4[0] * SIZE + d4[1]), (0, 2, c16[0] * SIZE + c16[1])]
    opening = opening_moves(stored, SIZE)
    assert opening is not None
    assert [c + "abcdefghijklmnopqrs"[p[1]] + "abcdefghijklmnopqrs"[SIZE - 1 - p[0]]
            for c, p in opening] == ["bpd", "wqp"]
    assert opening_moves([(0, 1, -1)], SIZE) is None
    assert opening_moves([(0, 0, 5)], SIZE) is None


@pytest.fixture(scope="module")
def forty_games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of 40 random records (seed 7), built once for the module: the tests
    only read it."""
    folder = tmp_path_factory.mktemp("forty")
    return build_index(folder / "index.db", write_games(folder, 7, 40))


@pytest.mark.parametrize("order", ["date", "-date", "rank", "-rank", "result", "-result"])
def test_find_in_order(forty_games: Path, order: str) -> None:
    with Index(forty_games, read_only=True) as index:
        found = index.find(np.zeros((SIZE, SIZE), dtype=np.int8), limit=None, order=order,
                           to_move="any")
        unsorted = index.find(np.zeros((SIZE, SIZE), dtype=np.int8), limit=None, to_move="any")
        assert sorted(m.record.id for m in found.matches) == sorted(
            m.record.id for m in unsorted.matches)
        name = order.lstrip("-")

        def value(m: object) -> object:
            r = m.record  # type: ignore[attr-defined]
            if name == "date":
                return r.date
            if name == "result":
                return r.winner
            levels = [x for x in (r.black_rank, r.white_rank) if x]
            return max(int(x[:-1]) for x in levels) if levels else None

        values = [value(m) for m in found.matches]
        known = [v for v in values if v is not None]
        assert values == known + [None] * (len(values) - len(known))  # unknown last
        assert known == sorted(known, reverse=order.startswith("-"))  # type: ignore[type-var]
        page = index.find(np.zeros((SIZE, SIZE), dtype=np.int8), limit=5, offset=5,
                          order=order, to_move="any")
        assert [m.record.id for m in page.matches] == [m.record.id for m in found.matches[5:10]]
        with pytest.raises(GohashError, match="order 'sideways' is not one of date, rank"):
            index.find(np.zeros((SIZE, SIZE), dtype=np.int8), order="sideways")


def test_player_and_order_endpoints(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from gohash.explorer.app import create_app

    paths = write_games(tmp_path, 5, 40) + write_long_games(tmp_path, 5, 10)
    db = build_index(tmp_path / "index.db", paths)
    with TestClient(create_app(db), base_url="http://localhost") as client, Index(db) as index:
        name = PLAYERS[2]
        answer = client.get("/api/player", params={"name": name, "limit": 5, "offset": 2})
        assert answer.status_code == 200
        page = answer.json()
        summary = index.player(name)
        assert page["name"] == name
        assert page["colours"]["b"]["games"] == summary.colours["b"].games
        assert page["games"]["total"] == len(summary.records)
        assert [g["game_id"] for g in page["games"]["records"]] == [
            r.id for r in summary.records[2:7]]
        assert [o["moves"] for o in page["openings"]] == [
            ",".join(o.letters) for o in summary.openings]
        # Every opening's first move is drawn in the top right quarter (SGF letters:
        # the column from the left, then the row from the top).
        assert page["openings"] and all(o["moves"][1] >= "j" and o["moves"][2] <= "j"
                                        for o in page["openings"])
        assert [(c["moves"], c["count"], c["player"]) for c in page["corners"]] == [
            (",".join(c.letters), c.count, c.player) for c in summary.corners]
        assert page["corner_length"] == 4 and page["corners_counted"] == summary.corners_counted
        # Every corner pattern is drawn in the top right 9x9.
        assert page["corners"] and all(m[1] >= "k" and m[2] <= "i" for c in page["corners"]
                   for m in c["moves"].split(","))
        by_rank = client.get("/api/player", params={"name": name, "order": "-rank",
                                                    "limit": 200}).json()
        assert [g["game_id"] for g in by_rank["games"]["records"]] == [
            r.id for r in index.player(name, order="-rank").records]
        games = client.get("/api/games", params={"size": 19, "order": "-date", "turn": "0",
                                                 "limit": 200}).json()
        dates = [m["date"] for m in games["matches"] if m["date"]]
        assert dates == sorted(dates, reverse=True)
        for params, message in [
            ({}, "name must be a player's name"),
            ({"name": "x" * 201}, "name must be a player's name"),
            ({"name": "Lee", "order": "age"}, "order must be one of date, -date, rank"),
        ]:
            answer = client.get("/api/player", params=params)
            assert answer.status_code == 400 and message in answer.json()["error"]
        answer = client.get("/api/games", params={"order": "sideways"})
        assert answer.status_code == 400 and "order must be one of" in answer.json()["error"]
