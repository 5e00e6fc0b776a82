"""The language a page is written in, detected from its text, beside the one it declares.

Detection is py3langid's (a maintained fork of Lui and Baldwin's langid.py: a naive Bayes
classifier over byte n-grams, 140 languages, BSD-3-Clause). Its model ships inside its
wheel and is loaded once per process, on first use; nothing is downloaded. Only the first
:data:`MAX_CHARS` characters of a text are read (after digits and punctuation are dropped;
:data:`MORE_CHARS` when the answer is unsure), so detection takes a bounded time whatever
the size of the text.

Codes are ISO 639-1 (``en``, ``de``, ``ja``). The model's labels that have no two-letter
code are folded into their macrolanguage (Egyptian and Moroccan Arabic into ``ar``,
Cantonese and Wu into ``zh``) or left out of the vote (Nigerian Pidgin, which otherwise
takes short English texts, and the other languages without a code).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from array import array
from typing import Any

from scrapy_boilerplate.core import compiled as _compiled

#: Characters of text read at most (the first ones, after digits and punctuation are
#: dropped): enough for a confident answer, and a bound on the time of a large page.
MAX_CHARS = 300
#: Below this confidence, a text longer than the sample is read again up to
#: :data:`MORE_CHARS` characters.
SURE = 0.99
MORE_CHARS = 1500
#: Characters read first where the page declares a language: when they are that language
#: with a confidence of at least :data:`SURE`, detection stops there (a page whose text
#: starts in the language it declares and goes on in another is then taken for the first).
QUICK_CHARS = 100
#: Fewer letters than this: too short to decide, the language is None.
MIN_LETTERS = 10
#: A main text shorter than this (characters) is completed with the page's whole text
#: by :func:`page_language`: a title or a caption alone is a poor sample.
MIN_MAIN_CHARS = 200
#: Below this probability of the best language, the text is undecidable (None).
MIN_CONFIDENCE = 0.2

#: ISO 639-1, every two-letter code (the deprecated ``bh`` aside).
ISO_639_1 = frozenset(
    """aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu
    cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi
    ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks
    ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl
    nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl
    sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve
    vi vo wa wo xh yi yo za zh zu""".split()  # noqa: SIM905 (a list literal: 4x longer)
)
#: Codes a page may declare that name an ISO 639-1 language another way: withdrawn
#: two-letter codes and the common three-letter (ISO 639-2/3) ones.
_ALIASES = {
    "iw": "he",
    "in": "id",
    "ji": "yi",
    "jw": "jv",
    "mo": "ro",
    "eng": "en",
    "deu": "de",
    "ger": "de",
    "fra": "fr",
    "fre": "fr",
    "spa": "es",
    "ita": "it",
    "por": "pt",
    "nld": "nl",
    "dut": "nl",
    "rus": "ru",
    "pol": "pl",
    "jpn": "ja",
    "zho": "zh",
    "chi": "zh",
    "kor": "ko",
    "ara": "ar",
    "tur": "tr",
    "swe": "sv",
}
#: py3langid's labels without a two-letter code that belong to one (macrolanguages).
_MODEL_FOLD = {"ary": "ar", "arz": "ar", "yue": "zh", "wuu": "zh", "uzs": "uz", "gug": "gn"}
#: Languages counted as one when a detected and a declared code are compared: Norwegian
#: (``no``) and its two written standards, Bokmål (``nb``) and Nynorsk (``nn``), which
#: pages declare interchangeably.
_SAME = {"nb": "no", "nn": "no"}

# Digits, ASCII punctuation and symbols, general punctuation, arrows and box drawing, CJK
# punctuation: no evidence of a language, and noise in the byte n-grams (a table of figures
# reads as any language). Letters and combining marks (Thai, Devanagari vowels) stay;
# whitespace runs collapse to one space.
_NOISE = re.compile(
    r"[\s\d!-/:-@\[-`{-~\u00a0-\u00bf\u00d7\u00f7\u2000-\u2bff\u3000-\u303f"
    r"\uff01-\uff0f\uff1a-\uff20\ufffd]+"
)

_lock = threading.Lock()
_model_cache: list[_Model] = []


class _Model:
    """py3langid's model (loaded by py3langid, once per process), scored here: the byte
    n-gram counts of a text (py3langid's own automaton walk), naive Bayes log scores
    from its table, and a softmax over the labels that have (or fold into) an ISO 639-1
    code, each code's labels summed. The softmax's temperature is py3langid's own (the
    square root of the text's bytes), which keeps the probabilities comparable across
    lengths. Scoring here rather than through ``classify`` reads the table's rows in
    place instead of a copy restricted to the kept labels."""

    def __init__(self) -> None:
        import numpy as np
        from py3langid import langid

        ident = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE)
        self.np = np
        # typed arrays: the compiled walk reads them in place (the Python one indexes them)
        self.nextmove, self.rowbase, self.output = (
            ident.tk_nextmove
            if ident.tk_nextmove.typecode == "I"
            else array("I", ident.tk_nextmove),
            array("I", [r << 8 for r in ident.tk_row]),
            array("i", ident.tk_output),
        )
        self.table = np.ascontiguousarray(ident.nb_ptc)
        self.prior = np.asarray(ident.nb_pc, dtype=np.float32)
        codes = [_MODEL_FOLD.get(label, label) for label in ident.nb_classes]
        # the labels in the vote, and for each its column in the codes' sum
        kept = [i for i, code in enumerate(codes) if code in ISO_639_1]
        self.codes = sorted({codes[i] for i in kept})
        self.kept = np.array(kept, dtype=np.intp)
        self.fold = np.zeros((len(kept), len(self.codes)), dtype=np.float32)
        for row, i in enumerate(kept):
            self.fold[row, self.codes.index(codes[i])] = 1.0

    def classify(self, data: bytes) -> tuple[str | None, float]:
        """(code, probability) of UTF-8 ``data``; (None, 0.0) when it has no n-gram."""
        np = self.np
        visits = _ngram_counts(self.nextmove, self.rowbase, self.output, data)
        if not visits:
            return None, 0.0
        rows = np.fromiter(visits.keys(), dtype=np.intp, count=len(visits))
        counts = np.fromiter(visits.values(), dtype=np.float32, count=len(visits))
        # float32 rows: a BLAS product (float16 ones take numpy's slow mixed-type path)
        scores = np.log1p(counts) @ self.table[rows].astype(np.float32) + self.prior
        scores = scores[self.kept] / np.float32(np.sqrt(len(data)))
        probs = np.exp(scores - scores.max()) @ self.fold
        best = int(probs.argmax())
        return self.codes[best], float(probs[best] / probs.sum())


@_compiled.twin("ngram_counts")
def _ngram_counts(nextmove: Any, rowbase: Any, output: Any, data: bytes) -> dict[int, int] | None:
    """py3langid's n-gram features of ``data`` and their counts (``{feature: count}``, in
    the order first met; None for none): its own walk of its byte automaton
    (``langid.visit_counts``, a Python loop over the bytes). The compiled
    ``_speedups.ngram_counts`` is the same walk in C."""
    from py3langid import langid

    return langid.visit_counts(nextmove, rowbase, output, data)


def _model() -> _Model:
    """The model, loaded on first use, once per process."""
    if not _model_cache:
        with _lock:
            if not _model_cache:
                _model_cache.append(_Model())
    return _model_cache[0]


def sample(text: str, chars: int = MAX_CHARS) -> str:
    """The part of ``text`` that detection reads: its first ``2 * chars`` characters,
    digits and punctuation dropped, cut at ``chars``."""
    return _NOISE.sub(" ", text[: 2 * chars]).strip()[:chars]


def detect_language(text: str, declared: str | None = None) -> tuple[str | None, float]:
    """The language ``text`` is written in: ``(ISO 639-1 code, confidence 0-1)``.

    ``(None, 0.0)`` when the text has fewer than :data:`MIN_LETTERS` letters; ``(None,
    confidence)`` when no language reaches :data:`MIN_CONFIDENCE`. Only the start of the
    text is read (:func:`sample`: :data:`MAX_CHARS`, or :data:`MORE_CHARS` when the first
    answer is below :data:`SURE`), so any input takes a bounded time; anything that is not
    a ``str`` counts as no text. With ``declared`` (the ISO 639-1 code the page declares),
    the first :data:`QUICK_CHARS` characters are read first, and their answer is taken
    when it is that language with a confidence of at least :data:`SURE`: most pages are
    written in the language they declare, and a third of the text costs a third.
    """
    if not isinstance(text, str):
        return None, 0.0
    if declared:
        quick = sample(text, QUICK_CHARS)
        if len(quick) - quick.count(" ") >= MIN_LETTERS:
            code, confidence = _classify(quick)
            if confidence >= SURE and same_language(code, declared):
                return code, confidence
    chunk = sample(text)
    # what the sample keeps is letters and marks, bar a few symbols: its non-spaces
    if len(chunk) - chunk.count(" ") < MIN_LETTERS:
        return None, 0.0
    code, confidence = _classify(chunk)
    if confidence < SURE and len(chunk) >= MAX_CHARS:
        # unsure on a text longer than the sample (a quotation in another language at its
        # start, a list of names): read further
        code, confidence = _classify(sample(text, MORE_CHARS))
    if code is None or confidence < MIN_CONFIDENCE:
        return None, confidence
    return code, confidence


def _classify(chunk: str) -> tuple[str | None, float]:
    # NFC as py3langid's training text; lone surrogates (a lenient decoding's) become "?"
    data = unicodedata.normalize("NFC", chunk).encode("utf-8", "replace")
    code, confidence = _model().classify(data)
    return code, round(confidence, 4)


def normalize_language(value: Any) -> str | None:
    """A declared language tag as an ISO 639-1 code: its primary subtag, lower-cased
    (``en-US``, ``en_us``, ``EN`` give ``en``; ``iw`` gives ``he``; ``deu`` gives ``de``).
    None for anything else: ``x-default``, ``{{lang}}``, ``english``, an empty value."""
    if not isinstance(value, str):
        return None
    primary = re.split(r"[-_\s,;]", value.strip().lower(), maxsplit=1)[0]
    primary = _ALIASES.get(primary, primary)
    return primary if primary in ISO_639_1 else None


def declared_language(doc: Any) -> str | None:
    """The language a parsed page declares (``Document.declared_language``: ``<html
    lang>``, the Content-Language meta, og:locale), normalised by
    :func:`normalize_language`; None when it declares none or junk."""
    return normalize_language(getattr(doc, "declared_language", None))


def page_text(doc: Any, limit: int = 2 * MORE_CHARS) -> str:
    """The first ``limit`` characters of a parsed page's whole visible text (removed parts
    such as scripts and hidden elements left out), for :func:`page_language`."""
    parts: list[str] = []
    size = 0
    for _, text in doc.iter_text():
        parts.append(text.strip())
        size += len(parts[-1]) + 1
        if size >= limit:
            break
    return " ".join(parts)[:limit]


def page_language(main_text: str, doc: Any = None) -> tuple[str | None, float]:
    """The language of a page, detected from its main text (what an extraction kept);
    when that is shorter than :data:`MIN_MAIN_CHARS` and the parsed page ``doc`` is given,
    from the main text followed by the page's whole text (:func:`page_text`). The
    language ``doc`` declares (:func:`declared_language`) is read first where it agrees
    (:func:`detect_language`'s ``declared``)."""
    text = main_text if isinstance(main_text, str) else ""
    if len(text.strip()) < MIN_MAIN_CHARS and doc is not None:
        text = f"{text}\n{page_text(doc)}"
    return detect_language(text, declared_language(doc) if doc is not None else None)


def same_language(a: str | None, b: str | None) -> bool:
    """Whether two ISO 639-1 codes name the same language (Norwegian ``no`` / ``nb`` /
    ``nn`` count as one); False when either is None."""
    if a is None or b is None:
        return False
    return _SAME.get(a, a) == _SAME.get(b, b)
