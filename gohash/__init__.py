"""gohash: symmetry-aware Zobrist hashing for the game of Go.

Rotating, mirroring or colour-swapping a position maps its hash by a fixed
slot permutation, so the hashes of all 16 symmetric images, and a canonical
key, come from the hash alone.

Layers, each its own module: :mod:`~gohash.symmetry` (the group),
:mod:`~gohash.schemes` (key tables and the group's action on hashes),
:mod:`~gohash.board` (rules, undo, incremental hashes), :mod:`~gohash.sgf` and
:mod:`~gohash.walk` (reading collections, replaying them for visitors),
:mod:`~gohash.positions` (whole collections as columns, with a compiled core), and the
tools built on them: :mod:`~gohash.canon`, :mod:`~gohash.superko`,
:mod:`~gohash.index` (with :mod:`~gohash.indexfile`, :mod:`~gohash.frames` and
:mod:`~gohash.indexing`) and :mod:`~gohash.audit`.
Functions named like their module (``walk.walk``, ``canon.canon``) are imported
from the module, so that ``gohash.walk`` stays the module.
"""

from .audit import (
    CollectionAudit,
    CollectionAuditor,
    audit_paths,
)
from .board import (
    Board,
    IllegalMoveError,
    KoError,
    OccupiedPointError,
    OffBoardError,
    SuicideError,
)
from .canon import CanonOptions
from .errors import (
    BoardSizeError,
    ColourError,
    GohashError,
    PositionError,
    UnknownElementError,
    UnknownSchemeError,
)
from .frames import canonical_frame, canonical_frames
from .index import Continuations, Filters, Index, position_from_sgf
from .indexfile import IndexFileError
from .ko import SuperkoVisitor, Violation
from .positions import GameTable, PositionBatch
from .schemes import SCHEMES, KeyScheme, scheme
from .sgf import SgfError, SgfLimitError, SgfReadError, SgfSyntaxError
from .structure import SchemeStructure, scheme_structure
from .superko import (
    RULESETS,
    Ruleset,
    UnknownRuleError,
    ruleset,
)
from .superko import check as check_superko
from .symmetry import D4, ELEMENTS, Element, element
from .version import __version__ as __version__
from .walk import BaseVisitor, GameInfo, PositionEvent, WalkSummary

__all__ = [
    "D4",
    "ELEMENTS",
    "RULESETS",
    "SCHEMES",
    "BaseVisitor",
    "Board",
    "BoardSizeError",
    "CanonOptions",
    "CollectionAudit",
    "CollectionAuditor",
    "ColourError",
    "Continuations",
    "Element",
    "Filters",
    "GameInfo",
    "GameTable",
    "GohashError",
    "IllegalMoveError",
    "Index",
    "IndexFileError",
    "KeyScheme",
    "KoError",
    "OccupiedPointError",
    "OffBoardError",
    "PositionBatch",
    "PositionError",
    "PositionEvent",
    "Ruleset",
    "SchemeStructure",
    "SgfError",
    "SgfLimitError",
    "SgfReadError",
    "SgfSyntaxError",
    "SuicideError",
    "SuperkoVisitor",
    "UnknownElementError",
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
