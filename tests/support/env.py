"""What the tests need from outside the project, and what happens when it is missing.

``../shared/corpus`` (:data:`CORPUS`, real records beside the checkout, never
part of the project), GNU Go and Chromium are not installed by pip.  A test
that needs one of them and finds it missing is skipped with a reason naming
what is missing, except under ``CI=true``, where it fails: CI must never skip
silently.  Mark a test (or a module, with ``pytestmark``) ``@pytest.mark.corpus``
when it reads the corpus; helpers and fixtures that read it call
:func:`require_corpus` first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
"""The real records beside the checkout (``../shared/corpus``)."""


def in_ci() -> bool:
    """Whether the tests run in CI (``CI=true``), where nothing may be skipped for lack of
    something CI provides."""
    return os.environ.get("CI", "").lower() == "true"


def missing(reason: str) -> NoReturn:
    """Fail the running test under ``CI=true``, skip it elsewhere, with ``reason``."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def require_corpus() -> Path:
    """:data:`CORPUS`; a skip naming it when it is missing (a failure under ``CI=true``)."""
    if not CORPUS.is_dir():
        missing(f"the corpus {CORPUS} is missing (real records beside the checkout)")
    return CORPUS
