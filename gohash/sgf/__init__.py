"""Reading SGF: :mod:`~gohash.sgf.sources` (files, folders, archives, stdin and
their budgets), :mod:`~gohash.sgf.names` (file names as text),
:mod:`~gohash.sgf.parser` (the streaming parser), :mod:`~gohash.sgf.walk` (the
walker that replays games for visitors) and :mod:`~gohash.sgf.pack` (packed
datasets).
"""
