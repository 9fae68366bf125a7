"""Build the compiled solver core; without a working C compiler, install the pure-Python one.

Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

WARNING = """
************************************************************************************
WARNING: bigboggle's compiled solver core (_solve_c) could not be built:
    {error}
bigboggle is installed with its pure-Python solver instead: everything works, but
solving is about ten times slower. Install a C compiler and the Python headers
(Debian: apt-get install gcc python3-dev) and reinstall with
`pip install --no-cache-dir --force-reinstall bigboggle` (pip may otherwise reuse this build).
************************************************************************************
"""


class OptionalBuildExt(build_ext):
    """build_ext that turns a failed compile into a loud warning instead of a failed install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            sys.stderr.write(WARNING.format(error=error))

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:
            sys.stderr.write(WARNING.format(error=error))


setup(
    ext_modules=[
        Extension(
            "bigboggle._solve_c",
            sources=["src/bigboggle/_solve_c.c"],
            depends=[
                "src/bigboggle/_solve_c_walk.h",
                "src/bigboggle/_solve_c_text.h",
                "src/bigboggle/_solve_c_alternatives.h",
            ],
            extra_compile_args=["-O3"] if sys.platform != "win32" else [],
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
