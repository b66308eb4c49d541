"""The position index, an SQLite file: :mod:`~gohash.index.index` (:class:`Index`,
the library's entry point), :mod:`~gohash.index.store` (the file: schema, build,
update, removal), :mod:`~gohash.index.records` (what a game contributes),
:mod:`~gohash.index.writer` (inserts), :mod:`~gohash.index.queries` (the
queries and their results) and :mod:`~gohash.index.movelist` (move lists).
"""
