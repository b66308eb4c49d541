"""The compiled kernels, and the one switch between them and their pure twins.

Scope: the one import of each of the pipeline's compiled kernels (None where
``pip install`` had no C compiler): :data:`core` the SGF replay of
:func:`gohash.pipeline.positions.read_positions` (``gohash.pipeline._sgf_replay``),
:data:`frames` the frames of its batches (``gohash.pipeline._frames``),
:data:`stored` the replay of stored games (``gohash.pipeline._stored_replay``);
and the one reading of ``GOHASH_PURE``.  The pattern kernel, a layer above,
is imported by :mod:`gohash.pattern.kernel`, so that the pipeline, which
imports this module, loads nothing of pattern search.  The kernels trust
their callers' checks of what they are given (see each kernel).  Every
function with both paths takes
``pure`` and reads it through :func:`use_compiled`: True the pure twin, False
the compiled kernel where built, None (the default) the compiled kernel where
built unless ``GOHASH_PURE`` is set (to anything but ``""`` or ``"0"``).
"""

from __future__ import annotations

import os

from ._deprecated import deprecated

try:
    from .pipeline import _sgf_replay as core
except ImportError as _error:  # no C compiler at install: the pure twins do the work
    core = None  # type: ignore[assignment]
    CORE_MISSING = f"{_error}"
else:
    CORE_MISSING = ""

try:
    from .pipeline import _frames as frames
except ImportError:  # as above
    frames = None  # type: ignore[assignment]

try:
    from .pipeline import _stored_replay as stored
except ImportError:  # as above
    stored = None  # type: ignore[assignment]

__all__ = [
    "CORE_MISSING", "core", "forced_pure", "frames", "pure_from_compiled", "stored",
    "use_compiled", "wants_compiled",
]


def forced_pure() -> bool:
    """Whether ``GOHASH_PURE`` asks every default (``pure=None``) for the pure twins."""
    return os.environ.get("GOHASH_PURE", "") not in ("", "0")


def wants_compiled(pure: bool | None) -> bool:
    """Whether ``pure`` asks for the compiled kernels (where built)."""
    return not (forced_pure() if pure is None else pure)


def use_compiled(pure: bool | None, kernel: object | None) -> bool:
    """Whether a function called with ``pure`` runs ``kernel`` (a compiled
    module, or None where it is not built) rather than its pure twin."""
    return kernel is not None and wants_compiled(pure)


def pure_from_compiled(compiled: bool | None, pure: bool | None, where: str, *,
                       depth: int = 1) -> bool | None:
    """``pure``, or the deprecated ``compiled`` (its negation) of ``where`` with a
    :class:`DeprecationWarning` at the caller ``depth`` frames above ``where``;
    both given is a :class:`TypeError`."""
    if compiled is None:
        return pure
    if pure is not None:
        raise TypeError(f"{where} takes pure= or the deprecated compiled=, not both")
    deprecated("compiled=", "pure= (pure=not compiled)", where, depth=depth + 1)
    return not compiled
