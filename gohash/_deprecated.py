"""Deprecated names of the API, kept one release (CHANGELOG.md lists them)."""

from __future__ import annotations

import warnings

__all__ = ["deprecated", "renamed"]


def deprecated(old: str, new: str, where: str, *, depth: int = 1) -> None:
    """Warn (:class:`DeprecationWarning`) that ``old`` of ``where`` is deprecated for
    ``new``, pointing at the caller ``depth`` frames above the function that
    calls this one (1: its caller)."""
    warnings.warn(f"{where}: {old} is deprecated, use {new} (the old name goes in the "
                  f"next release)", DeprecationWarning, stacklevel=2 + depth)


def renamed(value: str, old_value: str | None, old: str, new: str, where: str) -> str:
    """``value`` of the option ``new``, or the value given under its deprecated name
    ``old`` (warning at the caller of ``where``)."""
    if old_value is None:
        return value
    deprecated(f"{old}=", f"{new}=", where, depth=2)
    return old_value
