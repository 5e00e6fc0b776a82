"""Which jusText stoplist a page uses: names, ISO codes, locale tags and guessing.

jusText decides whether a block is grammatical text by its stopword density, so it needs
the stoplist of the page's language. Users name languages in many ways (``en``,
``en-US``, ``pt_BR``, ``eng``, ``English``, ``norwegian bokmal``), pages declare them in
their ``lang`` attribute (sometimes junk such as ``x-default`` or ``{{lang}}``) and many
pages declare nothing. This module turns all of these into one of the 100 jusText
stoplist names shipped with the package (``stoplists/*.txt``, copied from jusText 3.0.2;
see ``stoplists/SOURCE.md``), or into :data:`INDEPENDENT`, jusText's language-independent
mode (no stoplist).

Public API: :func:`available`, :func:`resolve`, :func:`declared_language`,
:func:`iso_code`, :func:`stoplist`, :func:`guess`, and the constants
:data:`INDEPENDENT` and :data:`TOP_WEB_LANGUAGES`.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from itertools import chain
from typing import TYPE_CHECKING

from scrapy_boilerplate.core.errors import InvalidParameter

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:  # (deprecated from 3.12, gone in 3.14)
        from importlib.abc import Traversable

__all__ = [
    "INDEPENDENT",
    "TOP_WEB_LANGUAGES",
    "available",
    "declared_language",
    "guess",
    "iso_code",
    "resolve",
    "stoplist",
]

INDEPENDENT = "none"
"""jusText's language-independent mode: empty stoplist, both stopword thresholds 0.

:func:`resolve` returns it for ``"none"`` and ``"independent"`` (any case). It is the
mode to use for languages without a stoplist (Japanese, Chinese, Thai...).
"""

TOP_WEB_LANGUAGES: tuple[str, ...] = (
    "en", "ru", "es", "de", "ja", "fr", "pt", "tr", "it", "fa",
    "nl", "pl", "zh", "vi", "id", "cs", "ko", "uk", "ar", "hu",
    "el", "ro", "sv", "da", "fi", "sk", "th", "he", "bg", "no",
    "hr", "lt", "sr", "ca", "sl", "lv", "et", "hi", "ms", "bn",
)  # fmt: skip
"""ISO 639-1 codes of the 40 most common content languages of the web, roughly by share.

