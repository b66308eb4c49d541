"""Types of the stored-game replay kernel (gohash/pipeline/_stored_replay.pyx); see that file."""

import numpy as np
import numpy.typing as npt

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
