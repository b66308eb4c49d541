"""Errors: located messages and pickling (batch tools send errors between processes)."""

from __future__ import annotations

import pickle

from gohash import GohashError, OccupiedPointError


def test_errors_survive_pickling_with_their_location() -> None:
    error = OccupiedPointError("white at 'D4' is occupied", point=(3, 3), colour="w",
                               move_number=7, file="a.sgf", game=2)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is OccupiedPointError
    assert (copy.point, copy.colour, copy.file, copy.game, copy.move_number) == (
        (3, 3), "w", "a.sgf", 2, 7)
    assert str(copy) == str(error) == "a.sgf, game 2, move 7: white at 'D4' is occupied"


def test_located_fills_only_unknown_fields() -> None:
    error = GohashError("bad", file="a.sgf")
    assert error.located(file="b.sgf", game=1, move_number=3) is error
    assert (error.file, error.game, error.move_number) == ("a.sgf", 1, 3)
    assert isinstance(error, ValueError)
    assert str(GohashError("no location")) == "no location"
