"""The front door's doctests (``scheme``, ``transform``, ``canonical``, ``Board``,
``Index.find``, ``Index.pattern`` on ``data/sgf``), run from the repository's root,
where their paths lead."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

MODULES = ["gohash.group.coords", "gohash.group.schemes", "gohash.group.symmetry",
           "gohash.go.board", "gohash.index.index"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    failed, tried = doctest.testmod(importlib.import_module(name),
                                    optionflags=doctest.ELLIPSIS, report=True)
    assert tried and not failed, f"{failed} of {tried} examples of {name} failed (above)"
