"""Build the optional compiled kernels (gohash.pipeline's _scan, _sgf_replay, _frames and
_stored_replay; gohash.pattern._match) with setuptools' Cython support.

The extensions are optional: where they cannot be built (no C compiler), gohash
installs all the same and the modules that call them (through :mod:`gohash._native`)
take their pure paths.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(f"gohash.{name}", [f"gohash/{name.replace('.', '/')}.pyx"], optional=True)
            for name in ("pipeline._scan", "pipeline._sgf_replay", "pipeline._frames",
                         "pipeline._stored_replay", "pattern._match")
        ],
        compiler_directives={"language_level": "3"},
    )
)
