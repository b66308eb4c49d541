"""Tests of :mod:`gohash.go`."""
