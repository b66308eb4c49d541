"""The package layout: no import cycles, and ``import gohash`` stays light; the tests'
layout: a folder per package, every folder a package, no test module importing another,
and every test file the docs and the code cite there."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gohash"
TESTS = ROOT / "tests"


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


def _test_folders() -> list[Path]:
    return sorted({p.parent for p in TESTS.rglob("*.py")})


def test_every_test_folder_is_a_package_named_after_one_of_gohash() -> None:
    # Packages, so that two test modules of one name in two folders import as two
    # modules (tests.index.test_x, tests.cli.test_x), under xdist too.
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    for folder in _test_folders():
        assert (folder / "__init__.py").is_file(), folder
        if folder != TESTS:
            assert folder.parent == TESTS, folder
            assert folder.name in packages | {"support"}, folder


def _imported(path: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, with its line; relative imports as ``.name``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            yield node.lineno, base
            # "from tests import test_x" imports the module test_x.
            yield from ((node.lineno, f"{base}.{alias.name}") for alias in node.names)


def _imports_a_test_module(name: str) -> bool:
    parts = name.lstrip(".").split(".")
    if name.startswith("."):
        return any(part.startswith("test_") for part in parts)
    if parts[0] != "tests":
        return parts[0].startswith("test_")  # a sibling put on sys.path by pytest
    return len(parts) > 1 and parts[1] != "support" and any(
        part.startswith("test_") or part == "conftest" for part in parts[1:])


def test_imports_a_test_module_sees_each_form() -> None:
    for name in ("tests.index.test_index", "tests.test_docs", ".test_walk", "test_walk",
                 "tests.conftest", "tests.index.test_index.DATA"):
        assert _imports_a_test_module(name), name
    for name in ("tests.support.env", "tests.support.env.ROOT", "tests", "tests.index",
                 "gohash.index", "pytest", ".env"):
        assert not _imports_a_test_module(name), name


def test_no_test_module_imports_another() -> None:
    # What tests share lives in tests/support/, so that each module runs alone, in any
    # order, in any xdist worker.
    found = [f"{path.relative_to(ROOT)}:{line}: {name}"
             for path in sorted(TESTS.rglob("*.py")) for line, name in _imported(path)
             if _imports_a_test_module(name)]
    assert not found, "\n".join(found)


def test_every_cited_test_file_exists() -> None:
    # The changelog is history: it cites files where they were.
    cited = re.compile(r"\btests/[\w/]+\.py\b")
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / ".ci" / "run"]
    code = [p for folder in ("gohash", "tests", "benchmarks", "notebooks", "data")
            for p in (ROOT / folder).rglob("*")
            if p.suffix in {".py", ".pyx", ".md", ".ipynb", ".js", ".ts"} and p.is_file()]
    missing, count = [], 0
    for path in pages + code:
        for match in cited.finditer(path.read_text(encoding="utf-8")):
            count += 1
            if not (ROOT / match.group(0)).is_file():
                missing.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert count >= 20 and not missing, "\n".join(missing)
