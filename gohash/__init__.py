"""gohash: symmetry-aware Zobrist hashing for the game of Go.

Rotating, mirroring or colour-swapping a position maps its hash by a fixed
slot permutation, so the hashes of all 16 symmetric images, and a canonical
key, come from the hash alone.
"""

from .errors import (
    BoardSizeError,
    GohashError,
    PositionError,
    UnknownElementError,
    UnknownSchemeError,
)
from .schemes import SCHEMES, KeyScheme, scheme
from .symmetry import D4, ELEMENTS, Element, element

__all__ = [
    "D4",
    "ELEMENTS",
    "SCHEMES",
    "BoardSizeError",
    "Element",
    "GohashError",
    "KeyScheme",
    "PositionError",
    "UnknownElementError",
    "UnknownSchemeError",
    "element",
    "scheme",
]
