"""``gohash serve`` on the command line: the port is bound before anything is
printed (a busy port is one clear line and exit 2, nothing else said), and the
bound socket is the one uvicorn serves on (``--port 0`` serves on the port it
prints, and Ctrl-C stops it with exit 0)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from gohash.cli import main
from tests.support.env import ROOT

pytest.importorskip("uvicorn")

GAME = ROOT / "data" / "sgf" / "game-9x9.sgf"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-cli") / "index.db"
    assert main(["index", "build", str(path), str(GAME)]) == 0
    return path


def test_a_busy_port_is_one_clear_line_and_exit_2(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", str(db), "--port", str(port)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err == (f"gohash serve: error: port {port} on 127.0.0.1 is in use: "
                            "choose another with --port N\n")


def test_the_port_is_checked_before_the_index(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", str(tmp_path / "missing.db"), "--port", str(port)])
    assert code == 2
    assert f"port {port} on 127.0.0.1 is in use" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_a_port_out_of_range_is_refused(
    db: Path, port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(db), "--port", port]) == 2
    assert "error: argument --port: must be at " in capsys.readouterr().err


def test_it_serves_on_the_port_it_prints_and_stops_on_ctrl_c(db: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from gohash.cli import main; sys.exit(main())",
         "serve", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.fullmatch(
            rf"gohash serve: exploring {re.escape(str(db))} at "
            r"http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line)
        assert found, line
        port = int(found.group(1))
        assert port != 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=30) as reply:
            assert json.load(reply)["games"] == 1
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert out == ""


@pytest.mark.parametrize("timeout", ["-1", "nan", "inf", "3601"])
def test_a_timeout_out_of_range_is_refused(
    db: Path, timeout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(db), "--port", "0", "--timeout", timeout]) == 2
    assert "--timeout must be between 0 and 3600 seconds" in capsys.readouterr().err


@pytest.mark.parametrize(("given", "budget"), [([], 5.0), (["--timeout", "0.5"], 0.5),
                                               (["--timeout", "0"], None)])
def test_the_timeout_is_the_pattern_searches_budget(
    db: Path, given: list[str], budget: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[float | None] = []

    def run_app(app: object, sock: socket.socket) -> None:
        sock.close()

    def create_app(path: str, *, allowed_hosts: list[str], pattern_timeout: float | None,
                   dask_client: object = None) -> None:
        seen.append(pattern_timeout)

    monkeypatch.setattr("gohash.explorer.app.run_app", run_app)
    monkeypatch.setattr("gohash.explorer.app.create_app", create_app)
    assert main(["serve", str(db), "--port", "0", *given]) == 0
    assert seen == [budget]
