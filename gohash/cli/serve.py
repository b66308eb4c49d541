"""``gohash serve DB [--host H] [--port N] [--timeout SECONDS] [--allow-host NAME]
[--dask ADDRESS]``: the position explorer in a web browser.

Scope: arguments only; the app is :func:`gohash.explorer.app.create_app` and uvicorn
runs it with :func:`gohash.explorer.app.server_config`.  Starlette and uvicorn
come with the ``web`` extra (``pip install 'gohash[web]'``); without them the
command says so.  ``--dask`` opens one Dask client
(:func:`gohash.pipeline.cluster.dask_client`) for the server's life, closed when
it stops.

Exit codes: 0 when stopped (Ctrl-C), 2 for a bad index, a port it cannot
listen on (checked before anything is printed) or a missing extra; the
address goes to standard error, as every command's messages do.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from typing import Any

from ..errors import GohashError
from ..index.shards import require_sharded
from ..pipeline.cluster import dask_client
from .options import add_exit_codes, leaf, port_number
from .progress import reporter

__all__ = ["register", "run"]

MAX_TIMEOUT = 3600.0
"""The longest --timeout taken (an hour)."""


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="explore an index in a web browser",
        description="Serve the position explorer over an index built by `gohash index build`: "
        "play or set up a position on a board, see what was played next in the indexed games "
        "and open those games.  The index is opened read-only.  Open the printed address in "
        "a browser; stop with Ctrl-C.",
    )
    parser.add_argument("db", metavar="DB", help="the index file, or a sharded index's folder")
    parser.add_argument(
        "--host", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port", type=port_number, default=8000, metavar="N",
        help="port to listen on (default 8000; 0: any free port, the one taken is printed)",
    )
    parser.add_argument(
        "--timeout", type=float, metavar="SECONDS",
        help="time budget of a pattern search (default 5; 0: none): a search that takes "
        "longer is answered as too broad, with what it counted so far",
    )
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="a host name the page may be opened under, besides localhost, IP addresses "
        "and --host (repeatable); requests for other names are refused, so that a web "
        "page cannot reach the server under a name of its own (DNS rebinding)",
    )
    parser.add_argument(
        "--dask", metavar="ADDRESS",
        help="ask the shards of a sharded index on the Dask scheduler tcp://HOST:PORT (or "
        "local:N, a local cluster of N workers) instead of in threads here",
    )
    add_exit_codes(parser)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    if args.timeout is not None and not 0 <= args.timeout <= MAX_TIMEOUT:
        raise GohashError(f"--timeout must be between 0 and {MAX_TIMEOUT:g} seconds, "
                          f"not {args.timeout!r}")
    try:
        import uvicorn  # noqa: F401  (the web extra, checked before anything else)

        from ..explorer.app import PATTERN_TIMEOUT, create_app, listen, run_app
    except ImportError as e:
        raise GohashError(
            f"gohash serve needs the web extra ({e.name} is missing): "
            "pip install 'gohash[web]'"
        ) from None
    sock = listen(args.host, args.port)
    timeout = PATTERN_TIMEOUT if args.timeout is None else args.timeout or None
    with contextlib.ExitStack() as stack:
        stack.callback(sock.close)
        client = None
        if args.dask is not None:
            require_sharded(args.db)
            client = stack.enter_context(dask_client(args.dask, paths_relative=not (
                os.path.isabs(args.db))))
        app = create_app(args.db, allowed_hosts=[args.host, *args.allow_host],
                         pattern_timeout=timeout, dask_client=client)
        port = sock.getsockname()[1]
        host = f"[{args.host}]" if ":" in args.host else args.host
        on = "" if args.dask is None else f", its shards asked on {args.dask}"
        reporter(args).say(f"exploring {args.db} at http://{host}:{port}/{on} (Ctrl-C stops)")
        run_app(app, sock)
    return 0
