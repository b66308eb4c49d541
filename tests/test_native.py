"""gohash._native: the one switch between the compiled kernels and their pure twins,
and the deprecated ``compiled=`` beside it."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from gohash import Index, _native
from gohash.index import games as games_module

DATA = Path(__file__).parent.parent / "data" / "sgf"
CORNER = "X..\n...\n..."


@pytest.mark.parametrize(("pure", "env", "compiled"), [
    (None, "", True), (None, "0", True), (None, "1", False), (True, "", False),
    (False, "1", True),
])
def test_pure_and_the_environment(monkeypatch: pytest.MonkeyPatch, pure: bool | None,
                                  env: str, compiled: bool) -> None:
    monkeypatch.setenv("GOHASH_PURE", env)
    assert _native.use_compiled(pure, _native.core) is compiled
    assert _native.use_compiled(pure, None) is False


def test_stored_games_follow_gohash_pure(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """replay_boards reads GOHASH_PURE like every other function with two paths."""
    calls: list[int] = []
    pure_replay = games_module.replay_pure
    monkeypatch.setattr(games_module, "replay_pure",
                        lambda *a: calls.append(1) or pure_replay(*a))
    db = str(tmp_path / "i.db")
    with Index(db, create=True) as index:
        index.build([str(DATA / "game-9x9.sgf")])
        monkeypatch.setenv("GOHASH_PURE", "1")
        index.game(1)
        assert calls
        calls.clear()
        monkeypatch.setenv("GOHASH_PURE", "0")
        index.game(1)
        assert not calls


def test_compiled_is_a_deprecated_alias(tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    with Index(db, create=True) as index:
        index.build([str(DATA / "game-9x9.sgf")])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            expected = index.pattern(CORNER, pure=True).to_json()
        with pytest.warns(DeprecationWarning, match="compiled= is deprecated") as caught:
            assert index.pattern(CORNER, compiled=False).to_json() == expected
        assert caught[0].filename == __file__
        with pytest.raises(TypeError, match="not both"):
            index.pattern(CORNER, compiled=True, pure=True)
