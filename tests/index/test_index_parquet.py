"""``gohash index build DB DATASET``: a canon dataset feeds the index that the SGF files would
build, row for row, without replaying them; a dataset unfit for an index is refused with
the reason."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from gohash.cli import main
from gohash.index.parquet import DATASET_VERSION
from gohash.tools.canon import CanonOptions
from gohash.tools.dataset import write_dataset
from tests.support.env import CORPUS, ROOT
from tests.support.indexes import posting_rows

DATA = ROOT / "data" / "sgf"

pytestmark = pytest.mark.corpus

TABLES = ("files", "games", "errors")


def contents(db: Path) -> dict[str, list[tuple[object, ...]]]:
    with closing(sqlite3.connect(db)) as con:
        rows = {t: con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}
    rows["postings"] = list(posting_rows(db))
    return rows


@pytest.mark.parametrize("scheme", ["huima64", "regular128"])
def test_the_index_of_a_dataset_is_that_of_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scheme: str
) -> None:
    # Some games with errors, several board sizes and handicaps, many partitions.
    inputs = [str(DATA), str(CORPUS / "small"), str(CORPUS / "ai-games" / "AlphaGo")]
    write_dataset(inputs, str(tmp_path / "out"), CanonOptions(scheme=scheme, position=True),
                  partition_bytes=200_000)
    assert main(["index", "build", str(tmp_path / "files.db"), *inputs, "--scheme", scheme]) == 2
    from_files = capsys.readouterr()
    assert main(["index", "build", str(tmp_path / "dataset.db"), str(tmp_path / "out"),
                 "--scheme", scheme]) == 2
    from_dataset = capsys.readouterr()
    assert from_dataset.out == from_files.out == ""
    assert from_dataset.err.replace("dataset.db", "files.db") == from_files.err
    files, dataset = contents(tmp_path / "files.db"), contents(tmp_path / "dataset.db")
    for table in TABLES:
        assert dataset[table] == files[table], table
    assert len(files["postings"]) > 45_000
    # Every file is known unchanged, by the SHA-256 in the dataset.
    assert main(["index", "build", str(tmp_path / "files.db"), str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err.startswith(
        f"gohash index build: 0 files indexed (0 replaced), {len(files['files'])} unchanged;"
    )


def test_datasets_unfit_for_an_index_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nine = [str(DATA / "game-9x9.sgf")]
    cases = [
        (CanonOptions(), "written without --position: it holds no frames"),
        (CanonOptions(position=True, symmetry="d4"),
         "written with --symmetry 'd4', and an index stores frames under the full group"),
        (CanonOptions(position=True, variations=True),
         "written with --variations; an index takes main lines replayed alone"),
        (CanonOptions(position=True, scheme="regular64"),
         "written with key scheme 'regular64', and the index has 'regular128'"),
        (CanonOptions(position=True, suicide_allowed=False),
         "written with suicide_allowed False, not True as asked"),
    ]
    for n, (options, reason) in enumerate(cases):
        out = tmp_path / f"out{n}"
        write_dataset(nine, str(out), options)
        code = main(["index", "build", str(tmp_path / "x.db"), str(out), "--suicide", "allowed"])
        err = capsys.readouterr().err
        assert code == 2
        assert err.splitlines()[0] == (f"gohash index build: error: {out}: the canon dataset "
                                       f"cannot feed an index: {reason}")
    # An incomplete dataset: its run failed or is still going on.
    out = tmp_path / "out0"
    write_dataset(nine, str(out), CanonOptions(position=True), overwrite=True)
    marker = out / "_gohash_canon.json"
    marker.write_text(marker.read_text().replace('"complete": true', '"complete": false'))
    assert main(["index", "build", str(tmp_path / "x.db"), str(out)]) == 2
    assert "incomplete (its run failed or is still going on)" in capsys.readouterr().err
    # A dataset of another version (version 1 had no place column) is refused.
    marker.write_text(marker.read_text().replace('"complete": false', '"complete": true')
                      .replace(f'"version": {DATASET_VERSION}', '"version": 1'))
    assert main(["index", "build", str(tmp_path / "x.db"), str(out)]) == 2
    assert f"canon dataset version 1; this gohash reads version {DATASET_VERSION}" \
        in capsys.readouterr().err
    # Other commands name the dataset and say who reads it.
    assert main(["canon", str(out)]) == 2
    assert f"error: {out}: a gohash canon dataset (Parquet positions): only gohash index " \
           "build reads it" in capsys.readouterr().err
