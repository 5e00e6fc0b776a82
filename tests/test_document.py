"""Document: every input kind, decoding, cleaning, the three segmentations, declared language."""

from __future__ import annotations

import lxml.etree as etree
import lxml.html
import pytest
from hypothesis import example, given
from parsel import Selector

from scrapy_boilerplate import Document, extract, parse
from scrapy_boilerplate.core.document import CNode
from test_properties import SETTINGS, pages

ARTICLE = (
    "<html><head><title>Title</title></head><body>"
    "<div id='nav'><a href='/'>Home</a> | <a href='/about'>About</a></div>"
    "<p>The harbour of the town was rebuilt in the spring, and the old lighthouse at the end of "
    "the pier was painted white again so that the fishermen could see it from the sea when they "
    "came back into the harbour at night.</p>"
    "</body></html>"
)


def block_texts(doc: Document) -> list[str]:
    return [b.text for b in doc.justext_blocks()]


def meta_page(charset: str, text: str) -> str:
    return (
        f'<html><head><meta charset="{charset}"><title>t</title></head>'
        f"<body><p>{text}</p></body></html>"
    )


# ---------------------------------------------------------------------------------------------
# Input kinds


def test_str_input():
    doc = parse("<p>café</p>")
    assert block_texts(doc) == ["café"]
    assert doc.root.tag == "html"


def test_bytes_with_utf8_bom():
    data = b"\xef\xbb\xbf" + "<html><body><p>café naïve</p></body></html>".encode()
    doc = parse(data)
    assert block_texts(doc) == ["café naïve"]
    assert doc.encoding == "utf-8"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_bytes_utf16_with_bom(codec):
    html = "<html><body><p>café Привет 東京</p></body></html>"
    data = html.encode(codec)
    if codec != "utf-16":  # explicit BOM for the endian-specific codecs
        data = ("\ufeff" + html).encode(codec)
    doc = parse(data)
    assert block_texts(doc) == ["café Привет 東京"]
    assert doc.encoding.startswith("utf-16")


@pytest.mark.parametrize(
    ("charset", "codec", "text"),
    [
        ("iso-8859-1", "latin-1", "café naïve àéîõü"),
        ("windows-1252", "cp1252", "“quoted” – 5 € …"),
        ("koi8-r", "koi8-r", "Привет, мир"),
        ("shift_jis", "shift_jis", "東京の天気"),
    ],
)
def test_bytes_in_the_declared_meta_charset(charset, codec, text):
    doc = parse(meta_page(charset, text).encode(codec))
    assert block_texts(doc) == [text]


def test_http_equiv_content_type_charset():
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
        "</head><body><p>Привет</p></body></html>"
    )
    assert block_texts(parse(html.encode("koi8-r"))) == ["Привет"]


def test_encoding_argument_wins_over_the_meta():
    data = meta_page("utf-8", "Привет").encode("koi8-r")
    assert block_texts(parse(data, encoding="koi8-r")) == ["Привет"]


def test_declared_utf8_but_cp1252_bytes():
    data = meta_page("utf-8", "café – “naïve”").encode("cp1252")
    doc = parse(data)
    assert block_texts(doc) == ["café – “naïve”"]
    assert doc.encoding == "cp1252"


def test_declared_iso_8859_5_but_utf8_bytes():
    data = meta_page("iso-8859-5", "Привет, мир").encode("utf-8")
    doc = parse(data)
    assert block_texts(doc) == ["Привет, мир"]
    assert doc.encoding == "utf-8"


def test_undeclared_utf8_bytes():
    assert block_texts(parse("<p>naïve café</p>".encode())) == ["naïve café"]


def test_str_input_ignores_its_meta_charset():
    # The str is parsed as UTF-8 bytes with the encoding fixed: the meta must not re-decode it.
    assert block_texts(parse(meta_page("koi8-r", "Привет, мир"))) == ["Привет, мир"]
    assert block_texts(parse(meta_page("iso-8859-1", "東京の天気"))) == ["東京の天気"]


