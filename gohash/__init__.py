"""gohash: symmetry-aware Zobrist hashing for the game of Go.

Rotating, mirroring or colour-swapping a position maps its hash by a fixed
slot permutation, so the hashes of all 16 symmetric images, and a canonical
key, come from the hash alone.

A package per concept: :mod:`gohash.group` (the symmetry group and the key
schemes, no I/O), :mod:`gohash.go` (board, rulesets, ko), :mod:`gohash.sgf`
(sources, parser, walker, packed datasets), :mod:`gohash.pipeline` (whole
collections as columns, with a compiled core), :mod:`gohash.tools` (canon,
superko, audit), :mod:`gohash.index` (the position index and its queries),
:mod:`gohash.explorer` (the web app) and :mod:`gohash.cli`; every exception is
in :mod:`gohash.errors`.  The names below are loaded on first use, so that
``import gohash`` stays light.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from .errors import (
        BoardSizeError,
        ColourError,
        DamagedIndexError,
        GohashError,
        IllegalMoveError,
        IndexFileError,
        KoError,
        OccupiedPointError,
        OffBoardError,
        OptionError,
        PatternError,
        PositionError,
        QueryCancelled,
        QueryTooBroad,
        SgfError,
        SgfLimitError,
        SgfReadError,
        SgfSyntaxError,
        SuicideError,
        SuperkoError,
        UnknownElementError,
        UnknownGameError,
        UnknownRuleError,
        UnknownSchemeError,
    )
    from .go.board import Board
    from .go.ko import Violation
    from .go.rulesets import RULESETS, Ruleset, ruleset
    from .group.schemes import SCHEMES, KeyScheme, scheme
    from .group.structure import SchemeStructure, scheme_structure
    from .group.symmetry import D4, ELEMENTS, Element, element
    from .index.dupes import DupeGroup, Dupes, Prefix
    from .index.filters import Filters
    from .index.find import position_from_sgf
    from .index.index import Index
    from .index.players import PlayerMatch, PlayerSummary
    from .index.results import (
        Continuation,
        Continuations,
        FindResult,
        GamePosition,
        GameRecord,
        Match,
        Record,
    )
    from .index.store import BuildSummary, IndexInfo, Removed
    from .pattern.search import PatternContinuation, PatternMatch, PatternResult
    from .pipeline.frames import canonical_frame, canonical_frames
    from .pipeline.positions import GameTable, PositionBatch
    from .sgf.walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary
    from .tools.audit import CollectionAudit, CollectionAuditor, audit_paths
    from .tools.canon import CanonOptions
    from .tools.superko import CheckResult, SuperkoVisitor
    from .tools.superko import check as check_superko
    from .version import __version__ as __version__

# Each public name: the module that defines it, and its name there.
_WHERE: dict[str, tuple[str, str]] = {
    **{name: ("errors", name) for name in (
        "BoardSizeError", "ColourError", "DamagedIndexError", "GohashError",
        "IllegalMoveError", "IndexFileError", "KoError", "OccupiedPointError",
        "OffBoardError", "OptionError", "PatternError", "PositionError", "QueryCancelled",
        "QueryTooBroad", "SgfError", "SgfLimitError", "SgfReadError", "SgfSyntaxError",
        "SuicideError", "SuperkoError", "UnknownElementError", "UnknownGameError",
        "UnknownRuleError", "UnknownSchemeError",
    )},
    "Board": ("go.board", "Board"),
    "SuperkoVisitor": ("tools.superko", "SuperkoVisitor"),
    "Violation": ("go.ko", "Violation"),
    "RULESETS": ("go.rulesets", "RULESETS"),
    "Ruleset": ("go.rulesets", "Ruleset"),
    "ruleset": ("go.rulesets", "ruleset"),
    "SCHEMES": ("group.schemes", "SCHEMES"),
    "KeyScheme": ("group.schemes", "KeyScheme"),
    "scheme": ("group.schemes", "scheme"),
    "SchemeStructure": ("group.structure", "SchemeStructure"),
    "scheme_structure": ("group.structure", "scheme_structure"),
    "D4": ("group.symmetry", "D4"),
    "ELEMENTS": ("group.symmetry", "ELEMENTS"),
    "Element": ("group.symmetry", "Element"),
    "element": ("group.symmetry", "element"),
    "Index": ("index.index", "Index"),
    "position_from_sgf": ("index.find", "position_from_sgf"),
    "Continuations": ("index.results", "Continuations"),
    "Filters": ("index.filters", "Filters"),
    "DupeGroup": ("index.dupes", "DupeGroup"),
    "Dupes": ("index.dupes", "Dupes"),
    "Prefix": ("index.dupes", "Prefix"),
    "Continuation": ("index.results", "Continuation"),
    "FindResult": ("index.results", "FindResult"),
    "GamePosition": ("index.results", "GamePosition"),
    "GameRecord": ("index.results", "GameRecord"),
    "Match": ("index.results", "Match"),
    "Record": ("index.results", "Record"),
    "PlayerMatch": ("index.players", "PlayerMatch"),
    "PlayerSummary": ("index.players", "PlayerSummary"),
    "BuildSummary": ("index.store", "BuildSummary"),
    "IndexInfo": ("index.store", "IndexInfo"),
    "Removed": ("index.store", "Removed"),
    "PatternContinuation": ("pattern.search", "PatternContinuation"),
    "PatternMatch": ("pattern.search", "PatternMatch"),
    "PatternResult": ("pattern.search", "PatternResult"),
    "CheckResult": ("tools.superko", "CheckResult"),
    "canonical_frame": ("pipeline.frames", "canonical_frame"),
    "canonical_frames": ("pipeline.frames", "canonical_frames"),
    "GameTable": ("pipeline.positions", "GameTable"),
    "PositionBatch": ("pipeline.positions", "PositionBatch"),
    "BaseVisitor": ("sgf.walk", "BaseVisitor"),
    "GameInfo": ("sgf.walk", "GameInfo"),
    "PositionEvent": ("sgf.walk", "PositionEvent"),
    "WalkSummary": ("sgf.walk", "WalkSummary"),
    "CollectionAudit": ("tools.audit", "CollectionAudit"),
    "CollectionAuditor": ("tools.audit", "CollectionAuditor"),
    "audit_paths": ("tools.audit", "audit_paths"),
    "CanonOptions": ("tools.canon", "CanonOptions"),
    "check_superko": ("tools.superko", "check"),
    "__version__": ("version", "__version__"),
}

__all__ = [
    "D4",
    "ELEMENTS",
    "RULESETS",
    "SCHEMES",
    "BaseVisitor",
    "Board",
    "BoardSizeError",
    "BuildSummary",
    "CanonOptions",
    "CheckResult",
    "CollectionAudit",
    "CollectionAuditor",
    "ColourError",
    "Continuation",
    "Continuations",
    "DamagedIndexError",
    "DupeGroup",
    "Dupes",
    "Element",
    "Filters",
    "FindResult",
    "GameInfo",
    "GamePosition",
    "GameRecord",
    "GameTable",
    "GohashError",
    "IllegalMoveError",
    "Index",
    "IndexFileError",
    "IndexInfo",
    "KeyScheme",
    "KoError",
    "Match",
    "OccupiedPointError",
    "OffBoardError",
    "OptionError",
    "PatternContinuation",
    "PatternError",
    "PatternMatch",
    "PatternResult",
    "PlayerMatch",
    "PlayerSummary",
    "PositionBatch",
    "PositionError",
    "PositionEvent",
    "Prefix",
    "QueryCancelled",
    "QueryTooBroad",
    "Record",
    "Removed",
    "Ruleset",
    "SchemeStructure",
    "SgfError",
    "SgfLimitError",
    "SgfReadError",
    "SgfSyntaxError",
    "SuicideError",
    "SuperkoError",
    "SuperkoVisitor",
    "UnknownElementError",
    "UnknownGameError",
    "UnknownRuleError",
    "UnknownSchemeError",
    "Violation",
    "WalkSummary",
    "audit_paths",
    "canonical_frame",
    "canonical_frames",
    "check_superko",
    "element",
    "position_from_sgf",
    "ruleset",
    "scheme",
    "scheme_structure",
]


def __getattr__(name: str) -> object:
    """Load a public name from its module on first use (PEP 562)."""
    try:
        module, attribute = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'gohash' has no attribute {name!r}") from None
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names and the module's own dunders, not its helpers."""
    return sorted({name for name in globals() if name.startswith("__")} | set(_WHERE))
