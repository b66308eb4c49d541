"""The rules of Go: :mod:`~gohash.go.board` (the board with undo and incremental
hashes), :mod:`~gohash.go.rulesets` (ko rules, suicide, ``RU`` values) and
:mod:`~gohash.go.ko` (ko and superko violations).
"""