def test_attribute_limit_is_exact():
    from scrapy_boilerplate.core.document import MAX_ATTRIBUTES
    from scrapy_boilerplate.core.errors import UnsupportedInput

    def page(n: int) -> str:
        attrs = " ".join(f"a{i}='{i}'" for i in range(n))
        return f"<html><body><p {attrs}>kept text</p></body></html>"

    assert block_texts(parse(page(MAX_ATTRIBUTES))) == ["kept text"]
    for html in (page(MAX_ATTRIBUTES + 1), page(MAX_ATTRIBUTES + 1).encode()):
        with pytest.raises(UnsupportedInput) as info:
            parse(html)
        assert info.value.reason == "too-many-attributes"


def test_attribute_limit_counts_what_libxml2_parses():
    """The cap counts attributes as libxml2 reads tags: with or without a value, in any case;
    never in scripts, styles, comments or quoted values."""
    from scrapy_boilerplate.core.document import MAX_ATTRIBUTES
    from scrapy_boilerplate.core.errors import UnsupportedInput

    def refused(html: str) -> bool:
        try:
            parse(html)
        except UnsupportedInput as exc:
            assert exc.reason == "too-many-attributes"
            return True
        return False

    def tag(n: int, name: str = "p") -> str:
        return f"<{name} " + " ".join(f"a{i}" for i in range(n)) + ">"

    body = "<html><body>{}<p>kept text</p></body></html>"
    # valueless attributes, uppercase tags
    assert not refused(body.format(tag(MAX_ATTRIBUTES) + "x</p>"))
    assert refused(body.format(tag(MAX_ATTRIBUTES + 1) + "x</p>"))
    assert refused(body.format(tag(2000) + "x</p>"))
    assert refused(body.format(tag(MAX_ATTRIBUTES + 1, "DIV") + "x</DIV>"))
    # a script's '<' and '=' (9 000 of them: over the cap before it was counted this way)
    code = "if (a <b) {" + "x = 1; " * 9000 + "}"
    page = body.format(f"<script>{code}</script>")
    assert not refused(page)
    assert block_texts(parse(page)) == ["kept text"]
    assert not refused(body.format(f"<style>a<b {{{'c=d;' * 9000}}}</style>"))
    # a comment, and '>' or '<' inside a quoted value, hide no tag
    assert not refused(body.format("<!-- " + tag(MAX_ATTRIBUTES + 1) + " -->"))
    hidden = "<p title='<q " + " ".join(f"a{i}" for i in range(MAX_ATTRIBUTES + 1)) + ">'>x</p>"
    assert not refused(body.format(hidden))
    # but a quoted '>' does not end the tag: the attributes after it are the tag's
    spread = "<p a='>' " + " ".join(f"b{i}='>'" for i in range(MAX_ATTRIBUTES)) + ">x</p>"
    assert refused(body.format(spread))


def test_extract_reports_the_encoding():
    r = extract(meta_page("koi8-r", "Привет").encode("koi8-r"))
    assert r.encoding == "koi8-r"
    assert extract("<p>str input</p>").encoding is None


def test_parsel_selector_tree_is_reused():
    sel = Selector(text=ARTICLE)
    doc = parse(sel)
    assert doc.root is sel.root
    elements = set(sel.root.iter())
    for block in doc.justext_blocks() + doc.leaf_blocks():
        assert block.element in elements


def test_extraction_does_not_modify_the_selector_tree():
    html = (
        "<html><head><script>var a = 1;</script><style>p{}</style></head><body>"
        "<div hidden>hidden text</div><p style='display:none'>invisible</p>"
        "<noscript>enable js</noscript><!-- a comment --><form><p>in form</p></form>"
        f"{ARTICLE}</body></html>"
    )
    sel = Selector(text=html)
    before = etree.tostring(sel.root, encoding="unicode")
    for method in ("justext", "cnr"):
        extract(sel, method)
        extract(sel, method, **({"reference_compat": True} if method == "justext" else {}))
    doc = parse(sel)
    doc.leaf_blocks()
    doc.collapsed_dom()
    doc.justext_blocks("reference")
    assert etree.tostring(sel.root, encoding="unicode") == before
    # the selector still works as before
    assert sel.xpath("//div[@hidden]/text()").get() == "hidden text"
    assert sel.css("noscript::text").get() == "enable js"


