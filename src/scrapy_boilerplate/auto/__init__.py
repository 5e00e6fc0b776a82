"""``auto``: the default extractor, a learned combination of every method's evidence.

See :mod:`scrapy_boilerplate.auto.extractor` for how it decides and ``docs/auto.md`` for
its design and figures. It may import the methods (it reads their evidence); no method
imports it.
"""

from scrapy_boilerplate.auto.extractor import AutoExtractor

__all__ = ["AutoExtractor"]
