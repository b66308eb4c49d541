"""The corpus marker and Hypothesis's profile; what the tests need from outside the
project, and what happens when it is missing, is in :mod:`tests.support.env`.

Under ``CI=true`` Hypothesis draws the same examples every run (``derandomize``,
seeded by each test), so that a CI run says what a run on the same commit said;
elsewhere it draws new ones each run, which is where it finds new failures.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.support.env import in_ci, require_corpus

settings.register_profile("ci", derandomize=True)
if in_ci():
    settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "corpus: reads ../shared/corpus; skipped when it is missing, failed under CI=true",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("corpus") is not None:
        require_corpus()
