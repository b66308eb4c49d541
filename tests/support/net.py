"""Loopback ports for the tests that start a server of their own (``gohash serve``,
a Dask scheduler)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port free now (the kernel's choice, so two test processes asking at
    once get different ones)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
