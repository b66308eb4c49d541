"""Types of the SGF replay kernel (gohash/pipeline/_sgf_replay.pyx); see that file."""

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
