"""The key schemes' golden values (keys and hashes pinned per scheme and size) and a
hypothesis strategy for positions of any size."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def positions(draw: st.DrawFn, max_size: int = 26) -> tuple[int, np.ndarray]:
    n = draw(st.integers(1, max_size))
    fill = draw(st.floats(0.0, 1.0))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    stones = rng.random((n, n)) < fill
    colours = rng.integers(1, 3, size=(n, n))
    return n, np.where(stones, colours, 0).astype(np.int8)


TEN_STONES = [((0, 0), 1), ((2, 2), 1), ((3, 5), 1), ((6, 6), 1), ((8, 1), 1),
              ((1, 7), 2), ((4, 4), 2), ((5, 2), 2), ((7, 8), 2), ((2, 6), 2)]


# (scheme, size): (black key of (0, 0), white key of (1, 2), t_B, hash of TEN_STONES)
GOLDEN: dict[tuple[str, int], tuple[str, str, str, str]] = {
    ('huima64', 9): (
        '0xdbda7fda1c065e06',
        '0xcd63c0ef08a71395',
        '0x1313131381818181',
        '0x8cf91e1fd7077d0f',
    ),
    ('huima64', 13): (
        '0xa4f3cff3f4fa9ffa',
        '0x3541595b47d1ec6a',
        '0x0404040444444444',
        '0x610cebfb1d2f3019',
    ),
    ('huima64', 19): (
        '0x5ebdbebd66476647',
        '0x8e17b06c4d538410',
        '0xb9b9b9b95e5e5e5e',
        '0x39c5426772795412',
    ),
    ('huima64-add', 9): (
        '0xdbda7fda1c065e06',
        '0xcd63c0ef08a71395',
        '0x1313131381818181',
        '0x926502d3897fb903',
    ),
    ('huima64-add', 13): (
        '0xa4f3cff3f4fa9ffa',
        '0x3541595b47d1ec6a',
        '0x0404040444444444',
        '0x25389367991f4ca5',
    ),
    ('huima64-add', 19): (
        '0x5ebdbebd66476647',
        '0x8e17b06c4d538410',
        '0xb9b9b9b95e5e5e5e',
        '0xd5bf9ea77cbb9ad4',
    ),
    ('regular64', 9): (
        '0xeab1ae1b79dc97cd',
        '0x5845e1f5590b226c',
        '0xaaaaaaaa11111111',
        '0x41b11e300e850dad',
    ),
    ('regular64', 13): (
        '0xf33b3fb30abca0cb',
        '0x449be646273ee2fc',
        '0x88888888ffffffff',
        '0x6f97ee9a243474ce',
    ),
    ('regular64', 19): (
        '0x36f3633fa9369a63',
        '0x80d4254fb44d020b',
        '0x77777777eeeeeeee',
        '0xa7da8675a6f334d6',
    ),
    ('regular128', 9): (
        '0xcfc88fc8c8cfc88f5b128ad6125bd68a',
        '0xcff5ce4e8a9a18c2c240730e44f39172',
        '0x28282828282828285656565656565656',
        '0x82f4108e45a671690556e4441cee2fcf',
    ),
    ('regular128', 13): (
        '0x835c85925c8392858059341a59801a34',
        '0x420e5a8bfcbb30b872b17477ff264dce',
        '0x1919191919191919fefefefefefefefe',
        '0x639807902a9139486687a379d16f3b4c',
    ),
    ('regular128', 19): (
        '0xdd01fe8301dd83fe9f796d3f799f3f6d',
        '0x0c3cf1067ad8bcfbc83f5bc68a068383',
        '0xf0f0f0f0f0f0f0f05454545454545454',
        '0xd55f5f9e7b37146caa9a9c9ce58594a0',
    ),
}
