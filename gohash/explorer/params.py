"""The query parameters of ``gohash serve``'s endpoints, read and checked.

Scope: each endpoint's parameters, each at most once and each one it takes, and
their values as numbers, choices and the index's filters; a bad one is a
:class:`~gohash.errors.BadRequest` naming it.
"""

from __future__ import annotations

from starlette.requests import Request

from ..errors import BadRequest
from ..index.filters import FILTERS, Filters

__all__ = [
    "FILTER_PARAMS",
    "MAX_FILTER_CHARS",
    "MAX_QUERY_BYTES",
    "choice_param",
    "filter_params",
    "int_param",
    "query_params",
]

MAX_QUERY_BYTES = 16 * 1024
"""The longest query string accepted (a 2,000-step move list takes some 8 KiB)."""
MAX_FILTER_CHARS = 200
"""The longest value a filter may give (a player's name, an event, a place)."""
FILTER_PARAMS = tuple(spec.name for spec in FILTERS)
"""The filters' parameters, by name."""


def query_params(request: Request, allowed: tuple[str, ...]) -> dict[str, str]:
    """The query parameters, each at most once and each one of ``allowed``."""
    raw: bytes = request.scope.get("query_string", b"")
    if len(raw) > MAX_QUERY_BYTES:
        raise BadRequest(f"the query string has {len(raw)} bytes; at most {MAX_QUERY_BYTES}", 414)
    params: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name not in allowed:
            raise BadRequest(
                f"unknown parameter {name[:40]!r} (this endpoint takes "
                f"{', '.join(allowed) or 'none'})"
            )
        if name in params:
            raise BadRequest(f"parameter {name!r} given twice")
        params[name] = value
    return params


def int_param(params: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    text = params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise BadRequest(f"{name} must be a whole number, not {text[:40]!r}")
    value = int(text)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be between {low} and {high}, not {value}")
    return value


def choice_param(params: dict[str, str], name: str, choices: tuple[str, ...]) -> str | None:
    value = params.get(name)
    if value is None or value == "":
        return None
    if value not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(choices)}, not {value[:40]!r}")
    return value


def filter_params(params: dict[str, str]) -> Filters | None:
    """The filters the parameters give (empty values are no filter), None if none."""
    values: dict[str, object] = {}
    for spec in FILTERS:
        text = params.get(spec.name)
        if not text:
            continue
        if len(text) > MAX_FILTER_CHARS:
            raise BadRequest(f"{spec.name} has {len(text)} characters; at most "
                             f"{MAX_FILTER_CHARS}")
        values[spec.name] = spec.parse(text)
    return Filters.from_values(values)

