"""The package layout: no import cycles, and ``import gohash`` stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gohash"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The gohash modules ``path`` imports anywhere in its body (in functions and
    ``TYPE_CHECKING`` blocks too), but the lazy public names of ``gohash/__init__``."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # "from package import module" imports the module.
            targets = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {
        name: _imports(path, modules) for name, path in paths.items() if name != "gohash"
    }


def test_graph_sees_imports_inside_functions() -> None:
    # Imports inside functions: the CLI's of the web app and of the Dask path.
    graph = _graph()
    assert "gohash.explorer.app" in graph["gohash.cli.serve"]
    assert "gohash.tools.dataset" in graph["gohash.cli.canon"]


def test_no_import_cycles() -> None:
    graph = _graph()
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


@pytest.mark.parametrize("statement", ["import gohash", "from gohash import Board"])
def test_import_gohash_is_light(statement: str) -> None:
    heavy = ["sqlite3", "multiprocessing", "concurrent.futures.process", "pyarrow",
             "gohash.index", "gohash.cli", "gohash.explorer", "gohash.tools",
             "gohash.pipeline"]
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    assert not [m for m in loaded if any(m == h or m.startswith(h + ".") for h in heavy)]


def test_public_names_all_load() -> None:
    import gohash

    for name in gohash.__all__:
        assert getattr(gohash, name) is not None, name
    assert gohash.check_superko.__module__ == "gohash.tools.superko"
    with pytest.raises(AttributeError):
        gohash.no_such_name  # noqa: B018
