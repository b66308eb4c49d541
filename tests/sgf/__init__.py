"""Tests of :mod:`gohash.sgf`."""
