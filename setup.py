"""Build the optional compiled core, gohash.pipeline._core, with setuptools' Cython support.

The extension is optional: where it cannot be built (no C compiler), gohash
installs all the same and :mod:`gohash.pipeline.positions` takes the pure path.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(f"gohash.pipeline.{name}", [f"gohash/pipeline/{name}.pyx"], optional=True)
            for name in ("_scan", "_core")
        ],
        compiler_directives={"language_level": "3"},
    )
)
