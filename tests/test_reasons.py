"""The one outcome vocabulary (``core/reasons.py``): every reason the package gives is a
:class:`Reason`, every empty main text has one, and a third-party reason still works."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scrapy_boilerplate import Extraction, Extractor, Reason, UnsupportedInput, extract
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.reasons import GENERIC_GLOSS, exit_code, gloss, is_unusable
from scrapy_boilerplate.core.result import BOILERPLATE, Block

SRC = Path(__file__).resolve().parent.parent / "src" / "scrapy_boilerplate"

#: A page of nothing but a short link menu: blocks, none of them content.
MENU = (
    "<html><head><title>Menu</title></head><body><ul>"
    '<li><a href="/">Home</a></li><li><a href="/news">News</a></li>'
    '<li><a href="/contact">Contact</a></li></ul></body></html>'
)
#: A tag with more attributes than core.document.MAX_ATTRIBUTES (256).
MANY_ATTRIBUTES = "<p " + " ".join(f"a{i}=1" for i in range(8200)) + ">x</p>"
METHODS = [("justext", {}), ("cnr", {}), ("web2text", {}), ("vips", {"layout": "static"})]

#: Display fallbacks of the command line (a result's reason shown), not reasons given.
_SHOWN = {("cli/__init__.py", ""), ("cli/htmlview.py", "unknown")}
#: Calls that take a reason, and the position of the reason among their arguments.
_REASON_ARG = {"failed": 0, "UnsupportedInput": 0, "RenderError": 0, "_fail": 1}


# ---------------------------------------------------------------------------------------------
# Every reason produced in src is a member


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _strings(node: ast.AST | None) -> Iterator[str]:
    """The string constants ``node`` may evaluate to (``a or "b"``, ``x if c else "y"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _strings(value)
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def reason_literals(source: str) -> list[tuple[int, str]]:
    """(line, value) of every string literal given as a reason in ``source``: the reason
    argument of ``Extraction.failed``, ``UnsupportedInput``, ``RenderError`` (as the
    ``render-`` reason VIPS makes of it) and the entity pipeline's ``_fail``; a ``reason``
    keyword; a value assigned to ``reason``, ``.reason`` or ``*_reason``; a string returned by a
    function whose name ends in ``reason``."""
    found: list[tuple[int, str]] = []
    for func in ast.walk(ast.parse(source)):
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) and func.name.endswith(
            "reason"
        ):
            for node in ast.walk(func):
                if isinstance(node, ast.Return):
                    found += [(node.lineno, s) for s in _strings(node.value)]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            index = _REASON_ARG.get(name)
            if index is not None and len(node.args) > index:
                prefix = "render-" if name == "RenderError" else ""
                found += [(node.lineno, prefix + s) for s in _strings(node.args[index])]
            for kw in node.keywords:
                if kw.arg == "reason":
                    found += [(node.lineno, s) for s in _strings(kw.value)]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = getattr(target, "attr", None) or getattr(target, "id", "")
                if name == "reason" or name.endswith("_reason"):
                    found += [(node.lineno, s) for s in _strings(node.value)]
    return found


def test_the_scan_finds_reason_literals():
    """The scan below can fail: it finds each kind of literal it looks for."""
    source = (
        "def skip_reason(r):\n    return 'a' if r else None\n"
        "x = Extraction.failed('b', 'justext')\n"
        "raise UnsupportedInput('c', 'detail')\n"
        "raise RenderError('d', 'detail')\n"
        "self._fail(adapter, 'e', 'message', arg)\n"
        "result.reason = 'f'\n"
        "meta.get(KEY) or Extraction.from_blocks([], 'x', {}, reason='g')\n"
        "reason = meta.get(KEY) or 'h'\nresult = Extraction.failed(r or 'i', 'x')\n"
        "other = 'not a reason'\n"
    )
    found = sorted(v for _, v in reason_literals(source))
    assert found == ["a", "b", "c", "e", "f", "g", "h", "i", "render-d"]


def test_every_reason_string_in_src_is_a_member():
    unknown = []
    for path in sorted(SRC.rglob("*.py")):
        for line, value in reason_literals(path.read_text("utf-8")):
            if Reason.of(value) is None and (str(path.relative_to(SRC)), value) not in _SHOWN:
                unknown.append(f"{path.relative_to(SRC)}:{line}: {value!r}")
    assert not unknown, "reasons that are not Reason members:\n" + "\n".join(unknown)


def test_vips_render_reasons_are_members():
    """VIPS gives ``render-<RenderError.reason>``; every RenderError reason raised in
    render.py maps to a member (also covered by the scan; this one names them)."""
    source = (SRC / "extractors" / "vips" / "render.py").read_text("utf-8")
    found = {v for _, v in reason_literals(source)}
    assert found == {"render-timeout", "render-no-browser", "render-crash", "render-no-sandbox"}
    assert all(Reason.of(v) is not None for v in found)