def test_scrapy_html_response_selector():
    scrapy_http = pytest.importorskip("scrapy.http")
    response = scrapy_http.HtmlResponse(
        "https://example.com/article", body=ARTICLE.encode("utf-8"), encoding="utf-8"
    )
    doc = parse(response.selector)
    assert doc.root is response.selector.root
    r = extract(response.selector, url=response.url)
    assert r.url == "https://example.com/article"
    assert r.main_text.startswith("The harbour of the town")


def test_scrapy_response_in_a_legacy_encoding():
    scrapy_http = pytest.importorskip("scrapy.http")
    body = meta_page("windows-1251", "Новости дня").encode("cp1251")
    response = scrapy_http.HtmlResponse("https://example.com/", body=body)
    assert block_texts(parse(response.selector)) == ["Новости дня"]


def test_lxml_element_and_element_tree():
    root = lxml.html.document_fromstring(ARTICLE)
    assert parse(root).root is root
    assert parse(root.getroottree()).root is root
    body = root.find("body")
    assert parse(body).root is root  # any element: the whole page is used
    assert block_texts(parse(root)) == block_texts(parse(ARTICLE))


def test_lxml_fragment_element():
    frag = lxml.html.fragment_fromstring("<div><p>one</p><p>two</p></div>")
    assert block_texts(parse(frag)) == ["one", "two"]


def test_namespaced_xhtml_tree_is_segmented_like_html():
    root = etree.fromstring(
        b'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>one</p><p>two</p></body></html>'
    )
    assert block_texts(parse(root)) == ["one", "two"]


def test_document_passes_through_parse_and_extract():
    doc = parse(ARTICLE)
    assert parse(doc) is doc
    blocks = doc.justext_blocks()
    same = extract(ARTICLE, "justext", language="en").main_text
    assert extract(doc, "justext", language="en").main_text == same
    assert doc.justext_blocks() is blocks  # segmentation computed once
    sections = doc.section_blocks()  # the default's (auto's) segmentation
    assert extract(doc).main_text == extract(ARTICLE).main_text
    assert doc.section_blocks() is sections


def test_unsupported_type_raises_type_error():
    with pytest.raises(TypeError):
        parse(12345)


# ---------------------------------------------------------------------------------------------
# Cleaning: what never is page text

HIDDEN_PAGE = (
    "<html><head><title>HEADTITLE</title><style>STYLEHEAD{}</style></head><body>"
    "<p>visible one</p>"
    "<script>SCRIPTTEXT()</script><style>.STYLEBODY{}</style>"
    "<noscript>NOSCRIPTTEXT</noscript><!-- COMMENTTEXT -->"
    "<div hidden>HIDDENATTR</div>"
    "<div style='color:red; display : none'>DISPLAYNONE</div>"
    "<span style='VISIBILITY:hidden'>VISHIDDEN</span>"
    "<input type='hidden' name='csrf' value='INPUTHIDDEN'>"
    "<div type='Hidden'>TYPEHIDDEN</div>"
    "<template>TEMPLATETEXT</template>"
    "<p>visible <!-- INLINECOMMENT -->two<script>INLINESCRIPT</script> three</p>"
    "</body></html>"
)
SECRETS = [
    "HEADTITLE",
    "STYLEHEAD",
    "SCRIPTTEXT",
    "STYLEBODY",
    "NOSCRIPTTEXT",
    "COMMENTTEXT",
    "HIDDENATTR",
    "DISPLAYNONE",
    "VISHIDDEN",
    "INPUTHIDDEN",
    "TYPEHIDDEN",
    "TEMPLATETEXT",
    "INLINECOMMENT",
    "INLINESCRIPT",
]


