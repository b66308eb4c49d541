"""Rulesets: the ko rule and suicide rule a game is replayed and judged under.

Scope: the ruleset table of docs/design.md, section "Ko and superko"
(:data:`RULESETS`), overriding a ruleset's ko or suicide rule (:func:`ruleset`,
:meth:`Ruleset.overridden`), reading a record's ``RU`` property
(:func:`record_ruleset`), and the spelling of the ``--suicide`` option every
command shares (:data:`SUICIDE_OPTIONS`).

The walker (:mod:`gohash.sgf.walk`) gives every game the ruleset its ``RU`` names
and replays it with that ruleset's suicide rule unless the caller overrides it;
the superko checker (:mod:`gohash.tools.superko`) also takes the ko rule from it
unless the user names a ruleset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UnknownRuleError

__all__ = [
    "DEFAULT_RULESET",
    "RULES",
    "RULESETS",
    "SUICIDE_HELP",
    "SUICIDE_OPTIONS",
    "Ruleset",
    "record_ruleset",
    "ruleset",
]

RULES = ("positional", "situational", "natural", "simple")
"""The ko rules: positional, situational and natural situational superko, simple ko."""


@dataclass(frozen=True)
class Ruleset:
    """A ko rule and whether suicide is allowed (docs/design.md, section "Ko and superko")."""

    name: str
    rule: str
    suicide_allowed: bool

    def overridden(
        self, *, rule: str | None = None, suicide_allowed: bool | None = None
    ) -> Ruleset:
        """This ruleset with its ko rule or suicide rule replaced where given."""
        if rule is not None and rule not in RULES:
            raise UnknownRuleError(f"unknown ko rule {rule!r}; expected one of {', '.join(RULES)}")
        return Ruleset(
            self.name,
            self.rule if rule is None else rule,
            self.suicide_allowed if suicide_allowed is None else suicide_allowed,
        )


RULESETS = {
    "tromp-taylor": Ruleset("tromp-taylor", "positional", True),
    "chinese": Ruleset("chinese", "positional", False),
    "aga": Ruleset("aga", "situational", False),
    "new-zealand": Ruleset("new-zealand", "situational", True),
    "japanese": Ruleset("japanese", "simple", False),
    "korean": Ruleset("korean", "simple", False),
}

DEFAULT_RULESET = "chinese"

SUICIDE_OPTIONS = {"allowed": True, "forbidden": False}
"""``--suicide`` values and what they set :attr:`Ruleset.suicide_allowed` to."""

SUICIDE_HELP = (
    "allow or forbid suicide in every game, overriding the rules the record's RU names "
    "(default: as RU says; chinese, suicide forbidden, without RU)"
)

# RU values, normalised by _spelling, and the ruleset each names.
_SPELLINGS = {
    "chinese": "chinese",
    "japanese": "japanese",
    "korean": "korean",
    "aga": "aga",
    "nz": "new-zealand",
    "newzealand": "new-zealand",
    "tromptaylor": "tromp-taylor",
    "tt": "tromp-taylor",
    "goe": "tromp-taylor",
    "ing": "tromp-taylor",
    "tt--": "chinese",
    "cgos": "chinese",
}

_SHOWN = 40  # characters of an unknown RU quoted in its note

_BETWEEN_WORDS = re.compile(r"(?<=[^\W_])[\s./_-]+(?=[^\W_])")


def _spelling(text: str) -> str:
    return _BETWEEN_WORDS.sub("", text.strip().casefold())


def ruleset(
    name: str = DEFAULT_RULESET, *, rule: str | None = None, suicide_allowed: bool | None = None
) -> Ruleset:
    """The named ruleset, with its ko rule or suicide rule overridden if given."""
    if name not in RULESETS:
        raise UnknownRuleError(f"unknown ruleset {name!r}; expected one of {', '.join(RULESETS)}")
    return RULESETS[name].overridden(rule=rule, suicide_allowed=suicide_allowed)


def record_ruleset(ru: str | None) -> tuple[Ruleset, str | None]:
    """The ruleset a record's ``RU`` value names, and a note if it names none
    that gohash knows (the default ruleset then applies)."""
    if ru is None or not ru.strip():
        return RULESETS[DEFAULT_RULESET], None
    name = _SPELLINGS.get(_spelling(ru))
    if name is None:
        shown = ru if len(ru) <= _SHOWN else ru[:_SHOWN] + "..."
        return RULESETS[DEFAULT_RULESET], (
            f"RU[{shown}] is not a ruleset gohash knows: the default, {DEFAULT_RULESET}, applies"
        )
    return RULESETS[name], None
