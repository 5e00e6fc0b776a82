"""Build hook for the optional compiled walk (``scrapy_boilerplate._speedups``).

Everything else is in pyproject.toml. The extension is Cython over lxml's public C API
(its headers ship in lxml's wheels); it is ``optional``: where it cannot be compiled (no
C compiler), the install goes on and the package uses its pure-Python walk, which gives
the same results, slower.
"""

from setuptools import Extension, setup

try:
    import lxml
    from Cython.Build import cythonize
except ImportError:  # building without the build requirements: pure Python
    ext_modules = []
else:
    ext_modules = cythonize(
        [
            Extension(
                "scrapy_boilerplate._speedups",
                ["src/scrapy_boilerplate/_speedups.pyx"],
                include_dirs=lxml.get_include(),
                optional=True,
            )
        ],
        language_level=3,
        quiet=True,
    )

setup(ext_modules=ext_modules)
