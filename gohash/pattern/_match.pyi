"""Types of the compiled pattern kernel (gohash/pattern/_match.pyx); see that file."""

from typing import Any

import numpy as np
import numpy.typing as npt

class Kernel:
    list_rule: int
    def __init__(self, matcher: Any) -> None: ...
    def match(
        self,
        boards: npt.NDArray[np.int8],
        move_numbers: npt.NDArray[np.int32],
        to_move: npt.NDArray[np.int8],
        next_colour: npt.NDArray[np.int8],
        next_point: npt.NDArray[np.int32],
    ) -> tuple[
        npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.uint8]
    ]: ...
    def scan(
        self,
        node_offsets: npt.NDArray[np.int64],
        first_to_move: npt.NDArray[np.int8],
        next_colour: npt.NDArray[np.int8],
        next_point: npt.NDArray[np.int16],
        change_offsets: npt.NDArray[np.int64],
        changes: npt.NDArray[np.uint16],
        removed: npt.NDArray[np.uint8],
        alive_bits: npt.NDArray[np.uint64],
        base: int,
        first: int,
        games: npt.NDArray[np.int64],
        summary: Summary | None = None,
    ) -> tuple[
        npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32],
        npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32],
        npt.NDArray[np.int32], npt.NDArray[np.int32], int,
    ]: ...

class Summary:
    sums: npt.NDArray[np.int64]
    wanted: int
    total: int
    games: int
    ended: int
    kept: int
    def __init__(
        self,
        to_query: npt.NDArray[np.int32],
        representatives: npt.NDArray[np.int64],
        winners: npt.NDArray[np.int8],
        date_ranks: npt.NDArray[np.int32],
        wanted: int,
    ) -> None: ...

def flatten(
    data: bytes, offsets: npt.NDArray[np.int64], mains: npt.NDArray[np.int32], size: int
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int8], npt.NDArray[np.int16],
    npt.NDArray[np.int64], npt.NDArray[np.uint16], npt.NDArray[np.uint8],
]: ...

def shift_tables(
    watch_offsets: npt.NDArray[np.int32], watch: npt.NDArray[np.int32],
    watch_codes: npt.NDArray[np.int8], slots: npt.NDArray[np.int32], count: int,
) -> tuple[
    npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.uint64],
]: ...

def window_hits(
    node_offsets: npt.NDArray[np.int64],
    next_colour: npt.NDArray[np.int8],
    next_point: npt.NDArray[np.int16],
    change_offsets: npt.NDArray[np.int64],
    changes: npt.NDArray[np.uint16],
    size: int,
    side: int,
    window_points: npt.NDArray[np.int32],
    point_windows: npt.NDArray[np.int32],
    point_window_offsets: npt.NDArray[np.int32],
    classes: npt.NDArray[np.int32],
    orientations: npt.NDArray[np.int8],
    answered: npt.NDArray[np.int32],
    lowest: npt.NDArray[np.int8],
    frames: npt.NDArray[np.uint8],
    back: npt.NDArray[np.int32],
    winners: npt.NDArray[np.int8],
    date_ranks: npt.NDArray[np.int32],
) -> Any: ...
def band_hits(
    node_offsets: npt.NDArray[np.int64],
    next_colour: npt.NDArray[np.int8],
    next_point: npt.NDArray[np.int16],
    change_offsets: npt.NDArray[np.int64],
    changes: npt.NDArray[np.uint16],
    size: int,
    depth: int,
    width: int,
    band_points: npt.NDArray[np.int32],
    point_bands: npt.NDArray[np.int32],
    point_band_offsets: npt.NDArray[np.int32],
    elements: npt.NDArray[np.int8],
    answered: npt.NDArray[np.int64],
    slots: npt.NDArray[np.int32],
    by_orientation: npt.NDArray[np.uint8],
    shared_slots: npt.NDArray[np.int32],
    frames: npt.NDArray[np.uint8],
    lowest: npt.NDArray[np.int8],
    keepers: npt.NDArray[np.int8],
    winners: npt.NDArray[np.int8],
    date_ranks: npt.NDArray[np.int32],
) -> Any: ...
