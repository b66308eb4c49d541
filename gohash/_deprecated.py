"""Deprecated names of the API, kept one release (CHANGELOG.md lists them)."""

from __future__ import annotations

import warnings

__all__ = ["deprecated"]


def deprecated(old: str, new: str, where: str, *, depth: int = 1) -> None:
    """Warn (:class:`DeprecationWarning`) that ``old`` of ``where`` is deprecated for
    ``new``, pointing at the caller ``depth`` frames above the function that
    calls this one (1: its caller)."""
    warnings.warn(f"{where}: {old} is deprecated, use {new} (the old name goes in the "
                  f"next release)", DeprecationWarning, stacklevel=2 + depth)
