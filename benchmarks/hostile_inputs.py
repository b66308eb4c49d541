"""Benchmark: time and peak memory of gohash on hostile inputs (issues 22 and 31), made here.

Each case writes its input under a scratch folder (bombs are made, never
stored), runs one gohash command on it in a child process with a timeout, and
prints the wall time, the child's peak RSS, its exit code and the first line
of its standard error.  A case that runs past the timeout is killed and shown
as such.

Run: .venv/bin/python benchmarks/hostile_inputs.py [--timeout S] [--gohash CMD] [CASE ...]
"""

from __future__ import annotations

import argparse
import bz2
import functools
import gzip
import json
import lzma
import os
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the builders the tests use
from tests.support.hostile import (
    GAME,
    dictionary_bomb,
    flagged_zip,
    latin1_folder,
    notes_bomb,
    overlapping_zip,
    pack_columns,
    packed,
    path_bomb,
    siblings,
    tar_of,
)

GOHASH = Path(sys.executable).parent / "gohash"
MIB = 1024 * 1024
PACK_MARKER = "_gohash_pack.json"

# Runs the command; prints exit code, peak RSS (KiB) of the only child, stderr.
MEASURE = """
import json, resource, subprocess, sys
try:
    done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=float(sys.argv[1]))
    code, err = done.returncode, done.stderr.decode("utf-8", "replace")
except subprocess.TimeoutExpired as e:
    code, err = "timeout", (e.stderr or b"").decode("utf-8", "replace")
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps([code, peak, err]))
"""