@pytest.mark.parametrize(
    ("html", "kwargs", "reason"),
    [
        (b"", {}, Reason.EMPTY),
        ("   ", {}, Reason.EMPTY),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {}, Reason.BINARY),
        ('<?xml version="1.0"?><rss><channel/></rss>', {}, Reason.NOT_HTML),
        ("<p>" + "x" * 100 + "</p>", {"max_size": 50}, Reason.TOO_LARGE),
        ("<div><p>a</p><p>b</p></div>" * 20, {"max_nodes": 5}, Reason.TOO_MANY_NODES),
        (MANY_ATTRIBUTES, {}, Reason.TOO_MANY_ATTRIBUTES),
        ("<html><body></body></html>", {}, Reason.NO_TEXT),
        ("<html><frameset><frame src='a.html'></frameset></html>", {}, Reason.FRAMESET),
        ("<div>" * 3000 + "<p>deep</p>", {}, Reason.TOO_DEEP),
        (MENU, {}, Reason.NO_CONTENT),
    ],
)  # fmt: skip
def test_each_producing_path_gives_its_member(html, kwargs, reason):
    result = extract(html, "justext", **kwargs)
    assert result.reason == reason.value
    assert type(result.reason) is str  # stored as the plain value
    assert result.main_text == ""
    assert (reason.exit_code == 4) == reason.unusable


# ---------------------------------------------------------------------------------------------
# The enum


def test_members_are_their_strings_with_unusable_gloss_and_exit_code():
    assert Reason.NO_CONTENT == "no-content" and Reason("no-content") is Reason.NO_CONTENT
    assert str(Reason.TOO_LARGE) == "too-large" and f"{Reason.TOO_LARGE}" == "too-large"
    assert json.dumps({"reason": Reason.BINARY}) == '{"reason": "binary"}'
    assert len({m.value for m in Reason}) == len(Reason)
    unusable = {m.value for m in Reason if m.unusable}
    assert {"empty", "binary", "not-html", "too-large", "parse-error"} <= unusable
    assert {"too-many-nodes", "too-many-attributes"} <= unusable
    assert not {"no-text", "no-content", "frameset", "too-deep", "timeout"} & unusable
    for member in Reason:
        assert member.gloss and "\n" not in member.gloss
        assert member.exit_code == (4 if member.unusable else 1)


def test_an_unknown_reason_works_with_a_generic_gloss():
    assert Reason.of("my-own") is None and Reason.of(None) is None
    assert Reason.of("empty") is Reason.EMPTY and Reason.of(Reason.EMPTY) is Reason.EMPTY
    assert gloss("my-own") == GENERIC_GLOSS and gloss(None) == ""
    assert exit_code("my-own") == 1 and exit_code(None) == 0 and exit_code("binary") == 4
    assert not is_unusable("my-own") and is_unusable("too-many-nodes")


def test_a_member_passed_in_is_stored_as_its_value():
    for result in (
        Extraction.failed(Reason.TIMEOUT, "justext"),
        Extraction.from_blocks([], "justext", {}, reason=Reason.ERROR),
        Extraction("", [], "justext", reason=Reason.EMPTY),
    ):
        assert type(result.reason) is str
        assert type(result.to_dict()["reason"]) is str
    exc = UnsupportedInput(Reason.BINARY, "no text")
    assert type(exc.reason) is str and exc.reason == "binary" and str(exc) == "binary: no text"
    assert str(UnsupportedInput(Reason.EMPTY)) == "empty"


# ---------------------------------------------------------------------------------------------
# Every empty main text carries a reason


@pytest.mark.parametrize(("method", "params"), METHODS, ids=[m for m, _ in METHODS])
def test_a_page_of_only_boilerplate_is_no_content(method, params):
    result = extract(MENU, method, **params)
    assert result.main_text == ""
    assert result.blocks and not result.content_blocks  # read whole, every block boilerplate
    assert result.reason == "no-content"
    assert result.to_dict()["reason"] == "no-content"
    assert not result.ok


def test_from_blocks_gives_no_content_and_no_text():
    block = Block("Home", "/html[1]/body[1]/a[1]", "a", BOILERPLATE)
    assert Extraction.from_blocks([block], "x", {}).reason == "no-content"
    assert Extraction.from_blocks([], "x", {}).reason == "no-text"
    assert Extraction.from_blocks([block], "x", {}, reason="my-own").reason == "my-own"


class _Silent(Extractor):
    """A third-party extractor that builds its result by hand and says nothing."""

    name = "silent"

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        blocks = [Block(b.text, b.xpath, b.tag) for b in doc.leaf_blocks()]
        return Extraction("", blocks, self.name, dict(params))


class _OwnReason(Extractor):
    """A third-party extractor with a reason of its own."""

    name = "ownreason"

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        return Extraction("", [], self.name, dict(params), reason="quota-exceeded")


@pytest.fixture
def third_party() -> Iterator[None]:
    registry.available()  # load entry points first, so ours are the only additions
    registry.register("silent", _Silent)
    registry.register("ownreason", _OwnReason)
    yield
    registry.unregister("silent")
    registry.unregister("ownreason")


def test_a_third_party_result_without_a_reason_gets_one(third_party):
    assert extract(MENU, "silent").reason == "no-content"
    result = extract(MENU, "ownreason")
    assert result.reason == "quota-exceeded"  # kept as is
    assert Reason.of(result.reason) is None and gloss(result.reason) == GENERIC_GLOSS


def test_the_api_docs_list_every_reason():
    """docs/api.md's table of reasons is the enum's: value, unusable and gloss."""
    docs = (SRC.parent.parent / "docs" / "api.md").read_text("utf-8")
    for member in Reason:
        row = f"| `{member.value}` | {'yes' if member.unusable else 'no'} | {member.gloss} |"
        assert row in docs, row
