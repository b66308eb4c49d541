"""The symmetry group of the board and the key schemes that hash under it; no I/O.

:mod:`~gohash.group.symmetry` (the 16 elements and their table),
:mod:`~gohash.group.coords` (points, GTP and SGF coordinates),
:mod:`~gohash.group.schemes` (key tables and the group's action on hashes) and
:mod:`~gohash.group.structure` (a scheme's structure, measured for the audit).
"""
