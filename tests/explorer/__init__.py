"""Tests of :mod:`gohash.explorer`."""
