"""``gohash serve DB [--host H] [--port N] [--allow-host NAME]``: the position
explorer in a web browser.

Scope: arguments only; the app is :func:`gohash.serve.create_app` and uvicorn
runs it with :func:`gohash.serve.server_config`.  Starlette and uvicorn come with the ``web`` extra
(``pip install 'gohash[web]'``); without them the command says so.

Exit codes: 0 when stopped (Ctrl-C), 2 for a bad index or a missing extra; the
address goes to standard error, as every command's messages do.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import GohashError
from .options import add_exit_codes, leaf
from .progress import Reporter

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="explore an index in a web browser",
        description="Serve the position explorer over an index built by `gohash index build`: "
        "play or set up a position on a board, see what was played next in the indexed games "
        "and open those games.  The index is opened read-only.  Open the printed address in "
        "a browser; stop with Ctrl-C.",
    )
    parser.add_argument("db", metavar="DB", help="the index file")
    parser.add_argument(
        "--host", default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, metavar="N", help="port to listen on (default 8000)"
    )
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="a host name the page may be opened under, besides localhost, IP addresses "
        "and --host (repeatable); requests for other names are refused, so that a web "
        "page cannot reach the server under a name of its own (DNS rebinding)",
    )
    add_exit_codes(parser)
    leaf(parser, run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise GohashError(f"--port must be between 1 and 65535, not {args.port!r}")
    try:
        import uvicorn

        from ..serve import create_app, server_config
    except ImportError as e:
        raise GohashError(
            f"gohash serve needs the web extra ({e.name} is missing): "
            "pip install 'gohash[web]'"
        ) from None
    app = create_app(args.db, allowed_hosts=[args.host, *args.allow_host])
    Reporter(args.prog).say(
        f"exploring {args.db} at http://{args.host}:{args.port}/ (Ctrl-C stops)"
    )
    uvicorn.Server(server_config(app, host=args.host, port=args.port)).run()
    return 0
