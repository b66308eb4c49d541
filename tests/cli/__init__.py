"""Tests of :mod:`gohash.cli`."""
