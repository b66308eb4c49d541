"""``gohash serve``'s HTTP server: the socket, uvicorn's settings, and the guards
against hostile clients.

Scope: :func:`listen` binds the port first (a busy port is one clear error,
before anything is printed) and :func:`run_app` serves an app with uvicorn on
that socket; :class:`Guard` refuses other hosts' requests and adds the security
headers to every answer; each request must arrive within a deadline
(:func:`server_config`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import socket

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..errors import GohashError
from .params import MAX_QUERY_BYTES

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "MAX_HEAD_BYTES",
    "REQUEST_TIMEOUT",
    "SHUTDOWN_TIMEOUT",
    "Guard",
    "listen",
    "run_app",
    "server_config",
]

REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send a whole request (from its opening, or
the end of the previous answer); then it is closed."""
SHUTDOWN_TIMEOUT = 5
"""Seconds a stopping server waits for the requests under way (a game read again
can take minutes); then it cancels them and stops the workers."""
MAX_HEAD_BYTES = MAX_QUERY_BYTES + 16 * 1024
"""The longest request line and headers read: the longest query string, and room
for a browser's headers."""
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page's scripts, styles and requests are the server's own; it may not be framed."""
_SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


# -- listening -----------------------------------------------------------------------------------


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port`` (0: any free port) and
    listening, for :func:`run_app`: bound before anything is printed or served,
    so that a busy port is one clear :class:`~gohash.errors.GohashError`
    (naming the port and ``--port``), and no other process can take the port
    between the check and the serving."""
    # As uvicorn decides: IPv6 for an address with a colon, IPv4 for anything else.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise GohashError(f"cannot listen on {host!r}: {e.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        where = f"port {port} on {host}"
        if e.errno == errno.EADDRINUSE:
            raise GohashError(f"{where} is in use: choose another with --port N") from None
        if e.errno == errno.EACCES:
            raise GohashError(f"{where} is not open to this user: choose another with --port N "
                              "(ports below 1024 need privileges)") from None
        raise GohashError(f"cannot listen on {where}: {e.strerror}") from None
    return sock


def run_app(app: Starlette, sock: socket.socket) -> None:
    """Serve ``app`` with uvicorn on the listening socket ``sock`` (:func:`listen`);
    return when Ctrl-C stops it (uvicorn shuts down, then raises the interrupt
    again: here it is the expected end, not an error).  The socket is closed
    afterwards."""
    with sock:
        server = uvicorn.Server(server_config(app))
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])


# -- hostile clients -------------------------------------------------------------------------


def _host_allowed(host: str | None, names: frozenset[str]) -> bool:
    """Whether a ``Host`` header names this server: ``localhost``, an IP address (a
    DNS-rebinding page can only reach the server under a name), or one of ``names``;
    with or without a port."""
    if not host:
        return False
    host = host.strip().lower()
    if host.startswith("["):  # an IPv6 address
        name, bracket, rest = host[1:].partition("]")
        if not bracket or rest[:1] not in ("", ":"):
            return False
        port = rest[1:]
    else:
        name, _, port = host.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return False
    name = name.rstrip(".")
    if name == "localhost" or name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """Refuses requests for other hosts with 400 and adds the security headers to
    every answer."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in _SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        host = Headers(scope=scope).get("host")
        if not _host_allowed(host, self.hosts):
            refused = JSONResponse(
                {"error": f"this server does not answer for the host {host!r} "
                          "(gohash serve --allow-host NAME names one)"},
                status_code=400,
            )
            await refused(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)


class _Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for each request: the request
    line, headers and body must arrive within :attr:`request_timeout` seconds of
    the connection's opening or of the previous answer's end, or the connection
    is closed.  uvicorn's keep-alive timeout covers an idle connection only: one
    byte resets it, so a client sending a header a byte at a time held a
    connection for ever."""

    request_timeout = REQUEST_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in (or the connection is ending)

    def on_response_complete(self) -> None:
        # Armed first: the next pipelined request, if any, is read at once and disarms it.
        self._arm()
        super().on_response_complete()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def server_config(
    app: ASGIApp, *, host: str = "127.0.0.1", port: int = 8000,
    request_timeout: float = REQUEST_TIMEOUT,
) -> uvicorn.Config:
    """uvicorn's settings for ``app`` on ``host``:``port``: the request deadline of
    ``request_timeout`` seconds, request heads of at most :data:`MAX_HEAD_BYTES`,
    :data:`SHUTDOWN_TIMEOUT` seconds to stop, warnings only in the log."""
    protocol = type("_TimedProtocol", (_Protocol,), {"request_timeout": request_timeout})
    return uvicorn.Config(
        app, host=host, port=port, http=protocol, log_level="warning", server_header=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=SHUTDOWN_TIMEOUT,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
    )
