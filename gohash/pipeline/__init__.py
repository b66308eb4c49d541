"""The batch pipeline: whole collections as columns of positions.

:mod:`~gohash.pipeline.positions` (the entry point and the compiled core's
caller), :mod:`~gohash.pipeline.columns` (the pure path's columns),
:mod:`~gohash.pipeline.frames` (canonical frames and packed positions),
:mod:`~gohash.pipeline.pool` (worker processes) and the Cython core,
``_scan`` and ``_sgf_replay``, and the kernels ``_frames`` and ``_stored_replay``
(:mod:`gohash._native` imports them).
"""
