"""The exploration notebook runs from a clean kernel without errors.

The notebook is stored without outputs; this test executes every cell with
nbclient and fails on the first error.  Its kernel is the interpreter running
the tests: a ``python3`` kernel spec for ``sys.executable`` is written to a
temporary folder put first on ``JUPYTER_PATH``, so the test works in a fresh
venv and never picks up a system-wide ``python3`` kernel without gohash.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from ipykernel.kernelspec import write_kernel_spec
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "exploration.ipynb"


def test_notebook_is_stored_without_outputs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


def test_notebook_executes_without_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_kernel_spec(tmp_path / "kernels" / "python3")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
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
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pictures) >= 6, "the boards, images, errata and plots are drawn as pictures"
    text = "".join(o.get("text", "") for o in outputs)
    assert "all 16 hashes from the hash alone agree with re-hashing" in text
