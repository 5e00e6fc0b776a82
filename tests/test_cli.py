"""The ``scrapy-boilerplate`` command line: formats, parameter options, errors, exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from scrapy_boilerplate.cli import (
    EXIT_INPUT,
    EXIT_NO_TEXT,
    EXIT_OK,
    EXIT_UNUSABLE,
    EXIT_USAGE,
    main,
)
from scrapy_boilerplate.cli.fetch import FetchError
from scrapy_boilerplate.cli.htmlview import render_view
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.result import BOILERPLATE, CONTENT, Block, Extraction

PARAGRAPH_1 = (
    "The city was founded in the twelfth century by a group of merchants who wanted to "
    "trade along the river. It grew quickly and became one of the most important towns in "
    "the region, and it has been the seat of the regional government since then."
)
PARAGRAPH_2 = (
    "Today it is known for its old bridge, which was built in the fourteenth century and "
    "is still used by the people who walk from one side of the river to the other every "
    "day of the year."
)
PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><title>The city</title>
<script>document.write("injected")</script></head>
<body>
<div id="nav"><a href="/">Home</a> | <a href="/about">About</a> |
<a href="/contact">Contact</a></div>
<h1>The history of the city</h1>
<p>{PARAGRAPH_1}</p>
<p>Read more about it in the old town.</p>
<p>{PARAGRAPH_2}</p>
<div class="footer" onclick="track()">Copyright © 2024 Example. All rights reserved.</div>
<script src="analytics.js"></script>
</body></html>
"""


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_text(PAGE, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def blocks_of(capsys: pytest.CaptureFixture[str], page: Path, *opts: str) -> list[dict[str, Any]]:
    code, out, _ = run(capsys, "extract", str(page), "--format", "json", *opts)
    assert code == EXIT_OK
    return json.loads(out)["blocks"]


# ---------------------------------------------------------------------------------------------
# Formats


def test_text_format_is_main_text(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, err = run(capsys, "extract", str(page))
    assert code == EXIT_OK
    assert err == ""
    assert PARAGRAPH_1 in out and PARAGRAPH_2 in out
    assert "Contact" not in out  # the navigation
    # the text format is the Extraction's main text, whatever the model keeps
    from scrapy_boilerplate import extract

    assert out == extract(page.read_bytes()).main_text + "\n"


def test_json_format_is_to_dict(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(page), "--format", "json")
    assert code == EXIT_OK
    data = json.loads(out)
    assert data["extractor"] == "auto"
    assert data["page_type"] and 0.0 <= data["quality"] <= 1.0  # auto's own fields
    assert data["reason"] is None
    assert PARAGRAPH_1 in data["main_text"]
    assert {b["label"] for b in data["blocks"]} == {CONTENT, BOILERPLATE}
    assert "©" in out  # ensure_ascii=False
    assert out.startswith("{\n  ")  # pretty printed


def test_markdown_format(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(page), "-f", "markdown")
    assert code == EXIT_OK
    assert "# The history of the city" in out
    assert PARAGRAPH_2 in out


def test_html_view(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(page), "--format", "html")
    assert code == EXIT_OK
    assert out.lstrip().lower().startswith("<!doctype html>")
    assert "<script" not in out.lower()
    assert "onclick" not in out and "document.write" not in out
    assert "outline: 2px solid" in out
    assert 'data-boilerplate-label="content"' in out
    assert 'data-boilerplate-label="boilerplate"' in out
    assert "data-boilerplate-legend" in out  # the legend
    assert "p_content=" in out  # the tooltip lists the block's fields
    assert "Content-Security-Policy" in out
    assert PARAGRAPH_1 in out  # the page itself, not only the extraction


def test_html_view_elements_match_blocks(tmp_path: Path) -> None:
    import lxml.html

    from scrapy_boilerplate import extract

    result = extract(PAGE)
    view = lxml.html.document_fromstring(render_view(PAGE, result))
    marked = view.xpath("//*[@data-boilerplate-label]")
    assert {el.get("data-boilerplate-label") for el in marked} == {CONTENT, BOILERPLATE}
    by_text = {
        " ".join(el.text_content().split()): el.get("data-boilerplate-label") for el in marked
    }
    assert by_text[PARAGRAPH_1] == CONTENT
    assert by_text["Home | About | Contact"] == BOILERPLATE
    indices = sorted(int(i) for el in marked for i in el.get("data-boilerplate-blocks").split())
    assert indices == [b.index for b in result.blocks]
    fields = json.loads(marked[0].get("data-boilerplate-fields"))
    assert fields[0]["label"] in (CONTENT, BOILERPLATE) and "p_content" in fields[0]


def test_html_view_marks_mixed_element() -> None:
    html = "<html><body><div>Intro<p>Para</p>Tail</div></body></html>"
    blocks = [
        Block("Intro", "/html/body/div", "div", label=CONTENT, index=0),
        Block("Para", "/html/body/div/p", "p", label=CONTENT, index=1),
        Block("Tail", "/html/body/div", "div", label=BOILERPLATE, index=2),
        Block("Lost", "/html/body/table", "table", label=BOILERPLATE, index=3),
    ]
    view = render_view(html, Extraction.from_blocks(blocks, "test", {}))
    assert 'data-boilerplate-label="mixed"' in view
    assert 'data-boilerplate-blocks="0 2"' in view
    assert "dashed" in view  # the div contains another outlined element
    assert "1 blocks not located" in view


def test_html_view_br_blocks_are_wrapped() -> None:
    html = "<html><body><div>Menu<br><br>A long paragraph of text.<br><br>Login</div></body></html>"
    blocks = [
        Block("Menu", "/html/body/div", "div", label=BOILERPLATE, index=0),
        Block("A long paragraph of text.", "/html/body/div/br[2]", "br", label=CONTENT, index=1),
        Block("Login", "/html/body/div/br[4]", "br", label=BOILERPLATE, index=2),
    ]
    import lxml.html

    view = lxml.html.document_fromstring(
        render_view(html, Extraction.from_blocks(blocks, "test", {}))
    )
    spans = view.xpath("//span[@data-boilerplate-label]")
    assert [
        (" ".join(s.text_content().split()), s.get("data-boilerplate-label")) for s in spans
    ] == [("A long paragraph of text.", CONTENT), ("Login", BOILERPLATE)]


def test_output_file(capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, out, _ = run(capsys, "extract", str(page), "-f", "json", "--output", str(target))
    assert code == EXIT_OK
    assert out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["extractor"] == "auto"


def test_stdin_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(PAGE.encode("utf-8")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run(capsys, "extract", "-")
    assert code == EXIT_OK
    assert PARAGRAPH_1 in out


def test_stdin_bytes_use_encoding_option(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = PAGE.replace("Copyright ©", "Café ©").encode("cp1252")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="latin-1"))
    code, out, _ = run(capsys, "extract", "-", "--encoding", "cp1252", "-f", "json")
    assert code == EXIT_OK
    assert any(b["text"].startswith("Café") for b in json.loads(out)["blocks"])


def test_url_option_sets_result_url(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(page), "-f", "json", "--url", "https://ex.org/a")
    assert code == EXIT_OK
    assert json.loads(out)["url"] == "https://ex.org/a"


# ---------------------------------------------------------------------------------------------
# Page metadata in the formats

META_PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><title>The history of the city | Example News</title>
<meta property="og:title" content="The history of the city">
<meta name="author" content="Ann Lee">
<meta property="article:published_time" content="2024-05-02T10:00:00Z">
<link rel="canonical" href="https://example.org/history">
</head><body>
<div id="nav"><a href="/">Home</a> | <a href="/about">About</a></div>
<h1>The history of the city</h1>
<p>{PARAGRAPH_1}</p>
<p>{PARAGRAPH_2}</p>
</body></html>
"""
#: A page whose metadata is hostile markup (its title, author and site name).
HOSTILE_META_PAGE = f"""<html><head>
<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;">
<meta name="author" content="&lt;img src=x onerror=alert(2)&gt;">
<meta property="og:site_name" content="&quot;&gt;&lt;b onmouseover=alert(3)&gt;">
<link rel="canonical" href="javascript:alert(4)">
</head><body><p>{PARAGRAPH_1}</p></body></html>
"""


@pytest.fixture
def meta_page(tmp_path: Path) -> Path:
    path = tmp_path / "meta.html"
    path.write_text(META_PAGE, encoding="utf-8")
    return path


def test_json_carries_the_metadata(capsys: pytest.CaptureFixture[str], meta_page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "json")
    assert code == EXIT_OK
    meta = json.loads(out)["metadata"]
    assert meta["title"] == "The history of the city"
    assert meta["authors"] == ["Ann Lee"]
    assert meta["date_published"].startswith("2024-05-02")
    assert meta["canonical_url"] == "https://example.org/history"
    assert meta["sources"]["authors"] == "meta" and isinstance(meta["notes"], list)


def test_no_metadata_flag_drops_it(capsys: pytest.CaptureFixture[str], meta_page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "json", "--no-metadata")
    assert code == EXIT_OK
    data = json.loads(out)
    assert "metadata" not in data and PARAGRAPH_1 in data["main_text"]
    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "markdown", "--no-metadata")
    assert code == EXIT_OK and "Ann Lee" not in out
    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "html", "--no-metadata")
    assert code == EXIT_OK and "data-boilerplate-metadata" not in out


def test_text_format_shows_no_metadata(capsys: pytest.CaptureFixture[str], meta_page: Path) -> None:
    code, out, _ = run(capsys, "extract", str(meta_page))
    assert code == EXIT_OK
    assert PARAGRAPH_1 in out and "Ann Lee" not in out and "2024" not in out


def test_markdown_title_and_byline_not_duplicated(
    capsys: pytest.CaptureFixture[str], meta_page: Path
) -> None:
    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "markdown")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[:3] == ["# The history of the city", "", "*Ann Lee · 2024-05-02*"]
    assert out.count("The history of the city") == 1  # the body's own heading, once
    assert PARAGRAPH_2 in out


def test_markdown_title_added_when_the_body_lacks_it(tmp_path: Path) -> None:
    from scrapy_boilerplate.cli import render_markdown

    blocks = [Block(PARAGRAPH_1, "/html/body/p", "p", label=CONTENT, index=0)]
    result = Extraction.from_blocks(blocks, "test", {})
    assert render_markdown(result) == PARAGRAPH_1 + "\n"  # no metadata: the body as is
    result.metadata = {"title": "A *river* <story>", "authors": [], "date_published": None}
    assert render_markdown(result) == f"# A \\*river\\* \\<story\\>\n\n{PARAGRAPH_1}\n"
    # the body's heading says the title, but for spaces, case and punctuation: kept alone
    blocks.insert(0, Block("News ProductManagement: now", "/html/body/h1", "h1", label=CONTENT))
    result = Extraction.from_blocks(
        blocks, "test", {}, metadata={"title": "News product management now!"}
    )
    assert render_markdown(result) == f"# News ProductManagement: now\n\n{PARAGRAPH_1}\n"


def test_html_view_shows_the_metadata_with_sources(
    capsys: pytest.CaptureFixture[str], meta_page: Path
) -> None:
    import lxml.html

    code, out, _ = run(capsys, "extract", str(meta_page), "-f", "html")
    assert code == EXIT_OK
    panel = lxml.html.document_fromstring(out).xpath("//*[@data-boilerplate-metadata]")[0]
    rows = {
        tr.get("data-boilerplate-field"): [" ".join(td.text_content().split()) for td in tr]
        for tr in panel.xpath(".//tr[@data-boilerplate-field]")
    }
    assert rows["authors"] == ["authors", "Ann Lee", "meta"]
    assert rows["canonical_url"][1:] == ["https://example.org/history", "link"]
    assert panel.xpath(".//a/@href") == ["https://example.org/history"]


def test_html_view_escapes_hostile_metadata(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import lxml.html

    path = tmp_path / "hostile.html"
    path.write_text(HOSTILE_META_PAGE, encoding="utf-8")
    code, out, _ = run(capsys, "extract", str(path), "-f", "html")
    assert code == EXIT_OK
    assert "<script" not in out.lower() and "<img src=x" not in out and "<b " not in out
    root = lxml.html.document_fromstring(out)
    panel = root.xpath("//*[@data-boilerplate-metadata]")[0]
    text = panel.text_content()
    assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert(2)>" in text
    assert '"><b onmouseover=alert(3)>' in text
    assert not any(name.startswith("on") for el in root.iter() for name in el.attrib)
    assert not panel.xpath(".//a")  # the javascript: canonical URL is no link
    code, out, _ = run(capsys, "extract", str(path), "-f", "markdown")
    assert code == EXIT_OK
    assert out.startswith("# \\<script\\>alert(1)\\</script\\>\n")


def test_metadata_keeps_the_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "empty-body.html"
    path.write_text("<html><head><title>Only a title</title></head><body></body></html>")
    for fmt in ("json", "markdown", "html"):
        assert run(capsys, "extract", str(path), "-f", fmt)[0] == EXIT_NO_TEXT
    binary = tmp_path / "input.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    code, out, _ = run(capsys, "extract", str(binary), "-f", "json")
    assert code == EXIT_UNUSABLE and json.loads(out)["metadata"]["title"] is None
    code, _, _ = run(capsys, "extract", str(binary), "-f", "markdown", "--no-metadata")
    assert code == EXIT_UNUSABLE


# ---------------------------------------------------------------------------------------------
# Parameter options


def test_length_low_option_changes_classes(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    default = blocks_of(capsys, page, "-e", "justext")
    low = blocks_of(capsys, page, "-e", "justext", "--length-low", "0")
    assert "short" in [b["context_free_class"] for b in default]
    assert "short" not in [b["context_free_class"] for b in low]


def test_generic_param_equals_option(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    justext = blocks_of(capsys, page, "-e", "justext", "--length-low", "0")
    assert blocks_of(capsys, page, "-e", "justext", "--param", "length_low=0") == justext
    assert blocks_of(capsys, page, "-e", "justext", "-p", "length-low=0") == justext


def test_bool_flag(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    assert any(b["heading"] for b in blocks_of(capsys, page, "-e", "justext"))
    # A bare flag must not swallow the FILE argument that follows it.
    code, out, _ = run(capsys, "extract", "-e", "justext", "--no-headings", str(page), "-f", "json")
    assert code == EXIT_OK
    assert not any(b["heading"] for b in json.loads(out)["blocks"])
    assert json.loads(out)["params"]["no_headings"] is True
    off = blocks_of(capsys, page, "-e", "justext", "--no-headings=false")
    assert any(b["heading"] for b in off)


def test_nullable_param_null(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, _ = run(
        capsys, "extract", str(page), "-e", "justext", "-f", "json", "--language", "null"
    )
    assert code == EXIT_OK
    assert json.loads(out)["params"]["language"] is None


class _Dummy(registry.Extractor):
    """A third-party extractor: every block is content; ``window`` is its own parameter."""

    name = "clitest"
    params: ClassVar[tuple[Param, ...]] = (
        Param("window", int, 3, "a parameter only this extractor has", 1, 10),
        Param("strict", bool, True, "a boolean that defaults to true"),
    )

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        blocks = [
            Block(b.text, b.xpath, b.tag, label=CONTENT, index=b.index)
            for b in doc.justext_blocks()
        ]
        return Extraction.from_blocks(blocks, self.name, dict(params))


@pytest.fixture
def third_party() -> Any:
    registry.available()  # load entry points first, so ours is the only addition
    registry.register("clitest", _Dummy)
    yield "clitest"
    registry.unregister("clitest")


def test_third_party_extractor_options(
    capsys: pytest.CaptureFixture[str], page: Path, third_party: str
) -> None:
    code, out, _ = run(
        capsys,
        "extract",
        str(page),
        "-e",
        third_party,
        "--window",
        "5",
        "--strict=false",
        "-f",
        "json",
    )
    assert code == EXIT_OK
    data = json.loads(out)
    assert data["params"] == {"window": 5, "strict": False}
    assert "Copyright" in data["main_text"]
    code, out, _ = run(
        capsys, "extract", str(page), "-e", third_party, "--param", "window=7", "-f", "json"
    )
    assert code == EXIT_OK
    assert json.loads(out)["params"]["window"] == 7
    code, out, _ = run(capsys, "list")
    assert "clitest" in out and "--window N" in out


def test_option_of_another_extractor_is_refused(
    capsys: pytest.CaptureFixture[str], page: Path, third_party: str
) -> None:
    code, out, err = run(capsys, "extract", str(page), "--window", "5")
    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("scrapy-boilerplate: error: ")
    assert "--window" in err and "extractor 'auto'" in err  # the default, named
    code, _, err = run(capsys, "extract", str(page), "-e", third_party, "--length-low", "5")
    assert code == EXIT_USAGE
    assert "--length-low" in err


def test_cnr_option_refused_for_justext(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    pytest.importorskip("scrapy_boilerplate.extractors.cnr")
    from scrapy_boilerplate.cli import _class_params, option_flag

    justext = {p.name for p in _class_params("justext")}
    own = [p for p in _class_params("cnr") if p.name not in justext and p.type is not bool]
    if not own:
        pytest.skip("cnr has no parameter of its own")
    value = str(own[0].default if own[0].default is not None else 1)
    code, _, err = run(
        capsys, "extract", str(page), "-e", "justext", option_flag(own[0].name), value
    )
    assert code == EXIT_USAGE
    assert option_flag(own[0].name) in err


# ---------------------------------------------------------------------------------------------
# Errors and exit codes


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "extract", str(tmp_path / "nope.html"))
    assert code == EXIT_INPUT
    assert out == ""
    assert err == f"scrapy-boilerplate: error: file not found: {tmp_path / 'nope.html'}\n"


def test_directory_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "extract", str(tmp_path))
    assert code == EXIT_INPUT
    assert err.count("\n") == 1


def test_unknown_extractor(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, err = run(capsys, "extract", str(page), "--extractor", "nosuch")
    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("\n") == 1
    assert "nosuch" in err and "justext" in err


def test_parameter_out_of_range(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    code, out, err = run(capsys, "extract", str(page), "-e", "justext", "--length-low", "-5")
    assert code == EXIT_USAGE
    assert out == ""
    assert err.count("\n") == 1
    assert "length_low" in err and ">= 0" in err
    code, _, err = run(capsys, "extract", str(page), "-e", "justext", "--max-link-density", "2")
    assert code == EXIT_USAGE
    assert "max_link_density" in err and "<= 1" in err
    code, _, err = run(capsys, "extract", str(page), "-e", "justext", "--length-low", "ten")
    assert code == EXIT_USAGE and "length_low" in err


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], page: Path) -> None:
    for argv in (
        ["extract", str(page), "--bogus"],
        ["extract", str(page), "--param", "no-equals-sign"],
        ["extract", str(page), "--param", "nosuch=1"],
        ["extract", str(page), "-e", "justext", "--length-low", "1", "--param", "length_low=2"],
        ["extract", str(page), "--format", "pdf"],
        ["extract", str(page), "--encoding", "no-such-codec"],
        ["extract"],
        ["frobnicate"],
        [],
    ):
        code, out, err = run(capsys, *argv)
        assert code == EXIT_USAGE, argv
        assert out == ""
        assert err.startswith("scrapy-boilerplate: error: ") and err.count("\n") == 1, argv


def test_usage_error_before_reading_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "extract", str(tmp_path / "missing"), "-e", "justext", "--length-low", "-1"
    )
    assert code == EXIT_USAGE and "length_low" in err


def test_no_text_exit_1_output_still_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "empty-body.html"
    path.write_text("<html><head><title>x</title></head><body></body></html>")
    code, out, err = run(capsys, "extract", str(path), "-f", "json")
    assert code == EXIT_NO_TEXT
    assert json.loads(out)["reason"] == "no-text"
    assert err.startswith("scrapy-boilerplate: note: ") and "no-text" in err
    assert err.count("\n") == 1


def test_only_boilerplate_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "menu.html"
    path.write_text('<html><body><a href="/">Home</a> <a href="/x">Contact</a></body></html>')
    # jusText: auto keeps its best blocks on any page with text (docs/auto.md)
    code, out, err = run(capsys, "extract", str(path), "-e", "justext")
    assert code == EXIT_NO_TEXT
    assert out == ""
    assert "boilerplate" in err and err.count("\n") == 1
    # the JSON and the note say no-content; the note keeps the number of blocks
    code, out, err = run(capsys, "extract", str(path), "-e", "justext", "-f", "json")
    assert code == EXIT_NO_TEXT
    data = json.loads(out)
    assert data["reason"] == "no-content" and data["main_text"] == ""
    n = len(data["blocks"])
    assert err == (
        f"scrapy-boilerplate: note: no main text (no-content: every block, {n} in all, "
        "was classified as boilerplate)\n"
    )


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (b'<?xml version="1.0"?><rss><channel><title>x</title></channel></rss>', "not-html"),
        # over 4 x the default max_nodes (250 000) '<': refused before parsing
        (b"<i>" * 1_000_001, "too-many-nodes"),
        # a tag with more than core.document.MAX_ATTRIBUTES (256) attributes
        (b"<p " + b" ".join(b"a%d=1" % i for i in range(8200)) + b">x</p>", "too-many-attributes"),
    ],
)
def test_unusable_input_exit_4(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "input.bin"
    path.write_bytes(content)
    code, out, err = run(capsys, "extract", str(path), "-f", "json")
    assert code == EXIT_UNUSABLE
    assert json.loads(out)["reason"] == reason
    assert err.startswith("scrapy-boilerplate: error: ") and reason in err
    assert err.count("\n") == 1
    code, out, _ = run(capsys, "extract", str(path), "-f", "html")
    assert code == EXIT_UNUSABLE
    assert reason in out and "<script" not in out


def test_entities_on_a_binary_file_exits_4(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    code, out, err = run(capsys, "entities", str(path), "--query", "names")
    assert code == EXIT_UNUSABLE
    assert json.loads(out)["reason"] == "binary"
    assert err == (
        "scrapy-boilerplate: error: input is not a usable HTML page "
        "(binary: the input is binary, not text)\n"
    )


def test_a_third_party_reason_exits_1_with_a_generic_gloss(
    capsys: pytest.CaptureFixture[str], page: Path
) -> None:
    class _OwnReason(registry.Extractor):
        name = "ownreason"

        def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
            return Extraction("", [], self.name, dict(params), reason="quota-exceeded")

    registry.available()  # load entry points first, so ours is the only addition
    registry.register("ownreason", _OwnReason)
    try:
        code, _, err = run(capsys, "extract", str(page), "-e", "ownreason")
    finally:
        registry.unregister("ownreason")
    assert code == EXIT_NO_TEXT
    assert err == (
        "scrapy-boilerplate: note: no main text (quota-exceeded: the extractor gave no main text)\n"
    )


# ---------------------------------------------------------------------------------------------
# URLs (no network: the fetch is replaced; tests/test_cli_security.py fetches from a local
# server)


def test_url_input_is_fetched(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fetch(url: str, headers: Any, timeout: float, allow_private: bool) -> Any:
        seen["url"], seen["timeout"], seen["private"] = url, timeout, allow_private
        return PAGE.encode(), "https://example.org/final", "utf-8"

    monkeypatch.setattr("scrapy_boilerplate.cli.fetch.fetch", fetch)
    code, out, _ = run(capsys, "extract", "https://example.org/start", "-f", "json")
    assert code == EXIT_OK
    assert seen == {"url": "https://example.org/start", "timeout": 30.0, "private": False}
    assert json.loads(out)["url"] == "https://example.org/final"


def test_url_fetch_failure(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def fetch(url: str, headers: Any, timeout: float, allow_private: bool) -> Any:
        raise FetchError(f"cannot fetch {url}: Name or service not known")

    monkeypatch.setattr("scrapy_boilerplate.cli.fetch.fetch", fetch)
    code, out, err = run(capsys, "extract", "http://nonexistent.invalid/")
    assert code == EXIT_INPUT
    assert out == ""
    assert "nonexistent.invalid" in err and err.count("\n") == 1


def test_non_http_argument_is_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "extract", "ftp://example.org/page.html")
    assert code == EXIT_INPUT and "file not found" in err


# ---------------------------------------------------------------------------------------------
# list, help


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == EXIT_OK
    assert out.startswith("auto  (default)")
    assert out.count("(default)") == 1 and "\njustext\n" in out
    assert "--length-low N" in out and "default 70" in out and ">= 0" in out
    assert "--no-headings" in out


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list", "--json")
    assert code == EXIT_OK
    entries = {e["name"]: e for e in json.loads(out)}
    params = {p["name"]: p for p in entries["justext"]["params"]}
    assert params["length_low"]["default"] == 70
    assert params["length_low"]["option"] == "--length-low"


def test_there_is_no_bench_command(capsys: pytest.CaptureFixture[str]) -> None:
    # The benchmark harness reads datasets no user has and is not in the wheel: it runs
    # from a clone (python benchmarks/run.py), never through the installed command.
    code, _, err = run(capsys, "bench", "--limit", "1")
    assert code == EXIT_USAGE and "invalid choice" in err


def test_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "extract", "--help")
    assert code == 0
    assert "exit codes:" in out and "--length-low" in out and "--param" in out
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "exit codes:" in out and "extract" in out


def test_python_m_help() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy_boilerplate", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "scrapy-boilerplate" in proc.stdout and "exit codes:" in proc.stdout
