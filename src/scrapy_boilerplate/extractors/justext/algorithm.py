"""jusText's classification: context-free classes, heading stages, context-sensitive pass.

Follows the jusText algorithm description (Pomikálek, "jusText algorithm": its sections
"Context-free classification" and "Context-sensitive classification") and, where
the text is ambiguous, the reference implementation (jusText 3.0.2, by the paper's
author), so block classes match it:

- stopword density is compared with ``>=`` (the reference), which is what makes the
  language-independent mode (empty stoplist, both thresholds 0) work;
- a block holding ``©`` (or a literal ``&copy``), or lying inside ``<select>``, is bad;
- the edges of the document count as bad blocks in the context-sensitive pass.
"""

from __future__ import annotations

from typing import Any

from scrapy_boilerplate.core import compiled as _compiled
from scrapy_boilerplate.core.document import Document, TextBlock
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Extraction, blocks_from_segments
from scrapy_boilerplate.extractors.justext import languages

GOOD, BAD, SHORT, NEAR_GOOD = "good", "bad", "short", "near-good"
#: The classes in the order of the compiled twin's codes.
_CLASS_NAMES = (GOOD, NEAR_GOOD, SHORT, BAD)

#: Words of the page (in block order) over which the stoplist is guessed.
GUESS_SAMPLE_WORDS = 20_000

PARAMS = (
    Param("length_low", int, 70, "blocks shorter than this (characters) are short", 0),
    Param("length_high", int, 200, "blocks longer than this (characters) may be good", 0),
    Param("stopwords_low", float, 0.30, "stopword density below this: bad", 0.0, 1.0),
    Param("stopwords_high", float, 0.32, "stopword density from this on: good if long", 0.0, 1.0),
    Param("max_link_density", float, 0.2, "blocks with more link characters are bad", 0.0, 1.0),
    Param(
        "max_heading_distance",
        int,
        200,
        "characters between a heading and the good block it may introduce",
        0,
    ),
    Param("no_headings", bool, False, "treat headings like any other block"),
    Param(
        "reference_compat",
        bool,
        False,
        "reproduce jusText 3.0.2 where it departs from the algorithm description: its "
        "heading pre-processing never fires, and its cleaning keeps hidden elements",
    ),
    Param(
        "language",
        str,
        None,
        "stoplist: ISO 639-1 code or jusText name; None detects it; 'none' is "
        "language-independent mode",
        nullable=True,
    ),
)


def classify_context_free(
    blocks: list[TextBlock],
    stoplist: frozenset[str],
    length_low: int = 70,
    length_high: int = 200,
    stopwords_low: float = 0.30,
    stopwords_high: float = 0.32,
    max_link_density: float = 0.2,
    no_headings: bool = False,
) -> tuple[list[str], list[bool]]:
    """Context-free classes (good / bad / short / near-good) and heading flags, per block."""
    classes: list[str] = []
    headings: list[bool] = []
    for block in blocks:
        text = block.text
        length = len(text)
        words = text.lower().split()
        n_words = len(words)
        stopword_density = (
            sum(map(stoplist.__contains__, words)) / n_words if n_words and stoplist else 0.0
        )
        link_density = block.link_chars / length if length else 0.0
        headings.append(not no_headings and block.is_heading)
        if link_density > max_link_density:
            cls = BAD
        elif "\xa9" in text or "&copy" in text:
            cls = BAD  # pre-processing: blocks with a copyright symbol are bad
        elif "select" in block.tag_path.split("."):
            cls = BAD  # pre-processing: the content of <select> is bad
        elif length < length_low:
            cls = BAD if block.link_chars > 0 else SHORT
        elif stopword_density >= stopwords_high:
            cls = GOOD if length > length_high else NEAR_GOOD
        elif stopword_density >= stopwords_low:
            cls = NEAR_GOOD
        else:
            cls = BAD
        classes.append(cls)
    return classes, headings


def _nearest(classes: list[str], step: int, ignore_near_good: bool) -> list[str]:
    """For every block, the class of the closest good/bad (or near-good) block in direction
    ``step`` (``-1`` before it, ``1`` after it), not counting itself; edges are bad.

    One pass over the page: looking each short block's neighbours up in turn is quadratic
    in a run of short blocks (a page of a million ``<p>x</p>`` never ends).
    """
    n = len(classes)
    out = [BAD] * n
    last = BAD
    order = range(n) if step < 0 else range(n - 1, -1, -1)
    for i in order:
        out[i] = last
        c = classes[i]
        if c in (GOOD, BAD) or (c == NEAR_GOOD and not ignore_near_good):
            last = c
    return out


def _precedes_good(
    blocks: list[TextBlock], classes: list[str], i: int, max_heading_distance: int
) -> bool:
    """A good block follows block ``i`` within ``max_heading_distance`` characters."""
    distance = 0
    j = i + 1
    while j < len(blocks) and distance <= max_heading_distance:
        if classes[j] == GOOD:
            return True
        distance += len(blocks[j].text)
        j += 1
    return False


def _compiled_arguments(
    blocks: list[TextBlock],
    cf_classes: list[str],
    headings: list[bool],
    max_heading_distance: int = 200,
    heading_preprocessing: bool = True,
) -> tuple[Any, ...]:
    """The compiled twin's arguments; what it was not written for (other sequences than
    lists, a distance that is not a whole number) goes to Python."""
    if not (
        type(blocks) is list
        and type(cf_classes) is list
        and type(headings) is list
        and type(max_heading_distance) is int
        and abs(max_heading_distance) < 2**62
    ):
        raise _compiled.Unsupported("not the compiled step's input types")
    return (
        blocks,
        cf_classes,
        headings,
        max_heading_distance,
        bool(heading_preprocessing),
        _CLASS_NAMES,
    )


