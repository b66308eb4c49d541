"""``dask_client("local:N")``: Dask's own log lines (a worker's heartbeat that
meets the scheduler closing, under load) do not reach the user's terminal; a
task's failure reaches the caller as its exception."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.support.env import ROOT

SCRIPT = textwrap.dedent("""
    import logging
    from gohash.pipeline.cluster import dask_client

    def complain():
        logging.getLogger("distributed.worker").error("a worker's error line")
        logging.getLogger("distributed.core").warning("a worker's warning line")

    def fail():
        raise ValueError("the task's own failure")

    if __name__ == "__main__":
        with dask_client("local:1") as client:
            client.run(complain)
            try:
                client.submit(fail).result()
            except ValueError as e:
                print("raised:", e)
""")


def test_a_local_cluster_keeps_dask_log_lines_off_stderr_and_raises_task_errors() -> None:
    pytest.importorskip("distributed")
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "raised: the task's own failure" in done.stdout
    assert "worker's" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
