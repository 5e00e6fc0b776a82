"""jusText (Pomikálek): block segmentation, stopword and link density, context-sensitive pass."""

from scrapy_boilerplate.extractors.justext.algorithm import (
    JustextExtractor,
    classify_context_free,
    classify_context_sensitive,
)

__all__ = ["JustextExtractor", "classify_context_free", "classify_context_sensitive"]
