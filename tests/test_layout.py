"""The package layout: layers that only go down, no import cycles, and ``import gohash``
stays light; the tests' layout: a folder per package, every folder a package, no test
module importing another, and every test file the docs and the code cite there."""

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

LAYERS = ("group", "go", "sgf", "pipeline", "pattern", "index", "tools", "explorer", "cli")
"""The packages from the bottom up: each imports only those before it (docs/design.md)."""

# A Cython module's imports, one a line: "from X cimport ...", "import X".
_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\.*)([\w.]*)\s+c?import\b|c?import\s+([\w.]+))",
                            re.MULTILINE)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(package: str, level: int, module: str | None) -> str:
    """The module a ``from`` import of ``level`` dots names, in ``package``."""
    if not level:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join(base + ([module] if module else []))


def _imported(source: str, name: str, is_package: bool, cython: bool = False) -> set[str]:
    """Every name module ``name`` imports anywhere in ``source`` (in functions and
    ``TYPE_CHECKING`` blocks too): modules, and "module.name" for each name a
    ``from`` import takes (which may be a module)."""
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    if cython:
        for dots, module, plain in _CYTHON_IMPORT.findall(source):
            found.add(plain or _absolute(package, len(dots), module))
        return found
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(package, node.level, node.module)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The gohash modules ``path`` imports anywhere in its body (in functions and
    ``TYPE_CHECKING`` blocks too), but the lazy public names of ``gohash/__init__``."""
    name = _module_name(path)
    found = _imported(path.read_text(encoding="utf-8"), name, path.name == "__init__.py",
                      cython=path.suffix in (".pyx", ".pxd"))
    return {t for t in found if t in modules and t != name}


def _graph() -> dict[str, set[str]]:
    """The gohash modules each module imports (a Cython module's ``.pxd`` and
    ``.pyx`` as one)."""
    paths = [p for suffix in ("py", "pyx", "pxd") for p in PACKAGE.rglob(f"*.{suffix}")]
    modules = {_module_name(p) for p in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        if (name := _module_name(path)) != "gohash":
            graph.setdefault(name, set()).update(_imports(path, modules))
    return graph


def _layer(module: str) -> int | None:
    """The place of ``module``'s package in :data:`LAYERS` (None: a module of
    ``gohash`` itself, such as ``gohash.errors``)."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 2 and parts[1] in LAYERS else None


def _through_top_level(graph: dict[str, set[str]], module: str) -> set[str]:
    """The package modules that importing ``module``, a module of ``gohash`` itself,
    loads through it and the other such modules it imports."""
    found: set[str] = set()
    seen, todo = {module}, [module]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if _layer(target) is not None:
                found.add(target)
            elif target not in seen:
                seen.add(target)
                todo.append(target)
    return found


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of ``graph`` from a package to one above it in :data:`LAYERS`,
    directly or through modules of ``gohash`` itself (``gohash.errors``,
    ``gohash._native``), which have no layer of their own: a package that imports
    one loads what it imports."""
    found = []
    for name, targets in graph.items():
        if (low := _layer(name)) is None:
            continue
        for target in targets:
            if _layer(target) is not None:
                reached = {target: ""}
            else:
                reached = {t: f" through {target}" for t in _through_top_level(graph, target)}
            found += [f"{name} imports {t}{via}" for t, via in reached.items()
                      if (high := _layer(t)) is not None and high > low]
    return sorted(found)


def package_graph() -> dict[str, set[str]]:
    """Which package of :data:`LAYERS` imports which (``python tests/test_layout.py``
    prints it)."""
    packages: dict[str, set[str]] = {layer: set() for layer in LAYERS}
    for name, targets in _graph().items():
        if (low := _layer(name)) is not None:
            packages[LAYERS[low]].update(
                LAYERS[high] for t in targets if (high := _layer(t)) is not None and high != low)
    return packages


def test_layers_only_go_down() -> None:
    assert _upward(_graph()) == []


def test_upward_finds_imports_in_functions_and_type_checking() -> None:
    source = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from ..index.queries import Record
def f():
    from ..tools import parquet
    import gohash.cli.index
"""
    found = _imported(source, "gohash.pattern.search", False)
    assert {"gohash.index.queries", "gohash.tools.parquet", "gohash.cli.index"} <= found
    graph = {"gohash.pattern.search": {"gohash.index.queries", "gohash.group.coords",
                                       "gohash.errors"}}
    assert _upward(graph) == ["gohash.pattern.search imports gohash.index.queries"]


def test_upward_finds_imports_through_top_level_modules() -> None:
    # gohash.errors and gohash._native belong to no package: a package that imports
    # them loads what they import.
    graph = {"gohash.group.symmetry": {"gohash.errors"},
             "gohash.errors": {"gohash._deprecated", "gohash.sgf.names"},
             "gohash._deprecated": {"gohash.tools.canon"},
             "gohash.index.games": {"gohash.errors"}}
    assert _upward(graph) == [
        "gohash.group.symmetry imports gohash.sgf.names through gohash.errors",
        "gohash.group.symmetry imports gohash.tools.canon through gohash.errors",
        "gohash.index.games imports gohash.tools.canon through gohash.errors",
    ]


def test_graph_reads_cython_imports() -> None:
    graph = _graph()
    assert "gohash.pipeline._stored_replay" in graph["gohash.pattern._match"]
    assert "gohash.pipeline._scan" in graph["gohash.pipeline._sgf_replay"]


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


def _imports_of(path: Path) -> Iterator[tuple[int, str]]:
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
             for path in sorted(TESTS.rglob("*.py")) for line, name in _imports_of(path)
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


if __name__ == "__main__":
    for layer, below in package_graph().items():
        print(f"{layer} -> {', '.join(sorted(below, key=LAYERS.index)) or '(none)'}")
