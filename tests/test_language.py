"""Page language: detection from text (core.language.detect_language), the declared
language normalised, and the main-text-or-page fallback. The texts are written here."""

from __future__ import annotations

import pytest

from scrapy_boilerplate.core import language
from scrapy_boilerplate.core.document import parse
from scrapy_boilerplate.core.language import (
    declared_language,
    detect_language,
    normalize_language,
    page_language,
    same_language,
)

TEXTS = {
    "en": "The library closes early on Sundays, so we moved the reading group to the "
    "café across the street, where the coffee is better anyway.",
    "de": "Die Bibliothek schließt sonntags früher, deshalb haben wir den Lesekreis in das "
    "Café gegenüber verlegt, wo der Kaffee ohnehin besser ist.",
    "fr": "La bibliothèque ferme tôt le dimanche, alors nous avons déplacé le club de "
    "lecture au café d'en face, où le café est de toute façon meilleur.",
    "es": "La biblioteca cierra temprano los domingos, así que trasladamos el club de "
    "lectura a la cafetería de enfrente, donde además el café es mejor.",
    "it": "La biblioteca chiude presto la domenica, quindi abbiamo spostato il gruppo di "
    "lettura nel bar di fronte, dove il caffè è comunque migliore.",
    "nl": "De bibliotheek gaat op zondag vroeg dicht, dus hebben we de leesclub verhuisd "
    "naar het café aan de overkant, waar de koffie toch beter is.",
    "pl": "Biblioteka w niedziele zamyka się wcześnie, więc przenieśliśmy klub książki do "
    "kawiarni po drugiej stronie ulicy, gdzie i tak kawa jest lepsza.",
    "pt": "A biblioteca fecha cedo aos domingos, por isso mudámos o clube de leitura para o "
    "café do outro lado da rua, onde o café é melhor de qualquer forma.",
    "ru": "По воскресеньям библиотека закрывается рано, поэтому мы перенесли читательский "
    "кружок в кафе напротив, где кофе всё равно лучше.",
    "el": "Η βιβλιοθήκη κλείνει νωρίς τις Κυριακές, γι' αυτό μεταφέραμε τη λέσχη ανάγνωσης "
    "στο καφέ απέναντι, όπου ο καφές είναι ούτως ή άλλως καλύτερος.",
    "ar": "تغلق المكتبة مبكرا يوم الأحد، لذلك نقلنا نادي القراءة إلى المقهى المقابل، حيث "
    "القهوة أفضل على أي حال.",
    "ja": "日曜日は図書館が早く閉まるので、読書会を向かいの喫茶店に移しました。"
    "どちらにしてもそこのコーヒーのほうがおいしいです。",
    "zh": "图书馆星期天关门很早，所以我们把读书会搬到了对面的咖啡馆，反正那里的咖啡更好喝。",
    "ko": "일요일에는 도서관이 일찍 문을 닫아서 독서 모임을 길 건너편 카페로 옮겼습니다. "
    "어차피 그곳 커피가 더 맛있습니다.",
    "th": "ห้องสมุดปิดเร็วในวันอาทิตย์ เราจึงย้ายชมรมอ่านหนังสือไปที่ร้านกาแฟฝั่งตรงข้าม ซึ่งกาแฟอร่อยกว่าอยู่แล้ว",
}


@pytest.mark.parametrize("code", sorted(TEXTS))
def test_detects_the_language_of_a_short_text(code: str) -> None:
    detected, confidence = detect_language(TEXTS[code])
    assert detected == code
    assert 0.5 < confidence <= 1.0


@pytest.mark.parametrize("text", ["", " ", "\n\t  \r\n", "42 17,5 % — 3/4", "Hi", "OK!"])
def test_empty_or_too_short_text_has_no_language(text: str) -> None:
    assert detect_language(text) == (None, 0.0)


@pytest.mark.parametrize("value", [None, b"bytes are not text", 12, ["en"]])
def test_what_is_not_text_has_no_language(value: object) -> None:
    assert detect_language(value) == (None, 0.0)  # type: ignore[arg-type]


def test_a_huge_text_is_read_only_at_its_start(monkeypatch: pytest.MonkeyPatch) -> None:
    text = TEXTS["de"] + " " + TEXTS["en"] * 80_000  # over 10 MB
    assert len(text) > 10_000_000
    seen: list[int] = []
    real = language._classify

    def spy(chunk: str) -> tuple[str, float]:
        seen.append(len(chunk))
        return real(chunk)

    monkeypatch.setattr(language, "_classify", spy)
    detected, confidence = detect_language(text)
    assert detected in ("de", "en") and confidence > 0
    assert seen and max(seen) <= language.MORE_CHARS


def test_sample_caps_and_drops_digits_and_punctuation() -> None:
    text = "Zahl 1234, Preis: 5 €! " * 1000
    chunk = language.sample(text)
    assert len(chunk) <= language.MAX_CHARS
    assert not any(ch.isdigit() or ch in ",:!€" for ch in chunk)
    # Thai and Devanagari vowel signs are marks, not punctuation: they stay
    assert language.sample("ภาษาไทย हिन्दी") == "ภาษาไทย हिन्दी"


