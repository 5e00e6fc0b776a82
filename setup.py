"""Build hook for the optional compiled walk (``scrapy_boilerplate.core._speedups``).

Everything else is in pyproject.toml. The extension is Cython over lxml's public C API
(its headers ship in lxml's wheels). It is optional: where it cannot be compiled (no C
compiler, say), the install goes on with a warning and the package uses its pure-Python
walk, which gives the same results, slower (docs/document.md).
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """``build_ext`` that warns, instead of failing the install, when compiling fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any build failure leaves the pure-Python walk
            self._skipped(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._skipped(exc)

    def _skipped(self, exc: Exception) -> None:
        self.warn(
            f"scrapy_boilerplate.core._speedups was not built ({exc}); "
            "the pure-Python walk will be used (same results, slower)"
        )


try:
    import lxml
    from Cython.Build import cythonize
except ImportError:  # building without the build requirements: pure Python
    ext_modules = []
else:
    ext_modules = cythonize(
        [
            Extension(
                "scrapy_boilerplate.core._speedups",
                ["src/scrapy_boilerplate/core/_speedups.pyx"],
                include_dirs=lxml.get_include(),
                optional=True,
            )
        ],
        language_level=3,
        quiet=True,
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
