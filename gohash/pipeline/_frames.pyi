"""Types of the frames kernel (gohash/pipeline/_frames.pyx); see that file."""

import numpy as np
import numpy.typing as npt

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
