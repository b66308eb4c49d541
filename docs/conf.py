"""Sphinx configuration of gohash's documentation (MyST Markdown pages, built with -W in CI).

Scope: the extensions and options of the site.  The API reference is autodoc of
the installed package, the CLI reference sphinx-argparse of
:func:`gohash.cli.build_parser`; nothing is fetched from the network.
"""

from __future__ import annotations

import sys
from importlib.metadata import version as _version
from pathlib import Path

# cli_reference.py, beside this file, hands sphinx-argparse gohash's parser.
sys.path.insert(0, str(Path(__file__).parent))

project = "gohash"
author = "gohash authors"
copyright = "2026, gohash authors"
release = _version("gohash")
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinxarg.ext",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
# Help texts say --ruleset and 'no result'; keep them as typed.
smartquotes = False

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "furo"
html_title = f"gohash {release}"


# DuckDB's SQL ($parameters, struct literals) is beyond Pygments' SQL lexer: those
# blocks are shown unhighlighted where it stops; every other warning fails the build.
suppress_warnings = ["misc.highlighting_failure"]
