"""Tests of :mod:`gohash.pipeline`."""
