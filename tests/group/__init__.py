"""Tests of :mod:`gohash.group`."""
