"""The compiled pattern kernel, imported once: :data:`match`
(``gohash.pattern._match``), None where ``pip install`` had no C compiler.

Scope: that import only.  Whether a search runs the kernel or its pure twin is
:func:`gohash._native.use_compiled`'s, the one reading of ``GOHASH_PURE``;
:mod:`gohash._native` imports the pipeline's kernels, a layer below.
"""

from __future__ import annotations

try:
    from . import _match as match
except ImportError:  # no C compiler at install: the pure twins do the work
    match = None  # type: ignore[assignment]

__all__ = ["match"]
