"""Web2Text (Vogels, Ganea, Eickhoff, "Web2Text: Deep Structured Boilerplate Removal",
section 3 and Appendix A): DOM-leaf blocks over the Collapsed DOM, 128 block and 25
edge features, unary and pairwise CNNs (trained offline with PyTorch, run with
onnxruntime), Viterbi over the hidden Markov model of equation (3).

For your own training data: :func:`label_page` / :func:`align_blocks` (the automatic block
labelling of section 4.1), :func:`page_features`, and ``scrapy-boilerplate train``.
"""

from scrapy_boilerplate.extractors.web2text.extractor import Web2TextExtractor
from scrapy_boilerplate.extractors.web2text.features import page_features
from scrapy_boilerplate.extractors.web2text.labelling import align_blocks, label_page
from scrapy_boilerplate.extractors.web2text.model import ModelError, load_model, shipped_models

__all__ = [
    "ModelError",
    "Web2TextExtractor",
    "align_blocks",
    "label_page",
    "load_model",
    "page_features",
    "shipped_models",
]