def test_cleaning_removes_invisible_text_from_every_segmentation():
    doc = parse(HIDDEN_PAGE)
    assert block_texts(doc) == ["visible one", "visible two three"]
    assert [b.text for b in doc.leaf_blocks()] == ["visible one", "visible", "two", "three"]
    assert [t.strip() for _, t in doc.iter_text()] == ["visible one", "visible", "two", "three"]


@pytest.mark.parametrize("method", ["justext", "cnr", "web2text"])
def test_cleaning_applies_to_every_extractor(method):
    r = extract(HIDDEN_PAGE, method)
    every_text = r.main_text + "\n".join(b.text for b in r.blocks)
    for secret in SECRETS:
        assert secret not in every_text


def test_a_noscript_holding_the_page_is_kept_and_a_short_one_removed():
    post = "A forum post written for readers without JavaScript, long enough to matter. " * 8
    page = (
        "<html><body><noscript><img src='pixel.gif'>Please enable JavaScript.</noscript>"
        f"<noscript><div id='main'><p>{post}</p><script>var x = 1;</script></div></noscript>"
        "</body></html>"
    )
    doc = parse(page)
    texts = [b.text for b in doc.leaf_blocks()]
    assert texts == [post.strip()]  # the long one stays, its script does not
    assert "Please enable JavaScript." not in " ".join(b.text for b in doc.justext_blocks())


def test_react_streamed_content_is_kept_other_hidden_elements_are_not():
    page = (
        "<html><body><div id='root'>shell</div>"
        "<div hidden id='S:0'><p>Streamed article text.</p></div>"
        "<div hidden id='S:x'><p>Not a streamed boundary.</p></div>"
        "<div hidden><p>Plain hidden text.</p></div></body></html>"
    )
    texts = [b.text for b in parse(page).leaf_blocks()]
    assert texts == ["shell", "Streamed article text."]


def test_hidden_elements_are_in_removed():
    doc = parse(HIDDEN_PAGE)
    removed_tags = sorted(el.tag for el in doc.removed)
    assert removed_tags == sorted(
        [
            "head",
            "style",
            "script",
            "style",
            "noscript",
            "div",
            "div",
            "span",
            "input",
            "div",
            "template",
            "script",
        ]
    )
    assert all(doc.is_removed(el) for el in doc.removed)
    assert not doc.is_removed(doc.body)


def test_style_without_hiding_is_kept():
    doc = parse(
        "<p style='display:block; color: red'>shown</p>"
        "<p style='visibility: visible'>also shown</p>"
    )
    assert block_texts(doc) == ["shown", "also shown"]


def test_tail_text_after_a_removed_element_is_kept():
    doc = parse("<p>before<span hidden>gone</span> after</p>")
    assert block_texts(doc) == ["before after"]
    assert [b.text for b in doc.leaf_blocks()] == ["before", "after"]


# ---------------------------------------------------------------------------------------------
# jusText blocks: text, xpath, tag path, link density, index, start


def test_justext_blocks_know_where_they_are():
    html = (
        "<html><body><div><p>first para</p><p>second <a href='#'>link</a></p></div>"
        "<ul><li>item one</li><li>item two</li></ul>text in body</body></html>"
    )
    doc = parse(html)
    blocks = doc.justext_blocks()
    assert [(b.text, b.xpath, b.tag_path, b.tag) for b in blocks] == [
        ("first para", "/html[1]/body[1]/div[1]/p[1]", "html.body.div.p", "p"),
        ("second link", "/html[1]/body[1]/div[1]/p[2]", "html.body.div.p", "p"),
        ("item one", "/html[1]/body[1]/ul[1]/li[1]", "html.body.ul.li", "li"),
        ("item two", "/html[1]/body[1]/ul[1]/li[2]", "html.body.ul.li", "li"),
        ("text in body", "/html[1]/body[1]", "html.body", "body"),
    ]
    assert [b.link_density for b in blocks] == [0.0, 4 / 11, 0.0, 0.0, 0.0]
    assert [b.index for b in blocks] == [0, 1, 2, 3, 4]
    joined = "\n\n".join(b.text for b in blocks)
    for b in blocks:
        assert doc.root.xpath(b.xpath) == [b.element]
        assert joined[b.start : b.start + len(b.text)] == b.text


