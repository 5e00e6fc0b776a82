"""Language resolution and stoplists of our jusText (extractors/justext/languages.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.extractors.justext import languages
from scrapy_boilerplate.extractors.justext.languages import (
    INDEPENDENT,
    TOP_WEB_LANGUAGES,
    available,
    declared_language,
    guess,
    iso_code,
    resolve,
    stoplist,
)

ENGLISH = (
    "Yesterday we went to the market because we wanted to buy some fresh bread "
    "and the weather was very nice for a walk."
)
GERMAN = (
    "Gestern sind wir mit dem Zug nach Berlin gefahren, weil wir dort unsere Freunde "
    "besuchen wollten und das Wetter sehr schön war."
)
CZECH = (
    "Včera jsme byli na výletě v horách a bylo to opravdu krásné, protože svítilo "
    "slunce a nikdo z nás nebyl unavený."
)


# -- available / the tables ---------------------------------------------------------------


def test_available_lists_the_100_stoplists_sorted():
    names = available()
    assert len(names) == 100
    assert names == sorted(names)
    assert {"English", "Norwegian_Bokmal", "Simple_English", "Western_Panjabi"} <= set(names)
    names.append("junk")  # a copy: the module's list is not changed
    assert "junk" not in available()


def test_every_stoplist_has_a_row_in_the_iso_table():
    assert set(languages._ISO_639_1) == set(available())


def test_iso_639_1_codes_are_unique_two_letter_codes():
    codes = [c for c in languages._ISO_639_1.values() if c is not None]
    assert len(codes) == len(set(codes))
    assert all(len(c) == 2 and c.isascii() and c.islower() for c in codes)


def test_other_codes_name_existing_stoplists():
    names = set(available())
    assert set(languages._OTHER_CODES.values()) <= names
    assert set(languages._NAME_ALIASES.values()) <= names


@pytest.mark.parametrize("name", sorted(languages._ISO_639_1))
def test_iso_code_round_trips(name):
    code = iso_code(name)
    if code is not None:
        assert resolve(code) == name
        assert resolve(code.upper()) == name


# -- resolve --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # ISO 639-1
        ("en", "English"),
        ("EN", "English"),
        ("de", "German"),
        ("cs", "Czech"),
        ("nb", "Norwegian_Bokmal"),
        ("no", "Norwegian_Bokmal"),
        ("nn", "Norwegian_Nynorsk"),
        ("sh", "Serbo_Croatian"),
        ("fy", "West_Frisian"),
        ("el", "Greek"),
        ("ka", "Georgian"),
        ("he", "Hebrew"),
        ("ga", "Irish"),
        ("cy", "Welsh"),
        ("vo", "Volapuk"),
        # deprecated codes still found on pages
        ("iw", "Hebrew"),
        ("in", "Indonesian"),
        ("jw", "Javanese"),
        # BCP-47 / locale tags
        ("en-US", "English"),
        ("en_GB", "English"),
        ("pt_BR", "Portuguese"),
        ("pt-br", "Portuguese"),
        ("sr-Latn", "Serbian"),
        ("sr-Latn-RS", "Serbian"),
        ("be-tarask", "Belarusian_Taraskievica"),
        ("be-x-old", "Belarusian_Taraskievica"),
        ("be-BY", "Belarusian"),
        ("pa-Arab", "Western_Panjabi"),
        ("pa-Arab-PK", "Western_Panjabi"),
        # ISO 639-2/3
        ("eng", "English"),
        ("deu", "German"),
        ("ger", "German"),
        ("fre", "French"),
        ("fra", "French"),
        ("ces", "Czech"),
        ("cze", "Czech"),
        ("nob", "Norwegian_Bokmal"),
        ("pnb", "Western_Panjabi"),
        ("war", "Waray_Waray"),
        ("ceb", "Cebuano"),
        ("nds", "Low_Saxon"),
        ("hbs", "Serbo_Croatian"),
        ("fil", "Tagalog"),
        # Wikipedia codes
        ("simple", "Simple_English"),
        ("bat-smg", "Samogitian"),
        # jusText names, any case, spaces, accents
        ("English", "English"),
        ("english", "English"),
        ("ENGLISH", "English"),
        ("Norwegian_Bokmal", "Norwegian_Bokmal"),
        ("norwegian bokmal", "Norwegian_Bokmal"),
        ("Norwegian Bokmål", "Norwegian_Bokmal"),
        ("simple english", "Simple_English"),
        ("Waray-Waray", "Waray_Waray"),
        ("Volapük", "Volapuk"),
        ("Ido", "Ido"),
        ("  German  ", "German"),
    ],
)
def test_resolve(value, expected):
    assert resolve(value) == expected


@pytest.mark.parametrize("value", [None, "", "   "])
def test_resolve_empty_means_detect(value):
    assert resolve(value) is None


@pytest.mark.parametrize("value", ["none", "None", "NONE", "independent", "Independent"])
def test_resolve_independent(value):
    assert resolve(value) == INDEPENDENT == "none"


def test_pa_alone_is_not_western_panjabi():
    with pytest.raises(InvalidParameter):
        resolve("pa")


@pytest.mark.parametrize("value", ["xx", "klingon", "x-default", "{{lang}}", "zz-ZZ", "en US"])
def test_resolve_unknown_raises(value):
    with pytest.raises(InvalidParameter) as info:
        resolve(value)
    err = info.value
    assert err.name == "language"
    message = str(err)
    assert "'language'" in message
    assert repr(value) in message
    assert "available()" in message
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("value", ["ja", "zh", "zh-Hant", "th-TH"])
def test_languages_without_stoplist_point_to_independent_mode(value):
    with pytest.raises(InvalidParameter) as info:
        resolve(value)
    assert "language='none'" in str(info.value)
    assert info.value.name == "language"


@pytest.mark.parametrize("value", [1, 1.5, b"en", ["en"]])
def test_resolve_rejects_non_strings(value):
    with pytest.raises(InvalidParameter) as info:
        resolve(value)
    assert info.value.name == "language"


# -- declared_language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("en", "English"),
        ("en-US", "English"),
        ("de-DE, en", "German"),
        ("fr;q=0.9", "French"),
        ('"cs"', "Czech"),
        (" pt_BR ", "Portuguese"),
        ("x-default", None),
        ("{{lang}}", None),
        ("und", None),
        ("", None),
        (None, None),
        ("ja", None),
        ("zh-CN", None),
        ("none", None),  # a page saying "none" does not switch jusText's mode
        ("x" * 500, None),
    ],
)
def test_declared_language(value, expected):
    assert declared_language(value) == expected


# -- iso_code ---------------------------------------------------------------------------------


def test_iso_code():
    assert iso_code("English") == "en"
    assert iso_code("Norwegian_Bokmal") == "nb"
    assert iso_code("Serbo_Croatian") == "sh"
    assert iso_code("Simple_English") is None
    assert iso_code("Western_Panjabi") is None
    assert iso_code(INDEPENDENT) is None
    assert iso_code("deu") == "de"
    assert iso_code("pt-BR") == "pt"
    with pytest.raises(InvalidParameter):
        iso_code("klingon")


# -- TOP_WEB_LANGUAGES ------------------------------------------------------------------------

WITHOUT_STOPLIST = {"ja", "zh", "th"}  # see stoplists/SOURCE.md


def test_top_web_languages_resolve():
    assert len(TOP_WEB_LANGUAGES) == len(set(TOP_WEB_LANGUAGES)) >= 30
    resolved = {}
    for code in TOP_WEB_LANGUAGES:
        if code in WITHOUT_STOPLIST:
            with pytest.raises(InvalidParameter):
                resolve(code)
        else:
            resolved[code] = resolve(code)
            assert resolved[code] in available()
            assert iso_code(resolved[code]) == ("nb" if code == "no" else code)
    assert set(TOP_WEB_LANGUAGES) - set(resolved) == WITHOUT_STOPLIST
    assert len(resolved) >= 30


# -- stoplist ---------------------------------------------------------------------------------


def test_stoplist_is_cached_and_lower_case():
    words = stoplist("English")
    assert stoplist("English") is words
    assert stoplist("en") is words
    assert stoplist("english") is words
    assert {"the", "of", "and", "which"} <= words
    assert all(w == w.lower() for w in words)


def test_stoplist_independent_and_errors():
    assert stoplist(INDEPENDENT) == frozenset()
    with pytest.raises(InvalidParameter):
        stoplist("klingon")
    with pytest.raises(InvalidParameter):
        stoplist("")


@pytest.mark.parametrize(
    "name", ["English", "German", "Czech", "Norwegian_Bokmal", "Russian", "Turkish", "Greek"]
)
def test_stoplist_equals_reference(name):
    justext = pytest.importorskip("justext")
    assert stoplist(name) == justext.get_stoplist(name)


def test_all_stoplists_equal_reference():
    justext = pytest.importorskip("justext")
    assert set(available()) == set(justext.get_stoplists())
    for name in available():
        assert stoplist(name) == justext.get_stoplist(name), name


# -- guess ------------------------------------------------------------------------------------


def _brute_force(words):
    """Reference guess: one set lookup per word and stoplist; most hits, then name order."""
    if not words:
        return None, 0.0
    lowered = [w.lower() for w in words]
    best, best_hits = None, 0
    for name in available():
        words_in = stoplist(name)
        hits = sum(w in words_in for w in lowered)
        if hits > best_hits:
            best, best_hits = name, hits
    return best, best_hits / len(words)


@pytest.mark.parametrize(
    ("text", "expected"), [(ENGLISH, "English"), (GERMAN, "German"), (CZECH, "Czech")]
)
def test_guess_sentences(text, expected):
    words = text.split()
    name, density = guess(words)
    assert name == expected
    words_in = stoplist(expected)
    assert density == sum(w.lower() in words_in for w in words) / len(words)
    assert 0.3 < density <= 1.0
    assert (name, density) == _brute_force(words)


def test_guess_is_case_insensitive():
    assert guess(GERMAN.upper().split())[0] == "German"


def test_guess_without_words_or_hits():
    assert guess([]) == (None, 0.0)
    assert guess(()) == (None, 0.0)
    assert guess(["qwxzv", "zzkrt", "1234567"]) == (None, 0.0)


def test_guess_ties_prefer_english_over_simple_english():
    shared = sorted(stoplist("English") & stoplist("Simple_English"))
    # a real tie: both lists hold every word
    assert sum(w in stoplist("Simple_English") for w in shared) == len(shared)
    assert guess(shared) == ("English", 1.0)


def test_guess_ties_go_to_the_alphabetically_first_name():
    word = "the"
    holders = [n for n in available() if word in stoplist(n)]
    assert len(holders) > 1
    assert guess([word]) == (holders[0], 1.0)


def test_guess_uses_the_inverted_index_built_once(monkeypatch):
    names, index = languages._index()
    assert languages._index() == (names, index)
    assert languages._index()[1] is index  # built once, cached
    assert names == tuple(available())
    assert isinstance(index["the"], tuple)
    assert names.index("English") in index["the"]
    assert all(isinstance(i, int) for i in index["der"])

    words = ENGLISH.split() * 150 + GERMAN.split() * 50  # a few thousand words
    expected = _brute_force(words)
    assert expected[0] == "English"

    def no_file_reads(name):
        raise AssertionError("guess() must not read stoplists per page")

    monkeypatch.setattr(languages, "_read", no_file_reads)
    monkeypatch.setattr(languages, "stoplist", no_file_reads)
    assert guess(words) == expected


# Word pool for the property test: words of a few stoplists, upper-cased variants and junk.
_POOL = [
    *sorted(
        set(sorted(stoplist("English"))[:60])
        | set(sorted(stoplist("German"))[:60])
        | set(sorted(stoplist("Czech"))[:60])
        | set(sorted(stoplist("Slovak"))[:60])
        | stoplist("Simple_English")
    ),
    *["The", "DER", "Und", "junkword", "zzz", "1999"],
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_POOL), max_size=60))
def test_guess_matches_brute_force(words):
    assert guess(words) == _brute_force(words)
