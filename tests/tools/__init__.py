"""Tests of :mod:`gohash.tools`."""