def test_xpath_positions_count_removed_siblings():
    doc = parse("<body><p hidden>gone</p><script>x</script><p>kept</p></body>")
    [block] = doc.justext_blocks()
    assert block.xpath == "/html[1]/body[1]/p[2]"
    assert doc.root.xpath(block.xpath) == [block.element]


def test_link_density_is_between_0_and_1_even_with_spaces_inside_links():
    doc = parse("<p><a href='#'>  spaced   link  </a></p><p>x<a href='#'> y </a></p>")
    for b in doc.justext_blocks():
        assert 0.0 <= b.link_density <= 1.0
    assert [b.link_density for b in doc.justext_blocks()] == [1.0, 1.0]


def test_justext_blocks_of_br_split_point_to_the_second_br():
    doc = parse("<p>one<br><br>two</p>")
    first, second = doc.justext_blocks()
    assert (first.xpath, second.xpath) == ("/html[1]/body[1]/p[1]", "/html[1]/body[1]/p[1]/br[2]")
    assert doc.root.xpath(second.xpath) == [second.element]


# ---------------------------------------------------------------------------------------------
# DOM-leaf blocks (Web2Text 3.2)


def test_leaf_blocks_one_per_text_node_in_document_order():
    doc = parse(
        "<div>Hello <a href='#'>world</a> and <b>more <i>deep</i></b> text</div>"
        "<p>  spaced\n  out  </p>"
    )
    leaves = doc.leaf_blocks()
    assert [(b.text, b.tag, b.link_chars) for b in leaves] == [
        ("Hello", "div", 0),
        ("world", "a", 5),  # link text is a block of its own, all of it link
        ("and", "div", 0),  # the tail of <a> belongs to its parent
        ("more", "b", 0),
        ("deep", "i", 0),
        ("text", "div", 0),
        ("spaced out", "p", 0),
    ]
    assert [b.index for b in leaves] == list(range(7))
    joined = " ".join(b.text for b in leaves)
    for b in leaves:
        assert joined[b.start : b.start + len(b.text)] == b.text
        assert doc.root.xpath(b.xpath) == [b.element]


def test_leaf_blocks_leave_out_drop_down_lists_and_a_stray_title():
    """As the Web2Text authors' Collapsed DOM: no block in a ``<select>`` or a ``<title>``
    of the body; jusText's segmentation keeps the list (its pre-processing marks it bad)."""
    doc = parse(
        "<body><p>one</p><select><option>Alpha</option><option>Beta</option></select>tail"
        "<title>stray</title><p>two</p></body>"
    )
    assert [b.text for b in doc.leaf_blocks()] == ["one", "tail", "two"]
    assert [n.block for n in cdom_leaves(doc.collapsed_dom())] == doc.leaf_blocks()
    assert any("Alpha" in b.text for b in doc.justext_blocks())


def test_leaf_blocks_skip_blank_text_nodes():
    doc = parse("<div>\n  <p>a</p>\n  <p> </p>\n</div>")
    assert [b.text for b in doc.leaf_blocks()] == ["a"]


def test_leaf_block_xpaths_of_prefixed_tags_evaluate():
    doc = parse("<p>Meet me in <st1:place>Paris</st1:place></p><div><o:p>Word text</o:p></div>")
    for b in doc.leaf_blocks():
        assert doc.root.xpath(b.xpath) == [b.element]


def test_justext_block_xpath_below_a_prefixed_tag_evaluates():
    doc = parse("<st1:section><p>inside a prefixed element</p></st1:section>")
    [block] = doc.justext_blocks()
    assert doc.root.xpath(block.xpath) == [block.element]


# ---------------------------------------------------------------------------------------------
# The Collapsed DOM (Web2Text 3.1)


def cdom_leaves(node: CNode) -> list[CNode]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if n.block is not None:
            out.append(n)
        todo.extend(reversed(n.children))
    return out


