"""Types of the compiled core (gohash/_core.pyx); see that file for what it does."""

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

TEXT_PROPERTIES: tuple[tuple[str, bytes], ...]

class Replayer:
    reason: str
    def __init__(
        self,
        keys_for: Callable[[int], npt.NDArray[np.uint64]],
        *,
        variations: bool,
        add: bool,
        capacity: int,
    ) -> None: ...
    def scan_file(
        self, data: bytes, file_id: int
    ) -> list[tuple[int, int, bytes | None, dict[str, str], dict[str, bytes]]] | None: ...
    def replay_game(self, index: int) -> bool: ...
    def take(self) -> tuple[dict[str, npt.NDArray[Any]], list[tuple[int, ...]]]: ...
    def rollback(self) -> None: ...
    def __len__(self) -> int: ...

def pack_frames(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
    which: npt.NDArray[np.uint8],
    gathers: npt.NDArray[np.int64],
    size: int,
    out: npt.NDArray[np.uint8],
    out_offsets: npt.NDArray[np.int64],
) -> None: ...

def settle_symmetric(
    data: npt.NDArray[np.uint8],
    offsets: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int64],
    attains: npt.NDArray[np.uint16],
    gathers: npt.NDArray[np.int64],
    size: int,
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]: ...

def canonical_slots(
    hashes: npt.NDArray[np.uint64],
    perms: npt.NDArray[np.int64],
    slot_bits: int,
    keys: npt.NDArray[np.uint64],
    lowest: npt.NDArray[np.uint8],
) -> npt.NDArray[np.intp]: ...

def replay_stored(
    blob: bytes,
    size: int,
    last: int,
    boards: npt.NDArray[np.int8],
    to_move: npt.NDArray[np.int8],
    colour: npt.NDArray[np.int8],
    point: npt.NDArray[np.int16],
    setup: npt.NDArray[np.uint8],
    parent: npt.NDArray[np.int32],
    move_number: npt.NDArray[np.int32],
) -> int: ...

def replay_at(
    data: bytes,
    offsets: npt.NDArray[np.int64],
    size: int,
    nodes: npt.NDArray[np.int32],
    mains: npt.NDArray[np.int32],
    game: npt.NDArray[np.int32],
    seq: npt.NDArray[np.int32],
    boards: npt.NDArray[np.int8],
    to_move: npt.NDArray[np.int8],
    next_colour: npt.NDArray[np.int8],
    next_point: npt.NDArray[np.int16],
    move_number: npt.NDArray[np.int32],
) -> int: ...
