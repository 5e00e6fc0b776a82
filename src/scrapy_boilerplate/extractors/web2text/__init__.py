"""Web2Text (Vogels, Ganea, Eickhoff, "Web2Text: Deep Structured Boilerplate Removal";
../shared/papers/web2text.txt): DOM-leaf blocks over the Collapsed DOM, 128 block and 25
edge features, unary and pairwise CNNs (trained offline with PyTorch, run with
onnxruntime), Viterbi over the hidden Markov model of equation (3)."""

from .extractor import Web2TextExtractor

__all__ = ["Web2TextExtractor"]
