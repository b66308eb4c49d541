"""The point maps of docs/design.md, section "The 16 elements", written out
independently: the reference for every element's board map."""

from __future__ import annotations

# The point maps of docs/design.md, section "The 16 elements", written out
# independently in x = col, y = row.  Every element's board map must be one of these.
DESIGN_MAPS = {
    "identity": lambda x, y, n: (x, y),
    "rot90": lambda x, y, n: (n - 1 - y, x),
    "rot180": lambda x, y, n: (n - 1 - x, n - 1 - y),
    "rot270": lambda x, y, n: (y, n - 1 - x),
    "flip": lambda x, y, n: (n - 1 - x, y),
    "transpose": lambda x, y, n: (y, x),
    "flipud": lambda x, y, n: (x, n - 1 - y),
    "antitranspose": lambda x, y, n: (n - 1 - y, n - 1 - x),
}


def design_map(name: str, point: tuple[int, int], n: int) -> tuple[int, int]:
    base = "identity" if name == "swap" else name.removesuffix("_swap")
    x, y = DESIGN_MAPS[base](point[1], point[0], n)
    return y, x
