"""Tests of :mod:`gohash.index`."""
