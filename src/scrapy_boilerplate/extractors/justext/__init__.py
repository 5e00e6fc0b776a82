"""jusText (Pomikálek): block segmentation, stopword and link density, context-sensitive pass."""

from .algorithm import JustextExtractor, classify_context_free, classify_context_sensitive

__all__ = ["JustextExtractor", "classify_context_free", "classify_context_sensitive"]
