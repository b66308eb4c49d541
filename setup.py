"""Build the optional compiled cores (gohash.pipeline._core, gohash.pattern._match)
with setuptools' Cython support.

The extensions are optional: where they cannot be built (no C compiler), gohash
installs all the same and :mod:`gohash.pipeline.positions` and
:mod:`gohash.pattern.match` take their pure paths.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(f"gohash.{name}", [f"gohash/{name.replace('.', '/')}.pyx"], optional=True)
            for name in ("pipeline._scan", "pipeline._core", "pattern._match")
        ],
        compiler_directives={"language_level": "3"},
    )
)
