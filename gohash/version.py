"""The version of gohash: :data:`__version__`, from the installed package's metadata.

Scope: this one string, for ``gohash --version`` and for the index, which
records per file the gohash that indexed it.  It is read from the package
metadata so that pyproject.toml stays the only place the version is written;
a source tree used without installing has no metadata and says ``unknown``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("gohash")
except PackageNotFoundError:
    __version__ = "unknown"