@_compiled.twin("context_sensitive", arguments=_compiled_arguments)
def classify_context_sensitive(
    blocks: list[TextBlock],
    cf_classes: list[str],
    headings: list[bool],
    max_heading_distance: int = 200,
    heading_preprocessing: bool = True,
) -> list[str]:
    """Final classes (good / bad): heading pre-processing, short and near-good revision,
    heading post-processing, in the paper's order; compiled where ``_speedups`` is built
    (the same passes over arrays of class codes)."""
    classes = list(cf_classes)
    # Heading pre-processing: short headings shortly before a good block become near-good.
    # jusText 3.0.2 looks ahead at classes it has not copied yet, so there it never fires.
    for i in range(len(blocks) if heading_preprocessing else 0):
        if (
            headings[i]
            and classes[i] == SHORT
            and _precedes_good(blocks, classes, i, max_heading_distance)
        ):
            classes[i] = NEAR_GOOD

    # Short blocks: by their good/bad neighbours; a good-bad gap is split at the near-good
    # block closest to the bad side.
    new: dict[int, str] = {}
    prev_gb = _nearest(classes, -1, True)
    next_gb = _nearest(classes, 1, True)
    prev_any = _nearest(classes, -1, False)
    next_any = _nearest(classes, 1, False)
    for i, c in enumerate(classes):
        if c != SHORT:
            continue
        prev, nxt = prev_gb[i], next_gb[i]
        if prev == GOOD and nxt == GOOD:
            new[i] = GOOD
        elif prev == BAD and nxt == BAD:
            new[i] = BAD
        elif (prev == BAD and prev_any[i] == NEAR_GOOD) or (
            nxt == BAD and next_any[i] == NEAR_GOOD
        ):
            new[i] = GOOD
        else:
            new[i] = BAD
    for i, c in new.items():
        classes[i] = c

    # Near-good blocks: bad only between two bad blocks. Revised in page order, so a
    # block's previous good/bad neighbour may be a near-good block revised just before it
    # (running ``prev``); the blocks after it are not revised yet (``next_gb``: near-good
    # blocks are skipped there anyway).
    next_gb = _nearest(classes, 1, True)
    prev = BAD
    for i, c in enumerate(classes):
        if c == NEAR_GOOD:
            classes[i] = BAD if (prev == BAD and next_gb[i] == BAD) else GOOD
        if classes[i] in (GOOD, BAD):
            prev = classes[i]

    # Heading post-processing (not iterative): non-bad headings before good text are good.
    for i in range(len(blocks)):
        if (
            headings[i]
            and classes[i] == BAD
            and cf_classes[i] != BAD
            and _precedes_good(blocks, classes, i, max_heading_distance)
        ):
            classes[i] = GOOD
    return classes


def choose_language(doc: Document, blocks: list[TextBlock], language: str | None) -> str:
    """The jusText stoplist name to use.

    An explicit ``language`` wins. Otherwise the page's declared language (``<html
    lang>`` or a Content-Language meta) when a stoplist exists for it; otherwise the
    stoplist with the highest stopword density over the page's words (the first
    ``GUESS_SAMPLE_WORDS``); English when
    the page has no words.
    """
    if language is not None:
        resolved = languages.resolve(language)
        if resolved is not None:
            return resolved
    declared = languages.declared_language(doc.declared_language)
    if declared is not None:
        return declared
    words: list[str] = []
    for b in blocks:  # a sample is enough, and keeps a 20 MB page fast
        words.extend(b.text.split())
        if len(words) >= GUESS_SAMPLE_WORDS:
            break
    guessed, _ = languages.guess(words)
    return guessed or "English"


class JustextExtractor(Extractor):
    """jusText as an extractor: blocks carry ``class``, ``context_free_class``, ``heading``."""

    name = "justext"
    params = PARAMS

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        checked = super().validate(params)
        if checked["length_low"] > checked["length_high"]:
            raise InvalidParameter(
                f"parameter 'length_low' ({checked['length_low']}) must not exceed "
                f"'length_high' ({checked['length_high']})",
                "length_low",
            )
        if checked["stopwords_low"] > checked["stopwords_high"]:
            raise InvalidParameter(
                f"parameter 'stopwords_low' ({checked['stopwords_low']}) must not exceed "
                f"'stopwords_high' ({checked['stopwords_high']})",
                "stopwords_low",
            )
        if checked["language"] is not None:
            languages.resolve(checked["language"])  # raises InvalidParameter when unknown
        return checked

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        blocks = doc.justext_blocks("reference" if params["reference_compat"] else "default")
        language = choose_language(doc, blocks, params["language"])
        stopwords_low, stopwords_high = params["stopwords_low"], params["stopwords_high"]
        if language == languages.INDEPENDENT:
            stoplist: frozenset[str] = frozenset()
            stopwords_low = stopwords_high = 0.0
        else:
            stoplist = languages.stoplist(language)
        cf, headings = classify_context_free(
            blocks,
            stoplist,
            params["length_low"],
            params["length_high"],
            stopwords_low,
            stopwords_high,
            params["max_link_density"],
            params["no_headings"],
        )
        final = classify_context_sensitive(
            blocks,
            cf,
            headings,
            params["max_heading_distance"],
            heading_preprocessing=not params["reference_compat"],
        )
        labels = [CONTENT if c == GOOD else BOILERPLATE for c in final]
        out = blocks_from_segments(
            blocks, labels, ("class", "context_free_class", "heading"), (final, cf, headings)
        )
        iso = languages.iso_code(language) if language != languages.INDEPENDENT else None
        return Extraction.from_blocks(
            out,
            self.name,
            dict(params),
            language=iso or language,
            extra={"stoplist": language},
        )