All but ``ja``, ``zh`` and ``th`` have a jusText stoplist (37 of 40); the tests check it.
"""

# jusText stoplist name -> ISO 639-1 code; None where the language has no 639-1 code
# (its ISO 639-2/3 or Wikipedia code is in _OTHER_CODES). One entry per stoplist; a test
# checks that the keys are exactly the stoplist files.
_ISO_639_1: dict[str, str | None] = {
    "Afrikaans": "af",
    "Albanian": "sq",
    "Arabic": "ar",
    "Aragonese": "an",
    "Armenian": "hy",
    "Aromanian": None,  # rup
    "Asturian": None,  # ast
    "Azerbaijani": "az",
    "Basque": "eu",
    "Belarusian": "be",
    "Belarusian_Taraskievica": None,  # be-tarask (classical orthography)
    "Bengali": "bn",
    "Bishnupriya_Manipuri": None,  # bpy
    "Bosnian": "bs",
    "Breton": "br",
    "Bulgarian": "bg",
    "Catalan": "ca",
    "Cebuano": None,  # ceb
    "Chuvash": "cv",
    "Croatian": "hr",
    "Czech": "cs",
    "Danish": "da",
    "Dutch": "nl",
    "English": "en",
    "Esperanto": "eo",
    "Estonian": "et",
    "Finnish": "fi",
    "French": "fr",
    "Galician": "gl",
    "Georgian": "ka",
    "German": "de",
    "Greek": "el",
    "Gujarati": "gu",
    "Haitian": "ht",
    "Hebrew": "he",
    "Hindi": "hi",
    "Hungarian": "hu",
    "Icelandic": "is",
    "Ido": "io",
    "Igbo": "ig",
    "Indonesian": "id",
    "Irish": "ga",
    "Italian": "it",
    "Javanese": "jv",
    "Kannada": "kn",
    "Kazakh": "kk",
    "Korean": "ko",
    "Kurdish": "ku",
    "Kyrgyz": "ky",
    "Latin": "la",
    "Latvian": "lv",
    "Lithuanian": "lt",
    "Lombard": None,  # lmo
    "Low_Saxon": None,  # nds
    "Luxembourgish": "lb",
    "Macedonian": "mk",
    "Malay": "ms",
    "Malayalam": "ml",
    "Maltese": "mt",
    "Marathi": "mr",
    "Neapolitan": None,  # nap
    "Nepali": "ne",
    "Newar": None,  # new
    "Norwegian_Bokmal": "nb",  # also "no" (Norwegian), see _OTHER_CODES
    "Norwegian_Nynorsk": "nn",
    "Occitan": "oc",
    "Persian": "fa",
    "Piedmontese": None,  # pms
    "Polish": "pl",
    "Portuguese": "pt",
    "Quechua": "qu",
    "Romanian": "ro",
    "Russian": "ru",
    "Samogitian": None,  # sgs
    "Serbian": "sr",
    "Serbo_Croatian": "sh",  # deprecated in ISO 639-1 but still Wikipedia's code; hbs
    "Sicilian": None,  # scn
    "Simple_English": None,  # Wikipedia's "simple"
    "Slovak": "sk",
    "Slovenian": "sl",
    "Spanish": "es",
    "Sundanese": "su",
    "Swahili": "sw",
    "Swedish": "sv",
    "Tagalog": "tl",
    "Tamil": "ta",
    "Telugu": "te",
    "Turkish": "tr",
    "Turkmen": "tk",
    "Ukrainian": "uk",
    "Urdu": "ur",
    "Uzbek": "uz",
    "Vietnamese": "vi",
    "Volapuk": "vo",
    "Walloon": "wa",
    "Waray_Waray": None,  # war
    "Welsh": "cy",
    "West_Frisian": "fy",
    "Western_Panjabi": None,  # pnb; "pa" is Punjabi in Gurmukhi script, not mapped
    "Yoruba": "yo",
}

# Other codes and tags -> jusText name: ISO 639-2 (bibliographic and terminology forms)
# and 639-3 codes, deprecated 639-1 codes still seen on the web, Wikipedia codes, and a
# few full BCP-47 tags that name a variant with its own stoplist. Keys are lower case with
# "-" separators; :func:`resolve` tries a tag's longest prefix first ("pa-arab-pk",
# "pa-arab", "pa").
_OTHER_CODES: dict[str, str] = {
    # ISO 639-2/T and 639-3 (individual or macrolanguage) codes.
    "afr": "Afrikaans", "sqi": "Albanian", "ara": "Arabic",
    "arb": "Arabic", "arg": "Aragonese", "hye": "Armenian", "rup": "Aromanian",
    "ast": "Asturian", "aze": "Azerbaijani", "eus": "Basque", "bel": "Belarusian",
    "ben": "Bengali", "bpy": "Bishnupriya_Manipuri", "bos": "Bosnian", "bre": "Breton",
    "bul": "Bulgarian", "cat": "Catalan", "ceb": "Cebuano", "chv": "Chuvash",
    "hrv": "Croatian", "ces": "Czech", "dan": "Danish", "nld": "Dutch", "eng": "English",
    "epo": "Esperanto", "est": "Estonian", "ekk": "Estonian", "fin": "Finnish",
    "fra": "French", "glg": "Galician", "kat": "Georgian", "deu": "German", "ell": "Greek",
    "guj": "Gujarati", "hat": "Haitian", "heb": "Hebrew", "hin": "Hindi",
    "hun": "Hungarian", "isl": "Icelandic", "ido": "Ido", "ibo": "Igbo",
    "ind": "Indonesian", "gle": "Irish", "ita": "Italian", "jav": "Javanese",
    "kan": "Kannada", "kaz": "Kazakh", "kor": "Korean", "kur": "Kurdish", "kmr": "Kurdish",
    "kir": "Kyrgyz", "lat": "Latin", "lav": "Latvian", "lvs": "Latvian",
    "lit": "Lithuanian", "lmo": "Lombard", "nds": "Low_Saxon", "ltz": "Luxembourgish",
    "mkd": "Macedonian", "msa": "Malay", "zsm": "Malay", "mal": "Malayalam",
    "mlt": "Maltese", "mar": "Marathi", "nap": "Neapolitan", "nep": "Nepali",
    "npi": "Nepali", "new": "Newar", "nob": "Norwegian_Bokmal", "nor": "Norwegian_Bokmal",
    "nno": "Norwegian_Nynorsk", "oci": "Occitan", "fas": "Persian", "pes": "Persian",
    "pms": "Piedmontese", "pol": "Polish", "por": "Portuguese", "que": "Quechua",
    "ron": "Romanian", "rus": "Russian", "sgs": "Samogitian", "srp": "Serbian",
    "hbs": "Serbo_Croatian", "scn": "Sicilian", "slk": "Slovak", "slv": "Slovenian",
    "spa": "Spanish", "sun": "Sundanese", "swa": "Swahili", "swh": "Swahili",
    "swe": "Swedish", "tgl": "Tagalog", "tam": "Tamil", "tel": "Telugu", "tur": "Turkish",
    "tuk": "Turkmen", "ukr": "Ukrainian", "urd": "Urdu", "uzb": "Uzbek",
    "vie": "Vietnamese", "vol": "Volapuk", "wln": "Walloon", "war": "Waray_Waray",
    "cym": "Welsh", "fry": "West_Frisian", "pnb": "Western_Panjabi", "yor": "Yoruba",
    # ISO 639-2/B codes where they differ from the T codes.
    "alb": "Albanian", "arm": "Armenian", "baq": "Basque", "cze": "Czech", "dut": "Dutch",
    "fre": "French", "geo": "Georgian", "ger": "German", "gre": "Greek", "ice": "Icelandic",
    "mac": "Macedonian", "may": "Malay", "per": "Persian", "rum": "Romanian",
    "slo": "Slovak", "wel": "Welsh",
    # "no" (Norwegian) is written in Bokmål by most pages.
    "no": "Norwegian_Bokmal",
    # Deprecated ISO 639-1 codes still found in lang attributes (Java locales use them).
    "iw": "Hebrew", "in": "Indonesian", "jw": "Javanese",
    "mo": "Romanian", "mol": "Romanian",
    # Filipino is the standardised form of Tagalog.
    "fil": "Tagalog",
    # Wikipedia codes of stoplists that have no ISO 639-1 code.
    "simple": "Simple_English", "be-tarask": "Belarusian_Taraskievica",
    "be-x-old": "Belarusian_Taraskievica", "bat-smg": "Samogitian", "roa-rup": "Aromanian",
    # Not mapped on purpose: "als" (ISO 639-3 Tosk Albanian, but Wikipedia's Alemannic) and
    # "pa" (Punjabi, mostly Gurmukhi script, whose stoplist jusText lacks).
    # Punjabi in Arabic (Shahmukhi) script, as written in Pakistan, is Western Panjabi.
    "pa-arab": "Western_Panjabi", "pa-pk": "Western_Panjabi",
}  # fmt: skip

# English names that are not jusText names but mean one of its stoplists.
_NAME_ALIASES: dict[str, str] = {
    "norwegian": "Norwegian_Bokmal",
    "bokmal": "Norwegian_Bokmal",
    "nynorsk": "Norwegian_Nynorsk",
    "farsi": "Persian",
    "filipino": "Tagalog",
    "serbo_croat": "Serbo_Croatian",
    "frisian": "West_Frisian",
}

# Common languages with no jusText stoplist: named in the error message. Most are written
# without spaces between words, so jusText's whitespace tokens and stopword densities
# cannot work for them.
_WITHOUT_STOPLIST: dict[str, str] = {
    "ja": "Japanese",
    "zh": "Chinese",
    "th": "Thai",
    "lo": "Lao",
    "km": "Khmer",
    "my": "Burmese",
    "bo": "Tibetan",
    "pa": "Punjabi (Gurmukhi; use 'pnb' for Western Panjabi)",
}

_SPECIAL_INDEPENDENT = frozenset({"none", "independent"})
_SEPARATORS = re.compile(r"[\s\-]+")
_DECLARED_SPLIT = re.compile(r"[,;]")


@lru_cache(maxsize=1)
def _codes() -> dict[str, str]:
    """Every code and tag :func:`resolve` knows -> jusText name (built once)."""
    table = {code: name for name, code in _ISO_639_1.items() if code is not None}
    table.update(_OTHER_CODES)
    return table


@lru_cache(maxsize=1)
def _names_by_key() -> dict[str, str]:
    """Normalised name ("norwegian_bokmal") -> jusText name, aliases included."""
    table = {_name_key(name): name for name in available()}
    table.update(_NAME_ALIASES)
    return table


def _name_key(value: str) -> str:
    """Lower case, accents dropped, spaces and hyphens as "_": "Norwegian Bokmål" matches."""
    decomposed = unicodedata.normalize("NFKD", value)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _SEPARATORS.sub("_", plain.strip().lower())


def _data_dir() -> Traversable:
    """The package-data folder holding the ``*.txt`` stoplists."""
    return resources.files(__package__).joinpath("stoplists")


@lru_cache(maxsize=1)
def _available() -> tuple[str, ...]:
    return tuple(
        sorted(
            entry.name[: -len(".txt")]
            for entry in _data_dir().iterdir()
            if entry.name.endswith(".txt")
        )
    )


def available() -> list[str]:
    """The jusText stoplist names shipped with the package (file stems), sorted.

    These are the values :func:`resolve` returns besides :data:`INDEPENDENT`, and the
    names :func:`stoplist` loads.
    """
    return list(_available())


def _unknown(language: str) -> InvalidParameter:
    base = language.strip().lower().replace("_", "-").split("-")[0]
    hint = ""
    if base in _WITHOUT_STOPLIST:
        hint = (
            f" jusText has no stoplist for {_WITHOUT_STOPLIST[base]}; use language='none' "
            "(language-independent mode) or another extractor."
        )
    return InvalidParameter(
        f"parameter 'language': unknown language {language!r}.{hint} Use an ISO 639-1 code "
        "('en'), a locale tag ('pt-BR'), an ISO 639-2/3 code ('deu'), a jusText stoplist "
        "name ('Norwegian_Bokmal'), 'none' for language-independent mode, or None to detect "
        "the language; scrapy_boilerplate.extractors.justext.languages.available() lists "
        f"the {len(_available())} stoplist names.",
        "language",
    )


def _lookup(language: str) -> str | None:
    """The jusText name for a non-empty string, INDEPENDENT, or None when unknown."""
    value = language.strip()
    lowered = value.lower()
    if lowered in _SPECIAL_INDEPENDENT:
        return INDEPENDENT
    by_name = _names_by_key().get(_name_key(value))
    if by_name is not None:
        return by_name
    codes = _codes()
    subtags = lowered.replace("_", "-").split("-")
    for end in range(len(subtags), 0, -1):
        name = codes.get("-".join(subtags[:end]))
        if name is not None:
            return name
    return None


def resolve(language: str | None) -> str | None:
    """The jusText stoplist name that ``language`` means.

    Accepts ISO 639-1 codes (``en``), BCP-47 and locale tags (``en-US``, ``pt_BR``,
    ``sr-Latn``: the longest known prefix counts, so ``be-tarask`` is
    Belarusian_Taraskievica and ``zh-Hant`` is ``zh``), ISO 639-2/3 codes (``eng``,
    ``deu``, ``ger``), Wikipedia codes (``simple``) and jusText names in any case, with
    spaces or underscores (``English``, ``norwegian bokmal``).

    Returns None for None, ``""`` or blanks (detect the language from the page), and
    :data:`INDEPENDENT` for ``"none"`` / ``"independent"`` (no stoplist).

    :raises InvalidParameter: (name ``"language"``) the value is not a string or names
        no stoplist; the message says how to list the allowed values.
    """
    if language is None:
        return None
    if not isinstance(language, str):
        raise InvalidParameter(
            f"parameter 'language' must be a string or None, got {type(language).__name__}",
            "language",
        )
    if not language.strip():
        return None
    name = _lookup(language)
    if name is None:
        raise _unknown(language)
    return name


def declared_language(code: str | None) -> str | None:
    """The jusText name for a page's declared language, or None when it names none.

    ``code`` is an ``<html lang>`` or Content-Language value as found on the page: it may
    be a list (``"en-US, en"``: the first entry counts), quoted, or junk (``x-default``,
    ``{{lang}}``, ``und``). Unlike :func:`resolve` this never raises, and ``"none"`` is
    not taken as a request for language-independent mode: the page did not ask for it.
    Languages without a stoplist (``ja``...) give None too.
    """
    if not isinstance(code, str):
        return None
    first = _DECLARED_SPLIT.split(code, 1)[0].strip().strip("\"'").strip()
    if not first or len(first) > 64:
        return None
    name = _lookup(first)
    return None if name == INDEPENDENT else name


def iso_code(name: str) -> str | None:
    """The ISO 639-1 code of a jusText stoplist name, None if the language has none.

    ``Norwegian_Bokmal`` gives ``nb`` (not ``no``), ``Serbo_Croatian`` gives ``sh``;
    ``Simple_English``, ``Western_Panjabi`` and other languages without a two-letter code
    give None, and so does :data:`INDEPENDENT`. Anything else :func:`resolve` accepts is
    resolved first (``iso_code("deu") == "de"``).

    :raises InvalidParameter: ``name`` names no stoplist.
    """
    if name in _ISO_639_1:
        return _ISO_639_1[name]
    resolved = resolve(name)
    if resolved is None or resolved == INDEPENDENT:
        return None
    return _ISO_639_1.get(resolved)


@lru_cache(maxsize=128)  # one entry per stoplist, like the reference
def _load(name: str) -> frozenset[str]:
    return _read(name)


def _read(name: str) -> frozenset[str]:
    """Read a stoplist file and lower-case its words exactly as jusText 3.0.2 does."""
    data = _data_dir().joinpath(f"{name}.txt").read_bytes()
    return frozenset(w.decode("utf8").lower() for w in data.splitlines())


def stoplist(name: str) -> frozenset[str]:
    """The lower-cased words of the stoplist ``name``, read once from the package data.

    ``name`` is a jusText name (:func:`available`); other values are passed through
    :func:`resolve` first. :data:`INDEPENDENT` gives the empty set (jusText's
    language-independent mode). The same frozenset object is returned on every call.

    :raises InvalidParameter: ``name`` names no stoplist.
    """
    if name not in _available():
        resolved = resolve(name)
        if resolved is None:
            raise InvalidParameter(
                "parameter 'language': a stoplist name is required, got an empty value",
                "language",
            )
        if resolved == INDEPENDENT:
            return frozenset()
        name = resolved
    return _load(name)


@lru_cache(maxsize=1)
def _index() -> tuple[tuple[str, ...], dict[str, tuple[int, ...]]]:
    """Inverted index over all stoplists: word -> indices (into the names) of its lists.

    Built once, on the first :func:`guess`, so that guessing costs one dict lookup per
    word instead of one set lookup per word and stoplist (about 150,000 distinct words,
    a few tens of MB). Equal index tuples are shared.
    """
    names = _available()
    lists: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        for word in _read(name):
            lists.setdefault(word, []).append(i)
    shared: dict[tuple[int, ...], tuple[int, ...]] = {}
    index = {}
    for word, langs in lists.items():
        key = tuple(langs)
        index[word] = shared.setdefault(key, key)
    return names, index


def guess(words: Sequence[str]) -> tuple[str | None, float]:
    """The stoplist with the highest stopword density over ``words``, and that density.

    The density of a stoplist is the share of ``words`` (lower-cased, as jusText does)
    that are in it, which is the quantity jusText thresholds. ``words`` are the page's
    whitespace-separated tokens. Returns ``(None, 0.0)`` when there are no words or no
    word is in any stoplist.

    Every stoplist takes part. Ties (the same number of hits, hence the same density) go
    to the alphabetically first name, so ``English`` wins over ``Simple_English`` on
    text that both cover equally; ``Simple_English`` wins only when its hits outnumber
    English's. Cost: one dict lookup per word plus a count of the hits.
    """
    n = len(words)
    if n == 0:
        return None, 0.0
    names, index = _index()
    hits = Counter(chain.from_iterable(filter(None, map(index.get, map(str.lower, words)))))
    if not hits:
        return None, 0.0
    best = min(hits, key=lambda i: (-hits[i], i))  # most hits, then first name
    return names[best], hits[best] / n
