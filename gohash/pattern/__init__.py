"""Pattern search up to symmetry: corner, side and local shapes with wildcards.

Scope: :mod:`~gohash.pattern.diagram` reads a pattern diagram and a move
sequence and computes, once per query, every placement of the pattern on the
board (anchoring as Kombilo's, the symmetries of ``full``, ``d4`` or ``none``,
equal placements once) with the key of its fixed-colour points derived by the
group's slot permutations; :mod:`~gohash.pattern.match` finds the hits of the
placements in one game's boards or in many stored games (a compiled kernel,
``_match``, and its pure Python twin); :mod:`~gohash.pattern.store` holds an
index's games as the scan reads them; :mod:`~gohash.pattern.search` sums the
hits of many games up into matches and continuations in the query's
orientation and colours.  The index side (which games, how long a store is
valid) is :meth:`gohash.index.index.Index.pattern`'s.
"""
