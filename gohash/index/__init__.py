"""The position index, an SQLite file: :mod:`~gohash.index.index` (:class:`Index`,
the library's entry point, a facade over the query families: exact search and
continuations in :mod:`~gohash.index.find`, pattern search in
:mod:`~gohash.index.pattern_search`), :mod:`~gohash.index.store` (the file: opening,
building, upkeep), :mod:`~gohash.index.schema` (its DDL and format version),
:mod:`~gohash.index.build` (inputs replayed into what it stores),
:mod:`~gohash.index.games` (games as it stores them, and their replay),
:mod:`~gohash.index.records` (what a file and a game contribute),
:mod:`~gohash.index.parquet` (a canon dataset read back),
:mod:`~gohash.index.writer` (inserts), :mod:`~gohash.index.check` (checking
it end to end), :mod:`~gohash.index.values` (its values checked against the
schema, by check and every reader), :mod:`~gohash.index.dupes` (duplicate
games), :mod:`~gohash.index.filters` (which games a search counts),
:mod:`~gohash.index.results` (what queries answer),
:mod:`~gohash.index.view` (next moves seen from the query),
:mod:`~gohash.index.movelist` (move lists), :mod:`~gohash.index.players` (a
player's games, openings and corner patterns), :mod:`~gohash.index.export`
(a stored game for a viewer, and written back as SGF) and :mod:`~gohash.index.shards` (an index
in shards, built and searched as one).
"""
