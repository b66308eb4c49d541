"""Generated records in which the superko reference finds each kind of violation
in a variation, and one that plays on an occupied point in a variation: pinned
in ``tests/data/verdict-records.json``, so the tests need not search for them.

``python -m tests.support.verdict_records`` searches again with Hypothesis's
``find`` over :func:`tests.support.sgfgen.records` (up to 1,000 records each)
and writes the file: the generator's own output, never records written by hand.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hypothesis import Phase, find, settings

from gohash.go.ko import KINDS
from gohash.go.rulesets import Ruleset
from tests.support import sgfgen
from tests.support.superko_reference import reference

PINNED = Path(__file__).resolve().parents[1] / "data" / "verdict-records.json"

AGA_NATURAL = Ruleset("test", "natural", False)
TARGETS: list[tuple[str, Ruleset, str]] = [
    ("positional", Ruleset("test", "positional", True), KINDS["positional"]),
    ("situational", Ruleset("test", "situational", True), KINDS["situational"]),
    ("natural", AGA_NATURAL, KINDS["natural"]),
    ("simple", Ruleset("test", "simple", True), KINDS["simple"]),
    ("no result", Ruleset("test", "simple", True), "no result"),
    ("suicide", AGA_NATURAL, "suicide"),
]
"""(name, rules, kind): a record whose reference verdicts under ``rules`` include
``kind`` in a variation."""


def reaches(record: sgfgen.Record, rules: Ruleset, kind: str) -> bool:
    """Whether the reference finds a violation of ``kind`` in a variation of ``record``."""
    return any(v[5] == kind and v[1] != () for v in reference(record, rules, True)[0])


def occupied_in_a_variation(record: sgfgen.Record) -> bool:
    """Whether ``record`` plays on an occupied point in a variation (an error that ends
    that line)."""
    return any(isinstance(item, sgfgen.Fault) and item.kind == "occupied" and item.variation
               for item in sgfgen.replay(record))


def _tree(data: dict[str, Any]) -> sgfgen.Tree:
    nodes = tuple(
        sgfgen.Node(tuple(n["black"]), tuple(n["white"]), tuple(n["empty"]),
                    tuple((name, tuple(values)) for name, values in n["moves"]),
                    tuple((name, value) for name, value in n["extra"]))
        for n in data["nodes"]
    )
    return sgfgen.Tree(nodes, tuple(_tree(child) for child in data["children"]))


def _record(data: dict[str, Any]) -> sgfgen.Record:
    return sgfgen.Record(tuple(sgfgen.Game(g["size"], _tree(g["tree"])) for g in data["games"]))


def pinned() -> dict[str, sgfgen.Record]:
    """The pinned records by target name (:data:`TARGETS`, and ``"occupied"``)."""
    return {name: _record(data) for name, data in json.loads(PINNED.read_text()).items()}


def search() -> dict[str, sgfgen.Record]:
    """A record for each target, found by the generator."""
    budget = settings(max_examples=1000, database=None, deadline=None, phases=[Phase.generate])
    found = {
        name: find(sgfgen.records(faults=False),
                   lambda record, rules=rules, kind=kind: reaches(record, rules, kind),
                   settings=budget)
        for name, rules, kind in TARGETS
    }
    found["occupied"] = find(sgfgen.records(), occupied_in_a_variation, settings=budget)
    return found


if __name__ == "__main__":
    lines = [f"{json.dumps(name)}: {json.dumps(asdict(record), separators=(',', ':'))}"
             for name, record in search().items()]
    PINNED.write_text("{\n" + ",\n".join(lines) + "\n}\n")
