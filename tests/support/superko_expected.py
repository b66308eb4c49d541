"""The superko verdicts expected on data/sgf/superko under each ruleset, and the
errors of its records."""

from __future__ import annotations

from gohash.go.ko import KINDS
from tests.support.env import ROOT

RECORDS = ROOT / "data" / "sgf" / "superko"


PSK, SSK, NSSK = KINDS["positional"], KINDS["situational"], KINDS["natural"]


Verdict = tuple[int, str, int | None, int | None]  # move number, kind, repeats, cycle


EXPECTED: dict[str, dict[str, list[Verdict]]] = {
    "triple-ko": {
        "chinese": [(28, PSK, 22, 6)],
        "aga": [(28, SSK, 22, 6)],
        "natural": [(28, NSSK, 22, 6)],
        "tromp-taylor": [(28, PSK, 22, 6)],
        "new-zealand": [(28, SSK, 22, 6)],
        "japanese": [(28, "no result", 22, 6)],
    },
    "round-robin-ko": {
        "chinese": [(36, PSK, 28, 8)],
        "aga": [(36, SSK, 28, 8)],
        "natural": [(36, NSSK, 28, 8)],
        "tromp-taylor": [(36, PSK, 28, 8)],
        "new-zealand": [(36, SSK, 28, 8)],
        "japanese": [(36, "no result", 28, 8)],
    },
    "send-two-return-one": {
        "chinese": [(13, PSK, 10, 3), (16, PSK, 13, 3)],
        "aga": [(16, SSK, 10, 6)],
        "natural": [(16, NSSK, 10, 6)],
        "tromp-taylor": [(13, PSK, 10, 3), (16, PSK, 13, 3)],
        "new-zealand": [(16, SSK, 10, 6)],
        "japanese": [(13, "no result", 10, 3), (16, "no result", 13, 3)],
    },
    "psk-not-ssk": {
        "chinese": [(13, PSK, 10, 3)],
        "aga": [],
        "natural": [],
        "tromp-taylor": [(13, PSK, 10, 3)],
        "new-zealand": [],
        "japanese": [(13, "no result", 10, 3)],
    },
    "pass-ssk-nssk": {
        "chinese": [(12, PSK, 10, 2)],
        "aga": [(12, SSK, 10, 2)],
        "natural": [],
        "tromp-taylor": [(12, PSK, 10, 2)],
        "new-zealand": [(12, SSK, 10, 2)],
        "japanese": [(12, "simple ko", 10, 2)],
    },
    "suicide-single": {
        "chinese": [(5, "suicide", None, None), (7, "suicide", None, None)],
        "aga": [(5, "suicide", None, None), (7, "suicide", None, None)],
        "natural": [(5, "suicide", None, None), (7, "suicide", None, None)],
        "tromp-taylor": [(5, PSK, 4, 1), (7, PSK, 6, 1)],
        "new-zealand": [],
        "japanese": [(5, "suicide", None, None), (7, "suicide", None, None)],
    },
    "suicide-multi": {
        "chinese": [(7, "suicide", None, None)],
        "aga": [(7, "suicide", None, None)],
        "natural": [(7, "suicide", None, None)],
        "tromp-taylor": [],
        "new-zealand": [],
        "japanese": [(7, "suicide", None, None)],
    },
    "handicap-setup": {
        "chinese": [(4, PSK, 0, 4)],
        "aga": [(4, SSK, 0, 4)],
        "natural": [],
        "tromp-taylor": [(4, PSK, 0, 4)],
        "new-zealand": [(4, SSK, 0, 4)],
        "japanese": [(4, "no result", 0, 4)],
    },
    # Move 7 is on an occupied point: an error that ends the game (ERRORS).
    "occupied": {
        "chinese": [(5, "suicide", None, None)],
        "aga": [(5, "suicide", None, None)],
        "natural": [(5, "suicide", None, None)],
        "tromp-taylor": [(5, PSK, 4, 1)],
        "new-zealand": [],
        "japanese": [(5, "suicide", None, None)],
    },
}


# The records' errors under every ruleset: the README's "error at" entries.
ERRORS = {"occupied": [f"{RECORDS / 'occupied.sgf'}, game 0, move 7: black at 'C3' is occupied"]}
