"""The tools built on the pipeline: :mod:`~gohash.tools.canon` (canonical keys of
every position), with its Parquet output :mod:`~gohash.tools.parquet` and
:mod:`~gohash.tools.dataset` (partitioned datasets, locally or on Dask) and
:mod:`~gohash.tools.sql` (DuckDB macros over them),
:mod:`~gohash.tools.superko` (superko checks), :mod:`~gohash.tools.audit`
(collision audits) and :mod:`~gohash.tools.outputs` (output-file checks).
"""
