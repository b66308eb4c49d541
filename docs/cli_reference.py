"""The ``gohash`` argument parser as the CLI reference page (docs/cli.md) renders it.

Scope: :func:`parser`, gohash's own parser (:func:`gohash.cli.build_parser`)
with its help texts made safe for reStructuredText, which sphinx-argparse
parses them as.  Help written for a terminal says ``*.sgf``; unescaped, a lone
``*`` opens emphasis and the build warns.  Nothing else is changed, so the page
says what ``gohash SUBCOMMAND --help`` says.
"""

from __future__ import annotations

import argparse
import re

from gohash.cli import build_parser

# Characters that start or end inline markup in reStructuredText.
_MARKUP = re.compile(r"([\\*`|_])")


def _escape(text: str | None) -> str | None:
    return None if text is None else _MARKUP.sub(r"\\\1", text)


def _escape_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = _escape(parser.description)
    parser.epilog = _escape(parser.epilog)
    for action in parser._actions:
        if action.help is not argparse.SUPPRESS:
            action.help = _escape(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                choice.help = _escape(choice.help)
            for sub in action.choices.values():
                _escape_parser(sub)


def parser() -> argparse.ArgumentParser:
    """gohash's parser, help texts escaped for reStructuredText."""
    result = build_parser()
    _escape_parser(result)
    return result
