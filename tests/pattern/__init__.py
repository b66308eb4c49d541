"""Tests of :mod:`gohash.pattern`."""