def test_single_child_chains_are_merged():
    doc = parse("<html><body><div><div><p>x</p></div></div><p>y</p></body></html>")
    root = doc.collapsed_dom()
    assert root.tags == ["html", "body"]
    assert [kid.tags for kid in root.children] == [["div", "div", "p", "#text"], ["p", "#text"]]
    chain = root.children[0]
    assert chain.tag == "#text"
    assert [el.tag for el in chain.elements] == ["div", "div", "p"]
    assert chain.block.text == "x"
    assert chain.parent is root and chain.depth == 1


def test_whole_page_chain_is_one_node():
    root = parse("<html><body><div><div><p>x</p></div></div></body></html>").collapsed_dom()
    assert root.tags == ["html", "body", "div", "div", "p", "#text"]
    assert root.children == []


def test_collapsed_dom_drops_empty_and_removed_elements():
    doc = parse(
        "<body><div><span></span><p>x</p><script>s</script><div hidden>h</div></div>"
        "<img src='a.png'><p>y <b>z</b></p></body>"
    )
    root = doc.collapsed_dom()
    assert [kid.tags for kid in root.children] == [["div", "p", "#text"], ["p"]]
    mixed = root.children[1]
    assert [kid.tags for kid in mixed.children] == [["#text"], ["b", "#text"]]


def test_collapsed_dom_leaves_are_the_leaf_blocks_in_order():
    doc = parse(
        "<div>a<p>b <i>c</i> d</p><ul><li><a href='#'>e</a></li><li>f</li></ul></div>"
        "<table><tr><td>g</td><td><div><span>h</span></div></td></tr></table>i"
    )
    leaves = cdom_leaves(doc.collapsed_dom())
    blocks = doc.leaf_blocks()
    assert [n.block for n in leaves] == blocks
    assert [b.text for b in blocks] == list("abcdefghi")
    assert all(b.extra == {} for b in blocks)  # (made when first read)


# ---------------------------------------------------------------------------------------------
# Declared language and empty reasons


def test_declared_language_from_html_lang():
    assert parse('<html lang="de-AT"><body><p>x</p></body></html>').declared_language == "de-AT"
    assert parse('<html xml:lang="fr"><body><p>x</p></body></html>').declared_language == "fr"


def test_declared_language_from_content_language_meta():
    html = (
        '<html><head><meta http-equiv="Content-Language" content="fr, en"></head>'
        "<body><p>x</p></body></html>"
    )
    assert parse(html).declared_language == "fr"


def test_html_lang_wins_over_meta():
    html = (
        '<html lang="es"><head><meta http-equiv="content-language" content="fr"></head>'
        "<body><p>x</p></body></html>"
    )
    assert parse(html).declared_language == "es"


def test_no_declared_language():
    assert parse("<p>x</p>").declared_language is None
    assert parse('<html lang="  "><body><p>x</p></body></html>').declared_language is None


def test_declared_language_from_a_selector():
    sel = Selector(text='<html lang="pt-BR"><body><p>x</p></body></html>')
    assert parse(sel).declared_language == "pt-BR"


def test_empty_reason():
    assert parse("<html><body><p>x</p></body></html>").empty_reason() == "no-text"
    assert parse("<html><frameset><frame src='a'></frameset></html>").empty_reason() == "frameset"
    deep = parse("<div>" * 3000 + "x" + "</div>" * 3000)
    assert deep.empty_reason() == "too-deep"


def test_text_length_counts_visible_text_only():
    assert parse("<p>abc <b>de</b></p><script>xxxxxxxx</script>").text_length() == len("abcde")