@pytest.mark.parametrize(
    "junk",
    [
        bytes(range(256)).decode("latin-1") * 40,
        "\x00\x01\x02\ufffd\ufffd" * 2000,
        "\ud800\udfff lone surrogates \udc80 " * 50,
        "".join(chr(c) for c in range(0x2500, 0x2600)) * 20,  # box drawing
    ],
)
def test_binary_junk_never_crashes(junk: str) -> None:
    detected, confidence = detect_language(junk)
    assert detected is None or detected in language.ISO_639_1
    assert 0.0 <= confidence <= 1.0


def test_mixed_scripts_give_the_main_language() -> None:
    # Japanese with Latin names and figures in it, Russian with English product names
    ja = "東京の新しいカフェでは、Wi-Fi と USB 充電が無料で使えます。" * 3
    assert detect_language(ja)[0] == "ja"
    ru = "Новый iPhone и MacBook Pro поступят в продажу в Москве уже в эту пятницу. " * 3
    assert detect_language(ru)[0] == "ru"


def test_reads_further_only_when_unsure(monkeypatch: pytest.MonkeyPatch) -> None:
    text = TEXTS["de"] * 30
    seen: list[int] = []

    def unsure(chunk: str) -> tuple[str, float]:
        seen.append(len(chunk))
        return "de", 0.6

    monkeypatch.setattr(language, "_classify", unsure)
    assert detect_language(text) == ("de", 0.6)
    assert seen == [language.MAX_CHARS, language.MORE_CHARS]
    seen.clear()
    # a sure first answer, or a text no longer than the sample, is read once
    monkeypatch.setattr(
        language, "_classify", lambda chunk: (seen.append(len(chunk)), ("de", 1.0))[1]
    )
    assert detect_language(text) == ("de", 1.0)
    monkeypatch.setattr(language, "_classify", unsure)
    assert detect_language(TEXTS["de"])[0] == "de"
    assert seen == [language.MAX_CHARS, len(language.sample(TEXTS["de"]))]


def test_a_declared_language_is_read_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the page's declared language, the first QUICK_CHARS characters are read first
    and their answer kept when it is that language, surely; else the text is read as
    without a declaration."""
    text = TEXTS["de"] * 30
    seen: list[int] = []
    answers = {"de": 1.0}

    def classify(chunk: str) -> tuple[str, float]:
        seen.append(len(chunk))
        return "de", answers["de"]

    monkeypatch.setattr(language, "_classify", classify)
    assert detect_language(text, "de") == ("de", 1.0)
    assert seen == [language.QUICK_CHARS]
    seen.clear()
    assert detect_language(text, "fr") == ("de", 1.0)  # not the declared one: read again
    assert seen == [language.QUICK_CHARS, language.MAX_CHARS]
    seen.clear()
    answers["de"] = 0.9  # unsure: read as without a declaration
    assert detect_language(text, "de") == ("de", 0.9)
    assert seen == [language.QUICK_CHARS, language.MAX_CHARS, language.MORE_CHARS]
    seen.clear()
    assert detect_language(text) == ("de", 0.9)
    assert seen == [language.MAX_CHARS, language.MORE_CHARS]
    monkeypatch.undo()
    page = parse(f"<html lang='de'><body><p>{TEXTS['de']}</p></body></html>")
    assert page_language(TEXTS["de"] * 5, page)[0] == "de"


def test_unsure_gives_no_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(language, "_classify", lambda chunk: ("de", 0.1))
    assert detect_language(TEXTS["de"]) == (None, 0.1)
    monkeypatch.setattr(language, "_classify", lambda chunk: (None, 0.0))
    assert detect_language(TEXTS["de"]) == (None, 0.0)


def test_the_model_answers_only_iso_639_1_codes() -> None:
    model = language._model()
    assert set(model.codes) <= language.ISO_639_1
    # labels without a code fold into their macrolanguage or are out of the vote
    assert {"ar", "zh", "en", "ja", "ko", "th"} <= set(model.codes)
    assert model is language._model()  # loaded once


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("en-US", "en"),
        ("en_us", "en"),
        (" EN ", "en"),
        ("de-DE-formal", "de"),
        ("zh-Hant-TW", "zh"),
        ("pt-BR, en", "pt"),
        ("iw", "he"),
        ("deu", "de"),
        ("x-default", None),
        ("{{lang}}", None),
        ("lang=", None),
        ("english", None),
        ("", None),
        ("zz", None),
        (None, None),
    ],
)
def test_normalize_language(value: str | None, expected: str | None) -> None:
    assert normalize_language(value) == expected


def test_declared_language_of_a_parsed_page() -> None:
    assert declared_language(parse('<html lang="en-GB"><body><p>x</p></body></html>')) == "en"
    assert declared_language(parse('<html lang="x-default"><body><p>x</p></body></html>')) is None
    assert declared_language(parse("<html><body><p>x</p></body></html>")) is None


def test_page_language_falls_back_to_the_page_text() -> None:
    doc = parse(f"<html><body><nav>Start</nav><p>{TEXTS['nl']}</p></body></html>")
    # a short main text (a caption) is completed by the whole page's text
    assert page_language("Foto", doc)[0] == "nl"
    assert page_language("Foto")[0] is None
    # a long main text is read alone
    assert page_language(TEXTS["fr"] * 2, doc)[0] == "fr"


def test_same_language() -> None:
    assert same_language("nb", "no") and same_language("nn", "nb")
    assert same_language("en", "en")
    assert not same_language("en", "de")
    assert not same_language(None, None)