def tar_bomb(folder: Path, compression: str) -> list[str]:
    """A tar, compressed, of a 64 MiB member of zeros that is no SGF, then a record."""
    data = tar_of([("big.bin", bytes(64 * MIB)), ("game.sgf", GAME)])
    compress: dict[str, Callable[[bytes], bytes]] = {
        "gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}
    path = folder / f"bomb.tar.{compression}"
    path.write_bytes(compress[compression](data))
    return ["canon", str(path)]


def tar_xz_giant(folder: Path) -> list[str]:
    """A tar.xz (some 300 KB) of a 2 GiB member of zeros, then a record, compressed
    a MiB at a time."""
    info = tarfile.TarInfo("big.bin")
    info.size = 2 << 30
    packer = lzma.LZMACompressor(preset=0)
    parts = [packer.compress(info.tobuf(tarfile.GNU_FORMAT))]
    zeros = bytes(MIB)
    parts += [packer.compress(zeros) for _ in range(info.size // MIB)]
    parts += [packer.compress(tar_of([("game.sgf", GAME)])), packer.flush()]
    path = folder / "giant.tar.xz"
    path.write_bytes(b"".join(parts))
    return ["canon", str(path)]


def zip_case(folder: Path, entries: int = 100) -> list[str]:
    return ["canon", str(overlapping_zip(folder / "overlap.zip", entries, bytes(64 * MIB)))]


def parquet_case(folder: Path) -> list[str]:
    """A packed dataset whose one part holds 30 zstd records of 60 MB in one row group."""
    record = b"(;" + b" " * (60_000_000 - 4) + b")"
    return ["canon", str(packed(folder / "pack", dictionary_bomb(record, 30),
                                store_schema=False))]


def marker_case(folder: Path) -> list[str]:
    return ["canon", str(packed(folder / "pack", pack_columns([GAME]), "[" * 100_000))]


def part_case(folder: Path, column: str) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = pack_columns([GAME])
    if column == "bool notes":
        columns["notes"] = pa.array([True])
    else:  # a second data column, under a name the part then repeats
        columns["data2"] = pa.array([GAME], pa.binary())
    pack = packed(folder / "pack", columns)
    if column == "two data":
        table = pq.read_table(pack / "part-00000.parquet")
        pq.write_table(table.rename_columns([*table.column_names[:-1], "data"]),
                       pack / "part-00000.parquet")
    return ["canon", str(pack)]


def latin1_index(folder: Path) -> list[str]:
    return ["index", "build", str(folder / "i.db"), str(latin1_folder(folder / "games"))]


def latin1_parquet(folder: Path) -> list[str]:
    return ["canon", "--format", "parquet", "-o", str(folder / "out"),
            str(latin1_folder(folder / "games"))]


def latin1_tar(folder: Path) -> list[str]:
    path = folder / "names.tar"
    path.write_bytes(tar_of([("good.sgf", GAME), ("lat\xe9n1.sgf", GAME)], encoding="latin-1"))
    return ["index", "build", str(folder / "i.db"), str(path)]


def bad_utf8_zip_case(folder: Path) -> list[str]:
    return ["canon", str(folder / "first.sgf"), str(flagged_zip(folder / "names.zip"))]


def newline_csv(folder: Path) -> list[str]:
    (folder / "new\nline.sgf").write_bytes(GAME)
    return ["canon", "--format", "csv", str(folder / "new\nline.sgf")]


def fifo_case(folder: Path) -> list[str]:
    games = folder / "games"
    games.mkdir()
    (games / "good.sgf").write_bytes(GAME)
    os.mkfifo(games / "pipe.sgf")
    return ["index", "build", str(folder / "i.db"), str(games)]


def notes_case(folder: Path) -> list[str]:
    """A part of 100 records of 200,000 notes each, beside a good file."""
    pack = packed(folder / "pack", notes_bomb(100, 200_000), store_schema=False)
    return ["index", "build", "--jobs", "2", str(folder / "i.db"), str(folder / "first.sgf"),
            str(pack)]


def paths_case(folder: Path) -> list[str]:
    """A part of 100 records named by one path of 20 MiB, beside a good file."""
    pack = packed(folder / "pack", path_bomb(100, 20 * MIB), store_schema=False)
    return ["index", "build", "--jobs", "2", str(folder / "i.db"), str(folder / "first.sgf"),
            str(pack)]


def duplicate_case(folder: Path, kind: str) -> list[str]:
    """Two members ``x.sgf`` (a zip, or a tar appended to), then the games indexed
    (the stderr's first line says how many files were replaced)."""
    other = b"(;SZ[9];B[aa];W[bb];B[cc])"
    if kind == "zip":
        path = folder / "dup.zip"
        with zipfile.ZipFile(path, "w") as archive, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
            archive.writestr("x.sgf", GAME)
            archive.writestr("x.sgf", other)
    else:
        path = folder / "dup.tar"
        path.write_bytes(tar_of([("x.sgf", GAME), ("x.sgf", other)]))
    return ["index", "build", str(folder / "i.db"), str(path)]


def hard_link_case(folder: Path) -> list[str]:
    os.link(folder / "first.sgf", folder / "out.jsonl")
    return ["canon", str(folder / "first.sgf"), "-o", str(folder / "out.jsonl"), "--overwrite"]


def fifo_part_case(folder: Path) -> list[str]:
    pack = folder / "pack"
    pack.mkdir()
    os.mkfifo(pack / "part-00000.parquet")
    (pack / PACK_MARKER).write_text(json.dumps(
        {"format": "gohash-pack", "version": 1, "parts": ["part-00000.parquet"]}))
    return ["canon", str(folder / "first.sgf"), str(pack)]


def prepared(folder: Path, *command: str) -> list[str]:
    """``command`` with ``{fifo}`` a FIFO, ``{db}`` an index of first.sgf and
    ``{diagram}`` a pattern of two points."""
    os.mkfifo(folder / "pipe")
    (folder / "diagram.txt").write_text("X.\n..\n")
    subprocess.run([GOHASH_RUN[0], "index", "build", str(folder / "good.db"),
                    str(folder / "first.sgf")], capture_output=True, check=False)
    return [c.format(fifo=folder / "pipe", db=folder / "good.db", first=folder / "first.sgf",
                     diagram=folder / "diagram.txt") for c in command]


def ko_case(folder: Path) -> list[str]:
    path = folder / "ko.sgf"
    path.write_bytes(b"(;GM[1]SZ[9];B[ba];W[ca];B[ab];W[db];B[bc];W[cc];B[cb];W[bb];B[cb]KO[]"
                     b";W[ee])")
    return ["canon", str(path)]


def dot_marker_case(folder: Path) -> list[str]:
    pack = folder / "pack"
    pack.mkdir()
    (pack / PACK_MARKER).write_text(json.dumps(
        {"format": "gohash-pack", "version": 1, "parts": ["."]}))
    return ["canon", str(pack)]


def pack_duplicate_case(folder: Path) -> list[str]:
    """A hand-made packed part of two rows named ``x.sgf`` with other contents."""
    import pyarrow as pa

    columns = pack_columns([GAME, b"(;SZ[9];B[aa];W[bb];B[cc])"])
    pack = packed(folder / "pack", {**columns, "path": pa.array(["x.sgf", "x.sgf"])})
    return ["index", "build", str(folder / "i.db"), str(pack)]


def pattern_1x1(folder: Path) -> list[str]:
    """A 1x1 pattern diagram (``X``) searched in an index of one game."""
    subprocess.run([*GOHASH_RUN, "index", "build", str(folder / "i.db"),
                    str(folder / "first.sgf")], check=True, capture_output=True)
    (folder / "x.txt").write_text("X")
    return ["index", "pattern", str(folder / "i.db"), str(folder / "x.txt")]


def siblings_case(folder: Path, command: str) -> list[str]:
    """200,000 sibling variations after one move (issue 31): every variation read."""
    path = folder / "siblings.sgf"
    path.write_bytes(siblings(200_000))
    if command == "canon":
        return ["canon", "--variations", str(path), "-o", str(folder / "out.jsonl")]
    return ["index", "build", "--variations", str(folder / "i.db"), str(path)]


def tampered(folder: Path, command: str, statement: str) -> list[str]:
    """An index of two copies of one game, ``statement`` run on it, then ``command``
    (find, continuations, pattern, dupes or check)."""
    db = folder / "i.db"
    (folder / "second.sgf").write_bytes(GAME)
    subprocess.run([*GOHASH_RUN, "index", "build", str(db), str(folder / "first.sgf"),
                    str(folder / "second.sgf")], check=True, capture_output=True)
    connection = sqlite3.connect(db)
    connection.execute(statement)
    connection.commit()
    connection.close()
    (folder / "p.txt").write_text("\n".join(["*" * 9] * 9))
    find = ["index", "find", str(db), "--format", "json", "--sgf", str(folder / "first.sgf"),
            "--move", "1"]
    return {
        "find": find,
        "continuations": [*find, "--continuations"],
        "pattern": ["index", "pattern", str(db), "--format", "json", str(folder / "p.txt")],
        "dupes": ["index", "dupes", str(db), "--format", "json", "--min-positions", "1"],
        "check": ["index", "check", str(db)],
    }[command]


TAMPERINGS = {
    "black blob": "UPDATE games SET black = x'6869'",
    "komi 9e999": "UPDATE games SET komi = 9e999",
    "game 'x'": "UPDATE games SET game = 'x'",
    "record 'hello'": "UPDATE games SET record = 'hello'",
    "record empty": "UPDATE games SET record = x''",
    "dangling file_id": "UPDATE games SET file_id = 99 WHERE id = 1",
    "positions - 1": "UPDATE games SET positions = positions - 1",
    "posting seq 'x'": "UPDATE postings SET seq = 'x' WHERE game_id = 2 AND seq = 1",
}


GOHASH_RUN = [str(GOHASH)]
"""The gohash command the cases run (``--gohash``), for cases that prepare with it."""


CASES: dict[str, Callable[[Path], list[str]]] = {
    "tar.gz 64 MiB member": lambda f: tar_bomb(f, "gz"),
    "tar.bz2 64 MiB member": lambda f: tar_bomb(f, "bz2"),
    "tar.xz 64 MiB member": lambda f: tar_bomb(f, "xz"),
    "tar.xz 2 GiB member": tar_xz_giant,
    "zip 100 overlapping entries": zip_case,
    "zip 1000 overlapping entries": lambda f: zip_case(f, 1000),
    "parquet 30 x 60 MB records": parquet_case,
    "pack marker 100,000 [": marker_case,
    "pack bool notes": lambda f: part_case(f, "bool notes"),
    "pack two data columns": lambda f: part_case(f, "two data"),
    "latin-1 name: index build": latin1_index,
    "latin-1 name: canon parquet": latin1_parquet,
    "latin-1 tar member: index build": latin1_tar,
    "zip invalid UTF-8 name": bad_utf8_zip_case,
    "csv newline name": newline_csv,
    "fifo in folder: index build": fifo_case,
    "pack 100 x 200,000 notes: build -j2": notes_case,
    "pack 100 x 20 MiB paths: build -j2": paths_case,
    "zip two x.sgf: index build": lambda f: duplicate_case(f, "zip"),
    "tar rf two x.sgf: index build": lambda f: duplicate_case(f, "tar"),
    "hard link -o: canon --overwrite": hard_link_case,
    "fifo as packed part: canon": fifo_part_case,
    "fifo as input: canon": lambda f: prepared(f, "canon", "{fifo}", "{first}"),
    "fifo as index: index info": lambda f: prepared(f, "index", "info", "{fifo}"),
    "fifo as index: index build": lambda f: prepared(f, "index", "build", "{fifo}",
                                                       "{first}"),
    "fifo as index: serve": lambda f: prepared(f, "serve", "{fifo}", "--port", "0"),
    "fifo as -o: canon": lambda f: prepared(f, "canon", "{first}", "-o", "{fifo}"),
    "KO[] retake: canon": ko_case,
    "--max-move 2147483648": lambda f: prepared(f, "index", "pattern", "{db}",
                                                  "--max-move", "2147483648", "{diagram}"),
    "canon --jobs 99999999999": lambda f: ["canon", "--jobs", "99999999999",
                                           str(f / "first.sgf")],
    "pack marker lists '.'": dot_marker_case,
    "pack two rows x.sgf: index build": pack_duplicate_case,
    "200,000 siblings: index build": lambda f: siblings_case(f, "build"),
    "200,000 siblings: canon": lambda f: siblings_case(f, "canon"),
    "1x1 pattern: index pattern": pattern_1x1,
    **{f"{name}: {command}": functools.partial(tampered, command=command, statement=statement)
       for name, statement in TAMPERINGS.items()
       for command in ("check", "find", "continuations", "pattern", "dupes")},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--gohash", default=str(GOHASH),
                        help="the gohash command to run (another checkout's, for a baseline)")
    parser.add_argument("cases", nargs="*", help="case names (substrings); all by default")
    args = parser.parse_args()
    GOHASH_RUN[0] = args.gohash
    print(f"{'case':32} {'time s':>8} {'peak MB':>8} {'exit':>7}  stderr (first line)")
    for name, make in CASES.items():
        if args.cases and not any(c in name for c in args.cases):
            continue
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            (folder / "first.sgf").write_bytes(GAME)
            command = [args.gohash, *make(folder)]
            start = time.perf_counter()
            report = subprocess.run(
                [sys.executable, "-c", MEASURE, str(args.timeout), *command],
                capture_output=True, text=True, check=True).stdout
            elapsed = time.perf_counter() - start
            code, peak, stderr = json.loads(report)
            first = next((line for line in stderr.splitlines() if line.strip()), "")
            if "Traceback" in stderr:
                first = "Traceback: " + stderr.strip().splitlines()[-1]
            print(f"{name:32} {elapsed:8.1f} {peak / 1000:8.0f} {code!s:>7}  {first[:110]}",
                  flush=True)


if __name__ == "__main__":
    main()
