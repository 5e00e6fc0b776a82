"""The extractors a benchmark runs: ours (every registered method) and the peers.

Every extractor is a callable ``run(html: str, url=None) -> Output`` (the page's URL where
the set has one, as a crawl always has) made by a factory; factories
import their library lazily, so a missing library is reported by :func:`resolve` and the
extractor is skipped. Peers, each with its documented default settings:

- ``trafilatura``: ``trafilatura.extract(html, url=url)`` (defaults; ``None`` counts as empty).
- ``justext-ref``: reference jusText 3.0.2, ``justext.justext(html, get_stoplist("English"))``
  with its default thresholds; main text = the non-boilerplate paragraphs, blank-line joined.
- ``justext-ref-lang``: the same steps as ``justext.justext`` (parse, preprocess, paragraphs,
  classify, revise) with the stoplist of the page's language: the text of jusText's own
  paragraphs is matched against the stoplists of 48 common languages and the one with the
  most stopword hits wins; with fewer than 10 hits (CJK, Thai, unknown scripts) jusText's
  language-independent mode is used (empty stoplist, ``stopwords_low = stopwords_high = 0``,
  as jusText's documentation says). The detection is part of the timed call.
- ``readability-lxml``: ``Document(html).summary()``, then lxml ``text_content()`` of the
  summary; a newline is first appended after every block-level element of the summary, so
  that the text of two paragraphs is not glued into one word.
- ``resiliparse``: ``extract_plain_text(html, main_content=True)``.

Ours: one extractor per name in :func:`scrapy_boilerplate.available`; the page is parsed once
with :func:`scrapy_boilerplate.parse` (timed and also reported apart as ``parse_seconds``),
and the Document is passed to :func:`scrapy_boilerplate.extract`.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

PEER_NAMES = ("trafilatura", "justext-ref", "justext-ref-lang", "readability-lxml", "resiliparse")

_BLOCK_TAG_NAMES = (
    "address article aside blockquote br caption dd div dl dt figcaption figure footer h1 "
    "h2 h3 h4 h5 h6 header hr li main nav ol p pre section table td th tr ul"
)
_BLOCK_TAGS = tuple(_BLOCK_TAG_NAMES.split())
_WORD_RE = re.compile(r"\w+")
_MIN_HITS = 10
_LANGUAGE_NAMES = (
    "Afrikaans Albanian Arabic Basque Bosnian Bulgarian Catalan Croatian Czech Danish Dutch "
    "English Estonian Finnish French Galician German Greek Hebrew Hindi Hungarian Icelandic "
    "Indonesian Irish Italian Korean Latvian Lithuanian Macedonian Malay Norwegian_Bokmal "
    "Persian Polish Portuguese Romanian Russian Serbian Slovak Slovenian Spanish Swahili "
    "Swedish Tagalog Turkish Ukrainian Urdu Vietnamese Welsh"
)
_DETECT_LANGUAGES = tuple(_LANGUAGE_NAMES.split())


@dataclass
class Output:
    """What one extractor returned for one page."""

    text: str
    parse_seconds: float | None = None
    reason: str | None = None


#: ``run(html, url=None)``: the page's URL where the set has one (a crawl always does).
Run = Callable[..., Output]


@dataclass(frozen=True)
class Extractor:
    """A named extractor ready to run."""

    name: str
    run: Run
    ours: bool
    version: str | None


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def _trafilatura() -> Run:
    from trafilatura import extract

    def run(html: str, url: str | None = None) -> Output:
        return Output(extract(html, url=url) or "")

    return run


def _justext_text(paragraphs: list[Any]) -> str:
    return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)


def _justext_ref() -> Run:
    import justext

    stoplist = justext.get_stoplist("English")

    def run(html: str, url: str | None = None) -> Output:
        return Output(_justext_text(justext.justext(html, stoplist)))

    return run


def stopword_index(stoplists: dict[str, frozenset[str]]) -> dict[str, tuple[str, ...]]:
    """Word -> the languages whose stoplist has it (for :func:`detect_stoplist`)."""
    index: dict[str, list[str]] = {}
    for lang, words in stoplists.items():
        for word in words:
            index.setdefault(word, []).append(lang)
    return {word: tuple(langs) for word, langs in index.items()}


def detect_stoplist(text: str, index: dict[str, tuple[str, ...]]) -> str | None:
    """The language whose stoplist has the most hits in ``text`` (None: fewer than 10)."""
    hits: Counter[str] = Counter()
    for word, count in Counter(_WORD_RE.findall(text.lower())).items():
        for lang in index.get(word, ()):
            hits[lang] += count
    best = hits.most_common(1)
    return best[0][0] if best and best[0][1] >= _MIN_HITS else None


def _justext_ref_lang() -> Run:
    import justext
    from justext import core

    stoplists = {lang: frozenset(justext.get_stoplist(lang)) for lang in _DETECT_LANGUAGES}
    index = stopword_index(stoplists)

    def run(html: str, url: str | None = None) -> Output:
        # justext.justext() step by step, to read the paragraphs before classifying them
        dom = core.preprocessor(core.html_to_dom(html))
        paragraphs = core.ParagraphMaker.make_paragraphs(dom)
        lang = detect_stoplist(" ".join(p.text for p in paragraphs), index)
        if lang is None:
            core.classify_paragraphs(paragraphs, frozenset(), stopwords_low=0, stopwords_high=0)
        else:
            core.classify_paragraphs(paragraphs, stoplists[lang])
        core.revise_paragraph_classification(paragraphs)
        return Output(_justext_text(paragraphs))

    return run


def _readability() -> Run:
    import lxml.html
    from readability import Document

    def run(html: str, url: str | None = None) -> Output:
        summary = Document(html).summary()
        if not summary.strip():
            return Output("")
        root = lxml.html.fromstring(summary)
        for el in root.iter(*_BLOCK_TAGS):
            el.tail = "\n" + (el.tail or "")
        return Output(root.text_content())

    return run


def _resiliparse() -> Run:
    from resiliparse.extract.html2text import extract_plain_text

    def run(html: str, url: str | None = None) -> Output:
        return Output(extract_plain_text(html, main_content=True))

    return run


PEERS: dict[str, tuple[str, Callable[[], Run]]] = {
    "trafilatura": ("trafilatura", _trafilatura),
    "justext-ref": ("justext", _justext_ref),
    "justext-ref-lang": ("justext", _justext_ref_lang),
    "readability-lxml": ("readability-lxml", _readability),
    "resiliparse": ("resiliparse", _resiliparse),
}


def our_names() -> tuple[list[str], str | None]:
    """Names of our registered extractors, or ([], why) when the package cannot be used."""
    try:
        import scrapy_boilerplate as sb

        return list(sb.available()), None
    except Exception as exc:  # the API may be half-written: report, never crash
        return [], f"scrapy_boilerplate is not usable ({type(exc).__name__}: {exc})"


def _ours(name: str, params: dict[str, Any]) -> Run:
    import scrapy_boilerplate as sb
    from scrapy_boilerplate.core import registry

    registry.get(name)  # import the method now: a broken one fails here, not while timed

    def run(html: str, url: str | None = None) -> Output:
        start = time.perf_counter()
        doc = sb.parse(html, url=url)
        parsed = time.perf_counter() - start
        result = sb.extract(doc, extractor=name, **params)
        return Output(result.main_text or "", parse_seconds=parsed, reason=result.reason)

    return run


def resolve(
    names: list[str], params: dict[str, dict[str, Any]] | None = None
) -> tuple[list[Extractor], list[str]]:
    """Build the extractors named (``ours``, ``peers``, ``all`` expand); problems as text."""
    ours, why = our_names()
    problems: list[str] = [f"ours skipped: {why}"] if why else []
    wanted: list[str] = []
    for name in names:
        group = {"ours": ours, "peers": list(PEER_NAMES), "all": [*ours, *PEER_NAMES]}.get(name)
        for item in group if group is not None else [name]:
            if item not in wanted:
                wanted.append(item)
    out: list[Extractor] = []
    for name in wanted:
        try:
            if name in PEERS:
                dist, factory = PEERS[name]
                out.append(Extractor(name, factory(), False, _version(dist)))
            elif name in ours:
                run = _ours(name, (params or {}).get(name, {}))
                out.append(Extractor(name, run, True, _version("scrapy-boilerplate")))
            else:
                known = ", ".join([*ours, *PEER_NAMES])
                problems.append(f"{name}: unknown extractor (known: {known}); skipped")
        except Exception as exc:  # ImportError for a missing peer, or a broken method
            problems.append(f"{name}: not available ({type(exc).__name__}: {exc}); skipped")
    return out, problems
