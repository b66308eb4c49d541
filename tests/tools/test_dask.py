"""``gohash canon --format parquet --dask``: on a real ``dask scheduler`` and two ``dask worker``
processes the dataset equals a run in one process, and when a worker is killed mid-run
no row is lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from distributed import Client

from gohash.tools.canon import CanonOptions, write_records
from gohash.tools.dataset import partitions, write_dataset
from gohash.tools.pack import write_pack
from tests.support.env import CORPUS, ROOT
from tests.support.net import free_port

DATA = ROOT / "data" / "sgf"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.corpus


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler on 127.0.0.1 and two one-thread workers without nannies (so killing
    a worker's process kills the worker), torn down whatever happens."""
    address = f"tcp://127.0.0.1:{free_port()}"
    log = open(tmp_path / "dask.log", "wb")  # noqa: SIM115 - closed in the finaliser
    processes: list[subprocess.Popen[bytes]] = []
    try:
        processes.append(subprocess.Popen(
            [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port",
             address.rsplit(":", 1)[1], "--no-dashboard"], stdout=log, stderr=log))
        for _ in range(2):
            processes.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", address, "--nworkers", "1", "--nthreads", "1",
                 "--no-nanny", "--no-dashboard"], stdout=log, stderr=log))
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, processes[1:]
    finally:
        for process in reversed(processes):
            process.kill()
            process.wait()
        log.close()


def rows(root: Path, table: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for part in sorted((root / table).glob("part-*.parquet")):
        found += pq.read_table(part).to_pylist()
    return found


def test_a_dask_run_equals_a_run_in_one_process(
    cluster: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    address, _ = cluster
    inputs = [str(DATA), str(CORPUS / "small")]
    options = CanonOptions(position=True)
    here = write_dataset(inputs, str(tmp_path / "here"), options, partition_bytes=150_000)
    errors: list[str] = []
    there = write_dataset(inputs, str(tmp_path / "there"), options, partition_bytes=150_000,
                          dask=address, on_error=lambda e: errors.append(str(e)))
    # The JSON Lines walk of the same inputs says the same.
    assert str(there) == str(here) == str(write_records(inputs, lambda text: None, options))
    assert errors == [str(e) for e in here.errors]  # in partition order, as here
    for table in ("positions", "games", "files"):
        ours, theirs = rows(tmp_path / "here", table), rows(tmp_path / "there", table)
        assert sorted(map(repr, theirs)) == sorted(map(repr, ours))  # as a multiset
        assert theirs == ours  # and the parts are the same partitions
    # A packed corpus goes out in runs of row groups; its rows are those of its files.
    write_pack([str(CORPUS / "small")], str(tmp_path / "pack"), group_bytes=50_000)
    write_dataset([str(DATA), str(tmp_path / "pack")], str(tmp_path / "packed"), options,
                  partition_bytes=150_000, dask=address)
    # Its partitions are cut otherwise; its files are numbered the same.
    for table in ("positions", "games", "files"):
        assert rows(tmp_path / "packed", table) == rows(tmp_path / "here", table)
    # Relative input names need workers in this folder; these run elsewhere.
    os.chdir(DATA.parent)
    try:
        with pytest.raises(Exception, match=r"runs in .*, not in .*give absolute paths"):
            write_dataset(["sgf/game-9x9.sgf"], str(tmp_path / "rel"), dask=address)
    finally:
        os.chdir(ROOT)


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(
    cluster: tuple[str, list[subprocess.Popen[bytes]]], tmp_path: Path
) -> None:
    address, workers = cluster
    inputs = [str(CORPUS / "small")]
    size = "8K"  # some 300 small partitions: the run outlasts the kill
    count = len(partitions(inputs, 8 * 1024))
    out = tmp_path / "out"
    driver = subprocess.Popen(
        [sys.executable, "-c", "import sys; from gohash.cli import main; sys.exit(main())",
         "canon", *inputs, "--format", "parquet", "-o", str(out), "--partition-size", size,
         "--dask", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list((out / "positions").glob("part-*.parquet")):
            assert driver.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        workers[0].send_signal(signal.SIGKILL)
        done_at_kill = len(list((out / "positions").glob("part-*.parquet")))
        assert driver.poll() is None and done_at_kill < count  # killed mid-run
        _, err = driver.communicate(timeout=120)
    finally:
        driver.kill()
        driver.wait()
    assert driver.returncode == 0, err.decode()
    summary = "gohash canon: 577 files, 577 games, 44,606 positions, 0 errors"
    assert err.decode().splitlines()[-1] == summary
    write_dataset(inputs, str(tmp_path / "here"), partition_bytes=8 * 1024)
    for table in ("positions", "games", "files"):
        assert rows(out, table) == rows(tmp_path / "here", table)
    names = sorted(p.name for p in (out / "positions").iterdir())
    assert names == [f"part-{n:05d}.parquet" for n in range(count)]  # no temporary left
    marker = json.loads((out / "_gohash_canon.json").read_text())
    assert (marker["complete"], marker["positions"], marker["failed"]) == (True, 44606, [])


def test_a_local_cluster(tmp_path: Path) -> None:
    inputs = [str(DATA)]
    write_dataset(inputs, str(tmp_path / "here"), partition_bytes=5000)
    summary = write_dataset(inputs, str(tmp_path / "local"), partition_bytes=5000,
                            dask="local:2")
    assert str(summary) == str(write_records(inputs, lambda text: None, CanonOptions()))
    assert rows(tmp_path / "local", "positions") == rows(tmp_path / "here", "positions")
