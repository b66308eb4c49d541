"""Check that two versions of gohash give the same output: ``canon`` (JSON Lines and
Parquet), ``superko --format jsonl``, and ``index build`` + ``find`` + ``dupes`` +
``info``, on ``data/sgf`` and on all of ``../shared/corpus``.

Run: ``.venv/bin/python benchmarks/same_output.py --before REV [--after REV]
[--jobs N] [PATH ...]``.  ``REV`` is checked out into a temporary git worktree
and its compiled core built there in place; ``--after`` defaults to this
checkout as it is (built in place, as ``pip install -e`` leaves it).  Every
command runs in a process of its own with ``PYTHONPATH`` at the version's tree,
and writes into a folder of that version's.

Compared: each command's exit code, standard output, standard error, the
JSON Lines file, every Parquet file of the canon dataset (schema with its
metadata, and contents) and its marker.  The only normalisation: the output
folder's path (which must differ) is replaced by ``<out>``.  Exit 0 when all
match; 1 naming the first differences otherwise.  Not a speed benchmark:
it times nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = "import sys; from gohash.cli import main; sys.exit(main(sys.argv[1:]))"


@contextlib.contextmanager
def checkout(rev: str | None, scratch: Path) -> Iterator[Path]:
    """The tree of ``rev`` (None: this checkout), with its compiled core built."""
    if rev is None:
        yield ROOT
        return
    tree = scratch / f"tree-{rev.replace('/', '_')}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev],
                   check=True)
    try:
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree,
                       check=True, capture_output=True)
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                       check=True)


def run(tree: Path, out: Path, name: str, args: list[str]) -> dict[str, object]:
    """Run ``gohash ARGS`` from ``tree``; its exit code and output, ``out`` normalised."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True,
                          text=True, cwd=out)
    normal = {"exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    for key in ("stdout", "stderr"):
        normal[key] = str(normal[key]).replace(str(out), "<out>")
    print(f"  {name}: exit {done.returncode}", flush=True)
    return normal


def parquet_dataset(folder: Path, out: Path) -> dict[str, object]:
    """Every file of a canon dataset: Parquet tables as (schema, rows), others as text."""
    import pyarrow.parquet as pq

    found: dict[str, object] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir():
            continue
        key = str(path.relative_to(folder))
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            found[key] = (str(table.schema.to_string(show_schema_metadata=True)),
                          table.to_pylist())
        else:
            found[key] = path.read_text(encoding="utf-8").replace(str(out), "<out>")
    return found


def outputs(tree: Path, out: Path, inputs: list[str], jobs: int) -> dict[str, object]:
    """What every compared command gives, run from ``tree`` into ``out``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    where = subprocess.run([sys.executable, "-c", "import gohash; print(gohash.__file__)"],
                           env=env, cwd=out, capture_output=True, text=True, check=True).stdout
    if not where.startswith(str(tree)):
        raise SystemExit(f"gohash imported from {where.strip()}, not from {tree}")
    found: dict[str, object] = {}
    for number, path in enumerate(inputs):
        tag = f"{number}:{Path(path).name}"
        print(f"{tag} from {tree}", flush=True)
        jsonl, dataset, db = out / f"canon-{number}.jsonl", out / f"canon-{number}", \
            out / f"index-{number}.sqlite"
        found[f"{tag} canon jsonl"] = run(
            tree, out, "canon jsonl", ["canon", path, "-o", str(jsonl), "--jobs", str(jobs)])
        found[f"{tag} canon jsonl file"] = jsonl.read_bytes() if jsonl.exists() else None
        found[f"{tag} canon parquet"] = run(
            tree, out, "canon parquet",
            ["canon", path, "--format", "parquet", "-o", str(dataset), "--jobs", str(jobs)])
        found[f"{tag} canon parquet files"] = (
            parquet_dataset(dataset, out) if dataset.exists() else None)
        found[f"{tag} superko"] = run(
            tree, out, "superko", ["superko", path, "--format", "jsonl", "--jobs", str(jobs)])
        found[f"{tag} index build"] = run(
            tree, out, "index build", ["index", "build", str(db), path, "--jobs", str(jobs)])
        for query in queries(path):
            for extra in ([], ["--continuations"]):
                found[f"{tag} find {query} {extra}"] = run(
                    tree, out, f"index find {Path(query).name} {' '.join(extra)}",
                    ["index", "find", str(db), "--sgf", query, "--move", "20", "--limit", "0",
                     "--format", "json", *extra])
        found[f"{tag} dupes"] = run(tree, out, "index dupes",
                                    ["index", "dupes", str(db), "--format", "json"])
        found[f"{tag} info"] = run(tree, out, "index info",
                                   ["index", "info", str(db), "--format", "json"])
        found[f"{tag} info text"] = run(tree, out, "index info", ["index", "info", str(db)])
    return found


def queries(path: str, count: int = 3) -> list[str]:
    """A few records of ``path`` to take query positions from: the first, middle and
    last ``*.sgf`` file in sorted order."""
    files = [path] if os.path.isfile(path) else sorted(
        str(p) for p in Path(path).rglob("*.sgf") if p.is_file())
    if len(files) <= count:
        return files
    return [files[0], files[len(files) // 2], files[-1]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="git revision to compare against")
    parser.add_argument("--after", help="git revision to compare (default: this checkout)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("paths", nargs="*", help="inputs (default: data/sgf, ../shared/corpus)")
    args = parser.parse_args()
    paths = args.paths or [str(ROOT / "data" / "sgf"), str(ROOT.parent / "shared" / "corpus")]
    paths = [os.path.abspath(p) for p in paths if os.path.exists(p)]
    scratch = Path(tempfile.mkdtemp(prefix="gohash-same-"))
    try:
        sides = []
        for rev in (args.before, args.after):
            out = scratch / f"out-{len(sides)}"
            out.mkdir()
            with checkout(rev, scratch) as tree:
                sides.append(outputs(tree, out, paths, args.jobs))
        before, after = sides
        differ = [key for key in before if before[key] != after.get(key)]
        for key in differ:
            print(f"DIFFERENT: {key}")
            b, a = before[key], after.get(key)
            if isinstance(b, dict) and isinstance(a, dict):
                for part in b:
                    if b[part] != a.get(part):
                        print(f"  {part}: {json.dumps(b[part], default=str)[:300]}\n"
                              f"  vs  {json.dumps(a.get(part), default=str)[:300]}")
        print(f"{len(before) - len(differ)} of {len(before)} outputs the same "
              f"({', '.join(Path(p).name for p in paths)}; before {args.before}, "
              f"after {args.after or 'this checkout'})")
        return 1 if differ else 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