@pytest.mark.parametrize(
    "html",
    [
        "hello",
        "</p>x</p>x</p>x",
        "x</html>y</body>z</head>w</p>v",
        "<title>a</title>b</p>c</p>d",
        "<table>x<tr>y<td>z</table>",
        "<frameset>x</frameset>y",
        "<select>a<option>b<optgroup>c",
        "<dd>a<dt>b" * 3,
        "<p/>" * 5,
        "<html><head></head><body></body></html>",
    ],
)
def test_elements_within_the_tag_bound(html: str) -> None:
    # parse skips counting the elements when 2 x '<' + 8 is within max_nodes: libxml2
    # makes one element per start tag and adds at most html, head and body.
    from scrapy_boilerplate.core.document import _COUNT_ELEMENTS, _surely_within

    root = parse(html, max_nodes=0).root
    elements = int(_COUNT_ELEMENTS(root))
    assert elements <= html.count("<") + 3  # half the margin that _surely_within takes
    assert _surely_within(html.count("<"), 2 * html.count("<") + 8)
    assert not _surely_within(html.count("<"), 2 * html.count("<") + 7)


@given(pages)
@example(" ")
@example("<!-- COMMENTMARK the -->")
@SETTINGS
def test_generated_pages_within_the_tag_bound(html: str) -> None:
    from scrapy_boilerplate.core.document import _COUNT_ELEMENTS
    from scrapy_boilerplate.core.errors import UnsupportedInput

    try:
        doc = parse(html, max_nodes=0)
    except UnsupportedInput as exc:  # " " or a lone comment: no tree, nothing to count
        assert exc.reason == "empty"
        return
    assert int(_COUNT_ELEMENTS(doc.root)) <= html.count("<") + 3


def test_element_limit_when_the_tags_do_not_settle_it() -> None:
    from scrapy_boilerplate.core.errors import UnsupportedInput

    html = "<html><body>" + "<p>x</p>" * 10 + "</body></html>"  # 12 elements, 24 '<'
    assert len(parse(html, max_nodes=12).root.xpath("//p")) == 10
    for html_in in (html, html.encode()):
        with pytest.raises(UnsupportedInput) as info:
            parse(html_in, max_nodes=11)
        assert info.value.reason == "too-many-nodes"


def test_section_blocks_split_at_html5_sections() -> None:
    """jusText's own segmentation runs a ``<footer>`` or ``<nav>`` into the text beside it
    (HTML5 came after it); ``section_blocks`` starts a paragraph at each, and leaves
    ``justext_blocks`` as it was."""
    html = (
        "<body><main>lead<article>story text</article></main>"
        "<footer>about us</footer>tail<nav>home</nav></body>"
    )
    doc = parse(html)
    assert [(b.text, b.tag) for b in doc.section_blocks()] == [
        ("lead", "main"),
        ("story text", "article"),
        ("about us", "footer"),
        ("tail", "body"),
        ("home", "nav"),
    ]
    assert [b.text for b in doc.justext_blocks()] == ["leadstory textabout ustailhome"]


def test_element_xpath_writes_what_the_walk_writes():
    """``element_xpath`` of a block's element is the block's own xpath (every step indexed
    among the siblings of the same name; comments do not count)."""
    from scrapy_boilerplate.core.document import element_xpath

    html = (
        "<html><body><div><!-- c --><p>one</p><div><p>two</p></div><p>three <b>x</b></p>"
        "</div><section><p>four</p></section></body></html>"
    )
    doc = parse(html)
    blocks = doc.section_blocks()
    assert len(blocks) >= 4
    for block in blocks:
        assert element_xpath(block.element) == block.xpath
    assert element_xpath(doc.root) == "/html[1]"


def test_the_collapsed_dom_is_freed_without_the_garbage_collector():
    """A node's parent is held weakly (the tree is held from its root): parent links held
    strongly would make the tree a reference cycle, and the page (its lxml tree too)
    would wait for Python's cyclic collector. Freed by reference counting alone."""
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        doc = parse("<html><body><div><p>one</p><p>two <b>three</b></p></div></body></html>")
        root = doc.collapsed_dom()
        leaf = cdom_leaves(root)[-1]
        assert leaf.parent is not None and leaf in leaf.parent.children
        assert root.parent is None
        assert leaf.depth == leaf.parent.depth + 1
        node, page = weakref.ref(leaf), weakref.ref(doc)
        del doc, root, leaf
        assert node() is None and page() is None
    finally:
        gc.enable()
