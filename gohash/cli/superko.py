"""``gohash superko``: ko and suicide violations in SGF records.

Scope: arguments and printing only; the checking is :mod:`gohash.tools.superko`'s.
Violations go to standard output as each file is checked (text with diagrams,
or JSON Lines); input errors, notes, the summary and (on a terminal) a
progress bar go to standard error, in either format.  Exit code 0: no
violation; 1: violations (or "no result" repetitions); 2: an input error in
any file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import counted
from ..go.ko import KINDS
from ..go.rulesets import RULES, RULESETS, SUICIDE_OPTIONS, Ruleset, ruleset
from ..group.schemes import DEFAULT_SCHEME
from ..tools.superko import check_files
from .options import (
    EXIT_CLEAN,
    EXIT_ERRORS,
    EXIT_FINDINGS,
    add_exit_codes,
    add_format,
    add_jobs,
    add_scheme,
    add_suicide,
    add_variations,
    leaf,
)
from .progress import reporter

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "superko",
        help="find moves that break a ko rule (superko, simple ko) or are suicide",
        description="Replay every game and report each board play that recreates an earlier "
        "position under the ko rule and each forbidden suicide.  Every verdict is confirmed on "
        "the exact positions, never on a hash alone.  After such a move the check goes on from "
        "the position the record shows.  A play on an occupied point is an error of the record, "
        "as in every command: it is reported and ends its game.  PATH is an SGF "
        "file, a folder (searched recursively for *.sgf), a zip or tar archive, or - for "
        "standard input.  Violations are printed as each file is checked.",
        epilog="Rulesets: tromp-taylor (positional, suicide allowed), chinese (positional), "
        "aga (situational), new-zealand (situational, suicide allowed), japanese and korean "
        "(simple ko; a repetition is reported as 'no result').  Without --ruleset each game "
        "is judged under the rules its RU names (Chinese, Japanese, Korean, AGA, NZ or New "
        "Zealand, Tromp-Taylor or TT; GOE or Ing read as tromp-taylor, CGOS's TT-- as "
        "chinese; any case), chinese when it has none or one not known (with a note).",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument(
        "--ruleset", choices=tuple(RULESETS),
        help="sets the ko rule and suicide for every game (default: each game's RU)",
    )
    parser.add_argument("--rule", choices=RULES, help="ko rule, overriding the ruleset's")
    add_suicide(
        parser, help="allow or forbid suicide, overriding the --ruleset or each game's RU"
    )
    add_format(parser, ("text", "jsonl"), deprecated={"json": "jsonl"},
               help="violation format")
    add_variations(parser)
    add_scheme(parser,
               help="key scheme of the hash that narrows the search for repeated "
               f"positions (default {DEFAULT_SCHEME}, as everywhere); verdicts are the same "
               "under every scheme")
    add_jobs(parser)
    add_exit_codes(parser, "violations found", files=True)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    suicide = None if args.suicide is None else SUICIDE_OPTIONS[args.suicide]
    rules = None if args.ruleset is None else ruleset(args.ruleset)
    report = reporter(args)
    out = sys.stdout
    files = games = violations = 0
    for found in check_files(
        args.paths, rules, rule=args.rule, suicide_allowed=suicide,
        variations=args.variations, scheme=args.scheme, jobs=args.jobs,
        progress=report.progress, on_death=report.note,
    ):
        files += found.summary.files
        games += found.summary.games
        violations += len(found.violations)
        for note in found.summary.notes:
            report.note(note)
        if found.violations:
            report.clear()
            for violation in found.violations:
                if args.format == "jsonl":
                    out.write(json.dumps(violation.to_json()) + "\n")
                else:
                    out.write(f"{violation.headline()}\n{violation.diagram}\n\n")
            out.flush()
        for error in found.errors:
            report.error(error)
    report.say(
        f"{counted(files, 'file')}, {counted(games, 'game')}, "
        f"{counted(violations, 'violation')}, {counted(report.errors, 'error')} "
        f"({_rules_text(rules, args.rule, suicide)})"
    )
    if report.errors:
        return EXIT_ERRORS
    return EXIT_FINDINGS if violations else EXIT_CLEAN


def _rules_text(rules: Ruleset | None, rule: str | None, suicide: bool | None) -> str:
    """The rules of the check, as the summary line states them."""
    if rules is not None:
        rules = rules.overridden(rule=rule, suicide_allowed=suicide)
        parts = [f"{rules.name}: {KINDS[rules.rule]}"]
        suicide = rules.suicide_allowed
    else:
        parts = ["rules from RU"]
        if rule is not None:
            parts.append(KINDS[rule])
    if suicide is not None:
        parts.append(f"suicide {'allowed' if suicide else 'forbidden'}")
    return ", ".join(parts)
