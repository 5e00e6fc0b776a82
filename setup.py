"""Build hook for the optional compiled steps: the core's walk
(``scrapy_boilerplate.core._speedups``) and a method's own (``extractors/cnr/_speedups``,
which cimports the core's ``_speedups.pxd``, and ``auto/_speedups``), and the entity
extractor's plain Python modules compiled as they are (:data:`COMPILED_MODULES`).

Everything else is in pyproject.toml. The extensions are Cython over lxml's public C API
(its headers ship in lxml's wheels). They are optional: where they cannot be compiled (no
C compiler, say), the install goes on with a warning and the package uses its pure-Python
steps, which give the same results, slower (docs/document.md).
"""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: The packages with a compiled ``_speedups`` module (the core's first: the others need it).
COMPILED = ("core", "extractors.cnr", "auto")
#: Plain Python modules that Cython compiles unchanged (the entity extractor's candidates,
#: features and ranking: many small steps over Python objects, with no single hot loop for
#: a ``.pyx`` of its own). The ``.py`` stays the source and the fallback: Python imports the
#: built module in its place when there is one. Annotations are not read as C types, so
#: the compiled module computes exactly what the Python one does.
COMPILED_MODULES = (
    "entities.derive", "entities.distinct", "entities.extract", "entities.features",
    "entities.filtered", "entities.pageindex", "entities.porter", "entities.predicates",
    "entities.rerank",
)  # fmt: skip
#: Cython's directives for :data:`COMPILED_MODULES`.
PLAIN_DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


class OptionalBuildExt(build_ext):
    """``build_ext`` that warns, instead of failing the install, when compiling fails."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # the modules are independent: compile them side by side
            self.parallel = os.cpu_count() or 1

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
            f"a compiled module of scrapy_boilerplate was not built ({exc}); "
            "its pure-Python steps will be used (same results, slower)"
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
                f"scrapy_boilerplate.{name}._speedups",
                [f"src/scrapy_boilerplate/{name.replace('.', '/')}/_speedups.pyx"],
                include_dirs=lxml.get_include(),
                optional=True,
            )
            for name in COMPILED
        ],
        include_path=["src"],  # a method's module cimports the core's (core/_speedups.pxd)
        language_level=3,
        quiet=True,
    ) + cythonize(
        [
            Extension(
                f"scrapy_boilerplate.{name}",
                [f"src/scrapy_boilerplate/{name.replace('.', '/')}.py"],
                optional=True,
            )
            for name in COMPILED_MODULES
        ],
        compiler_directives=PLAIN_DIRECTIVES,
        quiet=True,
    )

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
