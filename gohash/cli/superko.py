"""``gohash superko``: ko and suicide violations in SGF records.

Scope: arguments and printing only; the checking is :mod:`gohash.superko`'s.
Violations go to standard output (text with diagrams, or JSON Lines); in text
mode input errors go to standard error, in JSON mode they are objects on
standard output too.  The summary goes to standard error.  Exit code 0: no
violation; 1: violations (or "no result" repetitions); 2: an input error in
any file.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import GohashError
from ..rules import RULES, RULESETS, SUICIDE_OPTIONS, Ruleset, ruleset
from ..superko import KINDS, CheckResult, check

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "superko",
        help="find moves that break a ko rule (superko, simple ko) or are suicide",
        description="Replay every game and report each board play that recreates an earlier "
        "position under the ko rule, each forbidden suicide and each play on an occupied point. "
        "Every verdict is confirmed on the exact positions, never on a hash alone.  After an "
        "illegal move the check goes on from the position the record shows.  PATH is an SGF "
        "file, a folder (searched recursively for *.sgf), a zip or tar archive, or - for "
        "standard input.",
        epilog="Rulesets: tromp-taylor (positional, suicide allowed), chinese (positional), "
        "aga (situational), new-zealand (situational, suicide allowed), japanese and korean "
        "(simple ko; a repetition is reported as 'no result').  Without --ruleset each game "
        "is judged under the rules its RU names (Chinese, Japanese, Korean, AGA, NZ or New "
        "Zealand, Tromp-Taylor or TT; GOE or Ing read as tromp-taylor, CGOS's TT-- as "
        "chinese; any case), chinese when it has none or one not known (with a note).  "
        "Exit code 0: no violation; "
        "1: violations found; 2: an input error in any file.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument(
        "--ruleset", choices=tuple(RULESETS),
        help="sets the ko rule and suicide for every game (default: each game's RU)",
    )
    parser.add_argument("--rule", choices=RULES, help="ko rule, overriding the ruleset's")
    parser.add_argument(
        "--suicide", choices=tuple(SUICIDE_OPTIONS),
        help="allow or forbid suicide, overriding the --ruleset or each game's RU",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--variations", action="store_true", help="every variation, not just the main line"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    suicide = None if args.suicide is None else SUICIDE_OPTIONS[args.suicide]
    rules = None if args.ruleset is None else ruleset(args.ruleset)
    result = check(
        args.paths, rules, rule=args.rule, suicide_allowed=suicide, variations=args.variations
    )
    if args.format == "json":
        _print_json(result)
    else:
        _print_text(result)
    summary = result.summary
    for note in summary.notes:
        print(f"gohash superko: note: {note}", file=sys.stderr)
    print(
        f"gohash superko ({_rules_text(rules, args.rule, suicide)}): {summary.files} files, "
        f"{summary.games} games, {len(result.violations)} violations, "
        f"{len(result.errors)} errors",
        file=sys.stderr,
    )
    if result.errors:
        return 2
    return 1 if result.violations else 0


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


def _error_text(error: GohashError) -> str:
    if error.move_number is None:
        return error.reason
    return f"move {error.move_number}: {error.reason}"


def _print_json(result: CheckResult) -> None:
    out = sys.stdout
    for violation in result.violations:
        out.write(json.dumps(violation.to_json()) + "\n")
    for error in result.errors:
        record = {"file": error.file, "game": error.game, "error": _error_text(error)}
        out.write(json.dumps(record) + "\n")


def _print_text(result: CheckResult) -> None:
    out = sys.stdout
    for violation in result.violations:
        out.write(f"{violation.headline()}\n{violation.diagram}\n\n")
    for error in result.errors:
        print(f"gohash superko: error: {error}", file=sys.stderr)
