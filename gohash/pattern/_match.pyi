"""Types of the compiled pattern kernel (gohash/pattern/_match.pyx); see that file."""

from typing import Any

import numpy as np
import numpy.typing as npt

class Kernel:
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
        data: bytes,
        offsets: npt.NDArray[np.int64],
        mains: npt.NDArray[np.int32],
    ) -> tuple[npt.NDArray[np.int32], ...]: ...
    def candidates(self, ever_black: bytes, ever_white: bytes) -> npt.NDArray[np.uint8]: ...
