"""Gold content / boilerplate blocks for the block score of :mod:`.metrics`.

- **google-trends-2017**, **l3s-gn1**: one gold block per line of ``<id>.blocks.jsonl`` (a
  text leaf / text run of the annotated page, in page order). google-trends labels are used
  as they are; its 14 ``unlabelled`` leaves are dropped. l3s-gn1 labels headline, fulltext
  and supplemental count as content (the convention of its ``.txt`` gold and of Bevendorff
  et al. 2023); related-content, comments and not-content count as boilerplate.
- **cleaneval**: ``<id>.aligned.txt`` is Web2Text's character alignment of the gold onto the
  page: the page *source* with every character that is not in the gold replaced by ``□``.
  Each maximal run of kept non-space characters is located in the HTML source in order (at
  its own offset shifted by the drift seen so far, else at the nearest exact occurrence after
  the previous run, at most 16 characters per character of the run away (2,000 at most), so
  that a short word cannot jump far; offsets drift where the alignment dropped source
  characters or Web2Text decoded the page differently); a run not found is dropped. The
  source is then cut into text blocks at block-level tags (``p``, ``div``, ``td``, ``li``,
  ``br``, headings ...), outside ``head``, ``script``, ``style``, ``noscript``, ``template``
  and comments; a block is **gold content when more than half of its non-space source
  characters are gold characters**, following the dataset README.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from dataclasses import dataclass
from pathlib import Path

BOX = "\u25a1"
L3S_CONTENT = frozenset({"headline", "fulltext", "supplemental"})

_BLOCK_TAG_NAMES = (
    "address article aside blockquote body br caption center dd details dialog dir div dl "
    "dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 header hr "
    "html iframe legend li main menu nav ol optgroup option p pre section select summary "
    "table tbody td textarea tfoot th thead tr ul"
)
_BLOCK_TAGS = frozenset(_BLOCK_TAG_NAMES.split())
_SKIP_RE = re.compile(
    r"<!--.*?-->|<(head|script|style|noscript|template)\b.*?</\1\s*>|<![^>]*>|<\?.*?\?>",
    re.S | re.I,
)
_TAG_RE = re.compile(r"</?([a-zA-Z][a-zA-Z0-9:-]*)[^>]*>")
_RUN_RE = re.compile(rf"[^{BOX}\s]+")
_WS_RE = re.compile(r"\s+")
_DRIFT = 2000
_SLACK = 16


@dataclass(frozen=True)
class GoldBlock:
    """One gold text block of a page and whether it is main content."""

    text: str
    content: bool


def read_blocks_jsonl(path: Path, content_labels: frozenset[str]) -> list[GoldBlock]:
    """Blocks of a ``.blocks.jsonl`` file; labels in ``content_labels`` are content.

    Records labelled ``unlabelled`` are dropped.
    """
    blocks = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                if rec["label"] != "unlabelled":
                    blocks.append(GoldBlock(rec["text"], rec["label"] in content_labels))
    return blocks


def _nearest(source: str, piece: str, expected: int, pos: int) -> int:
    """Offset of ``piece`` in ``source`` at or after ``pos`` nearest to ``expected``, or -1."""
    expected = max(expected, pos)
    window = min(_DRIFT, _SLACK * len(piece))
    after = source.find(piece, expected, expected + len(piece) + window)
    if after == expected:
        return after
    before = source.rfind(piece, max(pos, expected - window), expected + len(piece) - 1)
    if before < 0 or (after >= 0 and after - expected <= expected - before):
        return after
    return before


def gold_mask(source: str, aligned: str) -> bytearray:
    """Per character of ``source``: 1 where the aligned file keeps a gold character."""
    mask = bytearray(len(source))
    pos = 0
    offset = 0
    for run in _RUN_RE.finditer(aligned):
        piece = run.group()
        found = _nearest(source, piece, run.start() + offset, pos)
        if found < 0:
            continue
        mask[found : found + len(piece)] = b"\x01" * len(piece)
        pos = found + len(piece)
        offset = found - run.start()
    return mask


def _segments(source: str) -> list[list[tuple[int, int]]]:
    """Text runs of the source (start, end offsets) grouped into blocks at block-level tags."""
    blocks: list[list[tuple[int, int]]] = [[]]
    skips = [(m.start(), m.end()) for m in _SKIP_RE.finditer(source)]
    cursor = 0
    for start, end in [*skips, (len(source), len(source))]:
        region_end = start
        for tag in _TAG_RE.finditer(source, cursor, region_end):
            if tag.start() > cursor:
                blocks[-1].append((cursor, tag.start()))
            if tag.group(1).lower() in _BLOCK_TAGS and blocks[-1]:
                blocks.append([])
            cursor = tag.end()
        if region_end > cursor:
            blocks[-1].append((cursor, region_end))
        if blocks[-1]:
            blocks.append([])
        cursor = max(cursor, end)
    return [b for b in blocks if b]


def cleaneval_blocks(source: str, aligned: str) -> list[GoldBlock]:
    """Gold blocks of a CleanEval page from its HTML source and its ``.aligned.txt``."""
    mask = gold_mask(source, aligned)
    out = []
    for runs in _segments(source):
        raw = "".join(source[a:b] for a, b in runs)
        text = _WS_RE.sub(" ", htmllib.unescape(raw)).strip()
        if not text:
            continue
        chars = gold = 0
        for a, b in runs:
            for k in range(a, b):
                if not source[k].isspace():
                    chars += 1
                    gold += mask[k]
        if chars:
            out.append(GoldBlock(text, gold * 2 > chars))
    return out
