"""Candidates read inside elements' text, beside the paper's predicates (section 3.1).

The paper's predicates select whole elements, so an entity that is only part of an
element's text is out of their reach: names in a sentence ("Students: Ann Lee, Bob Ray
and Cy Dee"), lines of one element separated by ``<br>``, a name with its title and
credentials ("Dr. Ann Lee, MD"). Two derivations add such lists, each marked by its
:attr:`~scrapy_boilerplate.entities.predicates.Candidate.transform` (the model learns how
much to trust it, from a feature of that name):

- ``lines`` / ``lines-head`` / ``lines-tail`` / ``split``: one element whose content is
  inline (text, links, emphasis, ``<br>``; no block element below it) read as a list:
  its lines (``<br>`` and line breaks of the text), their heads (see ``head``), what
  follows their first comma (see ``tail``), or its lines further cut at list separators
  (``,``, ``;``, ``|``, bullets, " and "); a first line that labels the others (it ends
  with a colon, or it is an emphasised first child: "<b>PC Members</b><br>...") is not
  one of them. Two more ``split`` lists come from such an element's text: the items of
  each segment between inline labels ("Program Committee: HPCA 2015, MICRO 2013
  Publications Chair: PPoPP 2010" gives the committees and the chairs apart,
  :func:`labelled_segments`), and the items of the lines below a short first line that
  names them without a colon ("Program Committee<br>PPoPP 2021, MICRO 2020, ...",
  :func:`_items_below_label`). An element whose inline content is followed by block
  elements (a paragraph after a list of names, or the next item of a list whose
  ``</li>`` the page left out) is read the same way up to its first block child: its
  :func:`leading_lines`;
- ``head``: a list of two elements or more (a paper's candidate) with each entity cut to
  its head: a leading number and a title ("Dr.", "Prof.") taken off, then cut at the
  first comma, colon, bracket or dash ("Dr. Ann Lee, MD" -> "Ann Lee");
- ``tail``: such a list whose entities all hold a comma, each read after it ("Ann Lee,
  Acme University" -> "Acme University");
- ``dates``: the dates written inside text ("the deadline is June 14, 2019", "Tue Oct 22
  (Round 2)"): of such a list whose entities each hold one date, that date of each; and of
  one element of inline content (as ``lines`` reads it) holding two dates or more, its
  dates in order (:func:`dates_in`: a month's name or abbreviation with a day, and maybe a
  year, either way round, or a numeric month / day); where the text writes a weekday
  just before a date, a second such list keeps it ("Friday October 18");
- ``address`` / ``bracket``: of such a list, the postal address inside each entity
  (:func:`addresses_in`: a street number, the street, then a city, a two-letter state and
  a postal code, as North American addresses are written: "Main Clinic 9100 SW Oleson
  Rd. Tigard, OR 97223 503-445-9066" -> "9100 SW Oleson Rd. Tigard, OR 97223"), or what
  the brackets at its end hold ("Ann Lee (Acme University)" -> "Acme University"); the
  entities without one are left out (a table's header row, a name without an
  affiliation), and at least two, and half of the list, must have one. Of one element of
  inline content holding two addresses or more, its addresses in order (``address``);
- ``first-line`` / ``head``: the elements that the paper's candidates miss because some
  of their texts are longer than 140 characters (a publication with its authors and
  venue): the children of one parent with one tag, or the grandchildren of one element
  through one parent tag (a list split over several ``<ul>``), each read as its first
  line, or that line's head;
- ``section`` (``<derivation>+section`` for a derived list): a list whose elements lie
  under several headings of the page, cut at the headings (each run of two elements or
  more under one heading, the headings themselves left out: "Current students" and
  "Alumni" selected by one predicate).
  A heading is an ``<h1>``-``<h6>``, a ``<b>`` / ``<strong>``, or a ``<p>`` / ``<div>`` /
  ``<dt>`` whose only content is one of those, of fewer than :data:`MAX_HEADING`
  characters and :data:`MAX_HEADING_ELEMENTS` elements (so that nested bold elements
  cost no more than a bounded read each).

Every derived entity is cleaned the same way (:func:`clean_entity`), and none is read
inside a script, a style sheet or another :data:`~.pageindex.HIDDEN` element. The work is
bounded:
elements with more than :data:`MAX_TEXT` characters of text are skipped (up to
:data:`LONG_LINES_TEXT` for a list of short lines written with ``<br>``), and at most
:data:`MAX_DERIVED` candidates are made per page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.metadata import MONTHS
from scrapy_boilerplate.entities.features import string_cache
from scrapy_boilerplate.entities.pageindex import HIDDEN, PageIndex, tag_of, text_of
from scrapy_boilerplate.entities.predicates import ANY, Candidate, path_of, short_text

MAX_TEXT = 1000
MAX_DERIVED = 3000
MAX_CHARS = 140
LONG_TEXT = 2000
MAX_GROUPS = 500
LONG_LINES_TEXT = 20000
MIN_BREAKS = 5
MAX_HEADING = 80
MAX_HEADING_ELEMENTS = 16

#: Elements that may be inside a ``lines`` / ``split`` element (inline content).
INLINE = frozenset(
    ("a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "font",
     "i", "img", "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub",
     "sup", "time", "tt", "u", "var", "wbr", "#")
)  # fmt: skip
_BREAKS = frozenset(("br", "hr"))
_SECTION_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_BOLD = frozenset(("b", "strong"))
_HEADING_BLOCKS = frozenset(("p", "div", "dt"))
#: The tags :func:`_is_heading` may accept (any other element is no heading).
_HEADING_TAGS = _SECTION_HEADINGS | _BOLD | _HEADING_BLOCKS
_SEPARATORS = re.compile(r"\s*(?:[,;|\u2022\u00b7\u25aa\u25cf]|\s(?:and|&)\s)\s*")
_HEAD_CUT = re.compile(r"[,:]\s|\s[(\[]|\s[\u2013\u2014-]\s|\s\|\s|[(\[]")
_NUMBERING = re.compile(r"^(?:\(?\d{1,4}[.)]|[\u2022\u00b7\u25aa\u25cf*-])\s+")
_TITLES = re.compile(r"^(?:dr|prof|professor|mr|mrs|ms|miss)\.?\s+", re.IGNORECASE)
_LABEL = re.compile(r"^[^:]{1,40}:\s+(?=\S)")
_NBSP = re.compile(r"&nbsp;?", re.IGNORECASE)  # (an entity left unparsed by the page)
_EDGES = re.compile(r"^[\s,;:.\u2013\u2014-]+|[\s,;:\u2013\u2014-]+$")
#: A label inside a text: one to four capitalised words and a colon, at the text's start or
#: after a space ("... CATARS 2009 Publications Chair: PPoPP 2010"). Capitalised words just
#: before it are read as part of it ("Ann Lee, Bob Ray Chair:" labels with "Bob Ray Chair").
_DAY = r"(?:[12][0-9]|3[01]|0?[1-9])(?:st|nd|rd|th)?"
#: A date inside text: "June 14, 2019", "Oct 22", "14 June 2019", "1st of May", "12/10"
#: (month / day, then maybe a year); not a weekday, a time or a range's second end.
_DATE = re.compile(
    rf"\b(?:{MONTHS}\s+{_DAY}(?:,?\s+\d{{4}})?|{_DAY}\s+(?:of\s+)?{MONTHS}(?:,?\s+\d{{4}})?"
    r"|(?:1[0-2]|0?[1-9])/(?:[12][0-9]|3[01]|0?[1-9])(?:/\d{2}(?:\d{2})?)?)(?![\w/])",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
#: A weekday written just before a date ("Friday October 18", "Mon, Feb. 10"), read with
#: it by the second ``dates`` reading.
_WEEKDAY = re.compile(
    r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+$", re.IGNORECASE
)
_POSTAL = re.compile(r"[A-Z]{2}\.?\s+\d{5}")  # (a quick test before :data:`_ADDRESS`)
#: A postal address written as North America's are: a street number, the street (at most
#: 100 characters), then a city, a two-letter state or province and a postal code ("9675
#: Brighton Way, Suite 100 Beverly Hills, CA 90210"); the street number is not part of a
#: phone number or a date (no digit, dash, slash or bracket just before it).
_ADDRESS = re.compile(
    r"(?<![\w.,/()-])\d{1,6}[A-Za-z]?\s+[^\n]{2,100}?[,\s]\s*"
    r"[A-Z][A-Za-z.'-]*(?:\s+[A-Z][A-Za-z.'-]*){0,3}\s*,\s*[A-Z]{2}\.?\s+\d{5}(?:-\d{4})?(?!\d)"
)
_INLINE_LABEL = re.compile(r"(?:^|(?<=\s))(?:[A-Z][\w&'/-]*\s){0,3}[A-Z][\w&'/-]*:\s+(?=\S)")
#: The longest first line (characters, words) taken for the name of the lines below it.
MAX_LABEL = 40
MAX_LABEL_WORDS = 5


def clean_entity(text: str, label: bool = True) -> str:
    """``text`` without a leading number or bullet, a leading title ("Dr.", "Prof.") and,
    when ``label``, a short leading label ("Students: Ann Lee" -> "Ann Lee"), whitespace
    collapsed and separators at its edges taken off (cached: a page's lists share their
    strings)."""
    return _clean_labelled(text) if label else _clean_bare(text)


def _clean(text: str, label: bool) -> str:
    text = " ".join(_NBSP.sub(" ", text).split())
    text = _NUMBERING.sub("", text)
    if label:
        text = _LABEL.sub("", text)
    text = _TITLES.sub("", text)
    if text.lower().startswith("and "):
        text = text[4:]
    return _EDGES.sub("", text)


_clean_labelled = string_cache(partial(_clean, label=True))
_clean_bare = string_cache(partial(_clean, label=False))


@string_cache  # (a page's lists share their strings)
def head_of(text: str) -> str:
    """The head of an entity: :func:`clean_entity` (no label taken off), then cut at the
    first comma, colon, bracket or spaced dash ("Dr. Ann Lee, MD" -> "Ann Lee"; "Ann Lee:
    parsing (PhD 2010)" -> "Ann Lee")."""
    text = clean_entity(text, label=False)
    m = _HEAD_CUT.search(text)
    if m and m.start() > 0:
        text = text[: m.start()]
    return _EDGES.sub("", text)


@string_cache  # (a page's lists share their strings)
def tail_of(text: str) -> str:
    """What follows the first comma of an entity, :func:`clean_entity` (a name's
    affiliation: "Ann Lee, Acme University" -> "Acme University"); ``""`` without one."""
    head, sep, tail = " ".join(text.split()).partition(", ")
    return clean_entity(tail, label=False) if sep and head else ""


def dates_in(text: str, weekday: bool = False) -> tuple[str, ...]:
    """The dates written in ``text``, in order, whitespace collapsed (see :data:`_DATE`):
    "deadlines: Tue July 16 (Round 1), Tue Oct 22 (Round 2)" -> ``("July 16", "Oct
    22")``; with ``weekday``, each with the weekday written just before it, if any
    (``("Tue July 16", "Tue Oct 22")``)."""
    if _DIGIT.search(text) is None:
        return ()
    out = []
    for m in _DATE.finditer(text):
        start = m.start()
        if weekday:
            day = _WEEKDAY.search(text, max(0, start - 12), start)
            if day is not None:
                start = day.start()
        out.append(" ".join(text[start : m.end()].split()))
    return tuple(out)


@string_cache  # (a page's lists share their strings)
def _one_date(text: str) -> str:
    """The one date of ``text`` (:func:`dates_in`); ``""`` for none or several."""
    found = dates_in(text)
    return found[0] if len(found) == 1 else ""


@string_cache  # (a page's lists share their strings)
def _one_day(text: str) -> str:
    """The one date of ``text`` with its weekday, if written (:func:`dates_in`);
    ``""`` for none or several."""
    found = dates_in(text, weekday=True)
    return found[0] if len(found) == 1 else ""


def addresses_in(text: str) -> tuple[str, ...]:
    """The postal addresses written in ``text``, in order, whitespace collapsed (see
    :data:`_ADDRESS`): "Main Clinic 9100 SW Oleson Rd. Tigard, OR 97223 503-445-9066" ->
    ``("9100 SW Oleson Rd. Tigard, OR 97223",)``."""
    if _POSTAL.search(text) is None:
        return ()
    return tuple(" ".join(m.group(0).split()) for m in _ADDRESS.finditer(text))


@string_cache  # (a page's lists share their strings)
def _one_address(text: str) -> str:
    """The one postal address of ``text`` (:func:`addresses_in`); ``""`` for none or
    several."""
    found = addresses_in(text)
    return found[0] if len(found) == 1 else ""


_BRACKETED = re.compile(r"\S\s*\(([^()]{2,100})\)[\s.,;]*$")


@string_cache  # (a page's lists share their strings)
def _bracketed(text: str) -> str:
    """What the brackets at the end of ``text`` hold, after some text ("Ann Lee (Acme
    University)" -> "Acme University"); ``""`` without them."""
    m = _BRACKETED.search(text) if text.endswith((")", ").", "),", ");")) else None
    return clean_entity(m.group(1), label=False) if m else ""


def lines_of(el: Any, max_text: int = MAX_TEXT) -> list[str] | None:
    """The lines of an element's text: split at ``<br>`` / ``<hr>`` and at line breaks of
    the text itself, the text of :data:`~.pageindex.HIDDEN` elements (scripts, style
    sheets) left out; None when its text is longer than ``max_text`` characters."""
    lines: list[list[str]] = [[]]
    size = 0
    stack: list[tuple[Any, bool]] = [(el, False)]
    while stack:
        node, tail = stack.pop()
        text = node.tail if tail else node.text
        if not tail and isinstance(node.tag, str) and tag_of(node) in _BREAKS:
            lines.append([])
        elif not tail and isinstance(node.tag, str) and tag_of(node) in HIDDEN:
            continue  # (its tail is read: the parent pushed it)
        elif not tail and isinstance(node.tag, str):
            if text:
                lines[-1].append(text)
                size += len(text)
                if size > max_text:
                    return None
            for child in reversed(node):
                stack.append((child, True))
                stack.append((child, False))
            continue
        if tail and text and node is not el:
            lines[-1].append(text)
            size += len(text)
        if size > max_text:
            return None
    out: list[str] = []
    for parts in lines:
        out.extend(line for line in "".join(parts).split("\n") if line.strip())
    return out


def _unbroken_lines(el: Any, max_text: int) -> list[str] | None:
    """:func:`lines_of` for an element without ``<br>`` / ``<hr>`` below it (the caller
    knows: :func:`_unbroken`): the same lines, its text read in one call (the
    element's text and its descendants' texts and tails, no comment's, as
    :func:`lines_of` reads them)."""
    text = "".join(el.itertext())
    if len(text) > max_text:
        return None
    return [line for line in text.split("\n") if line.strip()]


def _list_lines(el: Any) -> list[str] | None:
    """:func:`lines_of` ``el``, up to :data:`MAX_TEXT` characters; past that, up to
    :data:`LONG_LINES_TEXT`, only for a list written with ``<br>`` (at least
    :data:`MIN_BREAKS` of them, lines of :data:`MAX_CHARS` characters at most on average:
    a committee of a hundred names in one paragraph), not prose."""
    lines = lines_of(el)
    if lines is not None:
        return lines
    breaks = sum(1 for _ in el.iter("br"))
    if breaks < MIN_BREAKS:
        return None
    lines = lines_of(el, LONG_LINES_TEXT)
    if not lines or sum(map(len, lines)) > MAX_CHARS * len(lines):
        return None
    return lines


def _items(lines: Sequence[str], label: bool = True) -> list[str]:
    """The items of ``lines`` cut at list separators, each cleaned (:func:`clean_entity`;
    with ``label``, a leading label taken off the first item of a line), separators alone
    left out."""
    parts = [clean_entity(p, label=label and j == 0) for line in lines
             for j, p in enumerate(_SEPARATORS.split(line))]  # fmt: skip
    return [x for x in parts if _wordy(x)]


def labelled_segments(lines: Sequence[str]) -> list[list[str]]:
    """The items of each segment of ``lines`` (one text, lines kept) that inline labels
    cut ("Program Committee: A, B Publications Chair: C" -> ``[["A", "B"], ["C"]]``, less
    the segments of fewer than two items); nothing when the only label opens the text, as
    the ``split`` list already reads it."""
    text = "\n".join(lines)
    marks = list(_INLINE_LABEL.finditer(text))
    if not marks or (len(marks) == 1 and marks[0].start() == 0):
        return []
    starts = [0] + [m.end() for m in marks]
    ends = [m.start() for m in marks] + [len(text)]
    segments = (_items(text[begin:end].split("\n"), label=False)
                for begin, end in zip(starts, ends, strict=True))  # fmt: skip
    return [items for items in segments if len(items) >= 2]


def _items_below_label(lines: Sequence[str]) -> list[str] | None:
    """The items of the lines below a first line that names them: short
    (:data:`MAX_LABEL` characters, :data:`MAX_LABEL_WORDS` words), without a digit or a
    separator, above lines that hold two separators or more ("Program Committee" above
    "PPoPP 2021, MICRO 2020, ..."); None otherwise."""
    if len(lines) < 2:
        return None
    first = lines[0].strip()
    if (
        len(first) > MAX_LABEL
        or len(first.split()) > MAX_LABEL_WORDS
        or any(ch.isdigit() for ch in first)
        or _SEPARATORS.search(first)
        or sum(len(_SEPARATORS.findall(line)) for line in lines[1:]) < 2
    ):
        return None
    return _items(lines[1:])


def leading_lines(el: Any, page: PageIndex, inline: list[bool]) -> list[str] | None:
    """The lines of ``el``'s inline content before its first block child (its text and
    its first children that are inline with everything below them, ``inline``: see
    :func:`_inline_only`), when that content holds a break or a separator and at most
    :data:`MAX_TEXT` characters; None when ``el`` has no block child or no such content."""
    pieces = [el.text or ""]
    size = len(pieces[0])
    if size > MAX_TEXT:
        return None
    for child in el:
        if isinstance(child.tag, str):
            num = page.number.get(child)
            if num is None or not inline[num] or page.tags[num] not in INLINE:
                break
            if page.tags[num] in _BREAKS:
                pieces.append("\n")
            else:
                text = "".join(child.itertext())
                pieces.append(text)
                size += len(text)
        tail = child.tail or ""
        pieces.append(tail)
        size += len(tail)
        if size > MAX_TEXT:
            return None
    else:
        return None  # (no block child: the element is inline, read as such)
    lines = [line for line in "".join(pieces).split("\n") if line.strip()]
    if not lines or (len(lines) < 2 and not _SEPARATORS.search(lines[0])):
        return None
    return lines


_EMPHASIS = frozenset(("b", "strong", "em", "u", "i"))
_WRAPPERS = frozenset(("span", "font", "small"))


def _label_line(el: Any, line: str) -> bool:
    """Whether ``line``, the first line of ``el``, labels the lines below it rather than
    being one of them: it ends with a colon ("Current Students:"), or it is all the text
    of an emphasised first child, maybe inside a wrapper such as ``<span>`` ("<b>PC
    Members</b><br>Ann Lee<br>...")."""
    text = line.strip()
    if text.endswith(":"):
        return True
    node = el
    for _ in range(4):  # (through wrappers: <p><span><b>PC Members</b><br>...)
        if (node.text or "").strip() or not len(node) or not isinstance(node[0].tag, str):
            return False
        node = node[0]
        if tag_of(node) in _EMPHASIS:
            return text_of(node) == " ".join(text.split())
        if tag_of(node) not in _WRAPPERS:
            return False
    return False


def _wordy(text: str) -> bool:
    """``text`` has a letter or a digit (a separator alone is no entity)."""
    return any(ch.isalnum() for ch in text)


def _inline_only(page: PageIndex) -> list[bool]:
    """For each element of ``page``: everything below it is inline (:data:`INLINE`)."""
    return page.none_below([tag not in INLINE for tag in page.tags])


def _unbroken(page: PageIndex) -> list[bool]:
    """For each element of ``page``: no ``<br>`` / ``<hr>`` and no
    :data:`~.pageindex.HIDDEN` element below it, so that its lines are
    :func:`_unbroken_lines` (``itertext()`` reads a script's text too)."""
    return page.none_below([tag in _BREAKS or tag in HIDDEN for tag in page.tags])


def _own_pattern(page: PageIndex, i: int, root: int, memo: dict[int, Any]) -> Any:
    """Element ``i``'s own predicate (every index kept) as a pattern, its path read off
    ``page`` up to ``root`` (whose path is :func:`~.predicates.page_nodes`')."""
    chain = []
    j = i
    while j not in memo:
        chain.append(j)
        j = page.parent[j]
    path = memo[j]
    for j in reversed(chain):
        path = memo[j] = (*path, (page.tags[j], (page.local_rank[j] + 1,)))
    return path


def _long_groups(page: PageIndex, start: int) -> list[list[int]]:
    """Lists of elements the paper's candidates miss because some of their texts are too
    long: the children of one parent with one tag, and the grandchildren of one element
    through one parent tag with one tag (a list split over several ``<ul>``), when one of
    them has :data:`MAX_CHARS` characters of text or more."""
    by_parent: dict[tuple[int, str], list[int]] = {}
    by_grand: dict[tuple[int, str, str], list[int]] = {}
    parent, tags = page.parent, page.tags
    long_text = _long_texts(page, start)
    for i in range(start + 1, page.end[start]):
        p = parent[i]
        by_parent.setdefault((p, tags[i]), []).append(i)
        if p > start:
            by_grand.setdefault((parent[p], tags[p], tags[i]), []).append(i)
    out = []
    for nums in by_parent.values():
        if len(nums) >= 2 and any(long_text[i - start] for i in nums):
            out.append(nums)
    for nums in by_grand.values():
        if (
            len(nums) >= 2
            and parent[nums[0]] != parent[nums[-1]]
            and any(long_text[i - start] for i in nums)
        ):
            out.append(nums)
    out.sort()
    return out[:MAX_GROUPS]


def _long_texts(page: PageIndex, start: int) -> list[bool]:
    """For each element from ``start``: its text has at least :data:`MAX_CHARS`
    characters (the text lengths summed bottom-up: one pass, no text joined)."""
    n = page.end[start] - start
    size = [0] * n
    for i in range(page.end[start] - 1, start - 1, -1):
        el = page.elements[i]
        own = len(el.text or "") + sum(len(c.tail or "") for c in el)
        size[i - start] += own
        p = page.parent[i]
        if p >= start:
            size[p - start] += size[i - start]
    return [x >= MAX_CHARS for x in size]


def _group_pattern(page: PageIndex, nums: list[int], start: int, memo: dict[int, Any]) -> Any:
    """One pattern for a group of elements: their paths, with an index dropped (any)
    where they differ."""
    paths = [_own_pattern(page, i, start, memo) for i in nums]
    out = []
    for entries in zip(*paths, strict=False):
        tag = entries[0][0]
        same = entries.count(entries[0]) == len(entries)
        out.append(entries[0] if same else (tag, (ANY,)))
    return tuple(out)


def _root_path(root: Any) -> Any:
    """``root``'s own path as a pattern, where :func:`_own_pattern`'s walks up stop."""
    return tuple((tag, (index,)) for tag, index in path_of(root))


def group_pattern(page: PageIndex, nums: list[int], root: Any, memo: dict[int, Any]) -> Any:
    """:func:`_group_pattern` of elements ``nums`` under ``root`` (an element of ``page``);
    ``memo`` keeps the paths read, for the next call on the same page and root."""
    start = page.number[root]
    if start not in memo:
        memo[start] = _root_path(root)
    return _group_pattern(page, nums, start, memo)


def _is_heading(page: PageIndex, i: int) -> bool:
    """Whether element ``i`` opens a section (see the module's ``section``)."""
    tag = page.tags[i]
    if tag in _SECTION_HEADINGS:
        return True
    el = page.elements[i]
    if tag in _HEADING_BLOCKS:
        if len(el) != 1 or (el.text or "").strip() or (el[0].tail or "").strip():
            return False
        if tag_of(el[0]) not in _BOLD:
            return False
    elif tag not in _BOLD:
        return False
    if page.end[i] - i > MAX_HEADING_ELEMENTS:
        return False
    return short_text(el, MAX_HEADING) is not None


def sections(page: PageIndex, start: int) -> tuple[list[int], frozenset[int]]:
    """For each element from ``start`` (to the end of its subtree): the number of the
    last heading (:func:`_is_heading`) whose subtree ends before it, ``-1`` before the
    first (the elements inside a heading are in the section before it); and the
    headings' numbers."""
    out = []
    headings = []
    current = -1
    open_: list[int] = []  # headings whose subtree is not over yet, innermost last
    end = page.end
    tags = page.tags
    for i in range(start, end[start]):
        while open_ and end[open_[-1]] <= i:
            current = open_.pop()
        out.append(current)
        if tags[i] in _HEADING_TAGS and _is_heading(page, i):
            open_.append(i)
            headings.append(i)
    return out, frozenset(headings)


def _section_runs(
    cand: Candidate, page: PageIndex, section: list[int], headings: frozenset[int], start: int
) -> list[tuple[list[int], list[Any], list[str]]]:
    """``cand``'s elements cut where their section changes and at the headings among
    them: (element numbers, elements, entities) of each run of two or more; nothing for
    a list within one section."""
    nums = [page.number[node] for node in cand.nodes]
    ids = [-2 - i if i in headings else section[i - start] for i in nums]
    if len(set(ids)) == 1:
        return []
    runs = []
    first = 0
    for k in range(1, len(ids) + 1):
        if k == len(ids) or ids[k] != ids[first]:
            if k - first >= 2:
                runs.append((nums[first:k], cand.nodes[first:k], cand.entities[first:k]))
            first = k
    return runs


def _line_lists(el: Any, lines: list[str], heads: bool) -> list[tuple[str, list[str]]]:
    """The lists read off ``lines``, the lines of ``el`` (its whole inline content, or
    what comes before its first block child), each with its transform: a first line that
    labels the others left out (:func:`_label_line`), the lines, with ``heads`` their
    heads and tails too, their parts between separators, the labelled segments and the
    items below a first line that names them."""
    if len(lines) > 2 and _label_line(el, lines[0]):
        lines = lines[1:]
    cleaned = [x for x in map(clean_entity, lines) if _wordy(x)]
    out = [("lines", cleaned)]
    if heads:
        out += [("lines-head", [head_of(x) for x in cleaned]),
                ("lines-tail", [tail_of(x) for x in cleaned])]  # fmt: skip
    out.append(("split", _items(lines)))
    out += [("split", items) for items in labelled_segments(lines)]
    below = _items_below_label(lines)
    if below is not None:
        out.append(("split", below))
    text = " ".join(lines)
    dates = dates_in(text)
    if len(dates) >= 2:
        out.append(("dates", list(dates)))
        days = dates_in(text, weekday=True)
        if days != dates:
            out.append(("dates", list(days)))
    addresses = addresses_in(text)
    if len(addresses) >= 2:
        out.append(("address", list(addresses)))
    return out


def _readings_of(
    cand: Candidate,
    read: Callable[[str], str],
    page: PageIndex,
    start: int,
    memo: dict[int, Any],
) -> tuple[list[Any], list[str], Any, int, int] | None:
    """A list of elements read by ``read`` (:func:`_one_address`, :func:`_bracketed`):
    the reading of each of its entities that has one (a table's header row, a location's
    opening hours left out), as :func:`derive`'s ``add`` takes it; None when fewer than
    two, or fewer than half of them, have one."""
    found = [read(e) for e in cand.entities]
    keep = [j for j, a in enumerate(found) if a]
    if len(keep) < 2 or 2 * len(keep) < len(found):
        return None
    if len(keep) == len(found):
        return cand.nodes, found, cand.patterns, cand.count, cand.first
    nums = [page.number[cand.nodes[j]] for j in keep]
    group = _Lazy(partial(_group_pattern, page, nums, start, memo))
    return [cand.nodes[j] for j in keep], [found[j] for j in keep], group, 1, nums[0] - start


class _Lazy:
    """A list's one pattern, made when first asked for (the lists read off one element, or
    one group of elements, share it)."""

    __slots__ = ("made", "make")

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make
        self.made: list[Any] | None = None

    def __call__(self) -> list[Any]:
        if self.made is None:
            self.made = [self.make()]
        return self.made


def derive(
    candidates: Sequence[Candidate],
    page: PageIndex,
    root: Any,
    max_derived: int = MAX_DERIVED,
) -> list[Candidate]:
    """The derived candidates of the page under ``root`` (an element of ``page``):
    ``head``, ``tail``, ``dates``, ``address`` and ``bracket`` lists from ``candidates``
    (the paper's, from :func:`~.predicates.generate` on ``root``), then ``lines``,
    ``split``, ``dates`` and ``address`` lists of the elements under ``root``, then
    ``section`` runs of all of those lists; none with the entities and first node of a
    candidate already made, at most ``max_derived``."""
    seen = {(tuple(c.entities), c.first) for c in candidates}
    out: list[Candidate] = []

    def add(
        nodes: list[Any],
        entities: list[str],
        patterns: list[Any] | Callable[[], list[Any]],
        count: int,
        first: int,
        name: str,
    ) -> bool:
        """Keep the list if it is new and its entities fit; True when the cap is reached.
        ``patterns`` may be a function that makes them: a list's pattern is read off the
        page only once the list is kept (most lists read are not new)."""
        key = (tuple(entities), first)
        if key in seen or len(entities) < 2:
            return False
        if not all(entities) or any(len(e) >= MAX_CHARS for e in entities):
            return False
        seen.add(key)
        made = patterns() if callable(patterns) else patterns
        out.append(Candidate(nodes, entities, made, count, first, name))
        return len(out) >= max_derived

    start = page.number[root]
    memo: dict[int, Any] = {start: _root_path(root)}
    for cand in candidates:  # head: a paper's list, each entity cut to its head
        if len(cand.nodes) < 2:
            continue
        check()  # the page's deadline, and a point where another thread may run
        for name, read in (("head", head_of), ("tail", tail_of), ("dates", _one_date)):
            if read is not head_of and not all(map(read, cand.entities)):
                # An entity without a comma (tail) or without one date (dates) reads as "",
                # which no list keeps: the list is left at its first such entity (most
                # often its first), each entity's reading cached, instead of read whole.
                continue
            entities = [read(e) for e in cand.entities]
            if add(cand.nodes, entities, cand.patterns, cand.count, cand.first, name):
                return out
            if read is _one_date:  # the same dates with the weekdays written before them
                days = [_one_day(e) for e in cand.entities]
                if days != entities and add(
                    cand.nodes, days, cand.patterns, cand.count, cand.first, name
                ):
                    return out
        if len(cand.nodes) == len(cand.entities):
            for name, read in (("address", _one_address), ("bracket", _bracketed)):
                found = _readings_of(cand, read, page, start, memo)
                if found is not None and add(*found, name):
                    return out
    unbroken = _unbroken(page)
    hidden, _ = page.hidden_marks()
    for nums in _long_groups(page, start):  # lists of long elements: their first lines
        check()
        els = [page.elements[i] for i in nums]
        firsts = []
        for i, el in zip(nums, els, strict=True):
            reader = _unbroken_lines if unbroken[i] else lines_of
            first_lines = reader(el, LONG_TEXT) if not hidden[i] else None
            firsts.append(clean_entity(first_lines[0], label=False) if first_lines else "")
        if not all(firsts):
            continue
        first = nums[0] - start
        group = _Lazy(partial(_group_pattern, page, nums, start, memo))
        for name, entities in (("first-line", firsts), ("head", [head_of(x) for x in firsts])):
            if add(els, entities, group, 1, first, name):
                return out
    inline = _inline_only(page)
    for i in range(start, page.end[start]):
        if not inline[i] or page.tags[i] in INLINE or hidden[i]:
            continue
        check()
        el = page.elements[i]
        if unbroken[i]:
            # One line without a separator makes no list of two: skipped at once.
            lines = _unbroken_lines(el, MAX_TEXT)  # (None: longer than MAX_TEXT)
            if not lines or (len(lines) < 2 and not _SEPARATORS.search(lines[0])):
                continue
        else:
            lines = _list_lines(el)
            if not lines:
                continue
        own = _Lazy(partial(_own_pattern, page, i, start, memo))
        for name, entities in _line_lists(el, lines, heads=True):
            if add([el], entities, own, 1, i - start, name):
                return out
    tags, end = page.tags, page.end
    for i in range(start, end[start]):  # the inline content before a block child
        if (
            inline[i]
            or hidden[i]
            or i + 1 >= end[i]
            or not (inline[i + 1] and tags[i + 1] in INLINE)
        ):
            continue  # (inline, hidden, no element child, or a first one not inline)
        check()
        el = page.elements[i]
        lines = leading_lines(el, page, inline)
        if not lines:
            continue
        own = _Lazy(partial(_own_pattern, page, i, start, memo))
        for name, entities in _line_lists(el, lines, heads=False):
            if add([el], entities, own, 1, i - start, name):
                return out
    section, headings = sections(page, start)
    for cand in [*candidates, *out]:  # section: a list cut at the page's headings
        if len(cand.nodes) < 3 or len(cand.nodes) != len(cand.entities):
            continue
        check()
        name = f"{cand.transform}+section" if cand.transform else "section"
        for nums, els, entities in _section_runs(cand, page, section, headings, start):
            run = _Lazy(partial(_group_pattern, page, nums, start, memo))
            if add(els, entities, run, 1, nums[0] - start, name):
                return out
    return out


__all__ = [
    "clean_entity",
    "dates_in",
    "derive",
    "group_pattern",
    "head_of",
    "labelled_segments",
    "leading_lines",
    "lines_of",
    "sections",
    "tail_of",
]
