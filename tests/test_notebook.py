"""The exploration notebook runs from a clean kernel without errors.

The notebook is stored without outputs; this test executes every cell with
nbclient and fails on the first error.  Its kernel is the interpreter running
the tests: a ``python3`` kernel spec for ``sys.executable`` is written to a
temporary folder put first on ``JUPYTER_PATH``, so the test works in a fresh
venv and never picks up a system-wide ``python3`` kernel without gohash.

Without ``../shared/corpus`` the notebook draws its figures from ``data/sgf``
alone and says so; the figures of the corpus are then a test of their own,
marked ``corpus``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from ipykernel.kernelspec import write_kernel_spec
from nbclient import NotebookClient

from tests.conftest import CORPUS

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "exploration.ipynb"


def test_notebook_is_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The outputs of every code cell, the notebook executed once from a clean kernel."""
    kernels = tmp_path_factory.mktemp("jupyter")
    write_kernel_spec(kernels / "kernels" / "python3")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("JUPYTER_PATH", str(kernels))
        # Inline figures, also where a non-interactive backend is set for the test run.
        monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        nb = nbformat.read(NOTEBOOK, as_version=4)
        client = NotebookClient(
            nb,
            timeout=60,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
        )
        client.execute()  # raises CellExecutionError, naming the cell, on any error
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


def pictures(outputs: list[dict[str, Any]]) -> int:
    return sum("image/png" in o.get("data", {}) for o in outputs)


def text(outputs: list[dict[str, Any]]) -> str:
    return "".join(o.get("text", "") for o in outputs)


def test_notebook_executes_without_errors(outputs: list[dict[str, Any]]) -> None:
    # The key table, the 16 images, the two errata and the plots by move number.
    assert pictures(outputs) >= 5, "the boards, images, errata and plots are drawn as pictures"
    assert "all 16 hashes from the hash alone agree with re-hashing" in text(outputs)
    if not CORPUS.is_dir():
        assert f"corpus not found at {CORPUS}: the corpus figures are skipped" in text(outputs)


@pytest.mark.corpus
def test_notebook_draws_the_corpus_figures(outputs: list[dict[str, Any]]) -> None:
    # Besides the five above, positions of real games that huima64 merges.
    assert pictures(outputs) >= 6
    assert "corpus not found" not in text(outputs)
