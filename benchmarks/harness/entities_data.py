"""Examples (query, page, gold entities) and the paper's evaluation (section 2 and 4.1).

Readers: the paper's OpenWeb JSON format (``{"options": ..., "data": [{"query", "url",
"hashcode", "entities", "criteria": {"first", "second", "last"}}, ...]}``, pages in a cache
directory named by ``hashcode``), which ../shared/data's wikitablequestions-lists also uses
(with ``page_id``), and webqa-utopia-dev's ``examples.jsonl`` (each answer item a list of
accepted strings).

A predicted list is **compatible** with an example when its first, second and last entities
match the gold criteria; two strings match when equal after normalisation or within edit
distance 2 (the release's ``TargetEntityNearMatch``). Accuracy: the top prediction is
compatible; accuracy@5: one of the top five is; oracle: any candidate is.
"""

from __future__ import annotations

import json
import re
import unicodedata
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Example:
    """One query on one page. ``criteria`` holds the accepted strings of the first, second
    and last gold entities; ``entities`` the gold list (alternatives joined to the first)."""

    id: str
    query: str
    page: Path
    criteria: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    entities: list[str] = field(default_factory=list)
    source: str = ""
    title: str = ""  # the page's title when the dataset gives it (else read from the page)

    def html(self) -> str:
        return self.page.read_text(encoding="utf-8", errors="replace")


def _page_path(folder: Path, options: dict[str, Any], row: dict[str, Any]) -> Path:
    pattern = options.get("pageFile")
    if pattern and "page_id" in row:
        return folder / pattern.format(page_id=row["page_id"])
    cache = folder / options.get("cacheDirectory", "")
    return cache / str(row.get("hashcode"))


def read_openweb(path: str | Path) -> list[Example]:
    """Examples of an OpenWeb-format JSON file (the paper's ``train.json`` / ``test.json``,
    or wikitablequestions-lists' ``lists.*.json``)."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    options = data.get("options", {})
    out = []
    for row in data["data"]:
        entities = list(row.get("entities") or [])
        crit = row.get("criteria") or {}
        if not crit and len(entities) >= 2:
            crit = {"first": entities[0], "second": entities[1], "last": entities[-1]}
        if not crit:
            continue
        out.append(
            Example(
                id=str(row.get("id") or row.get("hashcode")),
                query=row["query"],
                page=_page_path(path.parent, options, row),
                criteria=((crit["first"],), (crit["second"],), (crit["last"],)),
                entities=entities,
                source=path.stem,
                title=str(row.get("page_title") or ""),
            )
        )
    return out


def read_webqa(folder: str | Path) -> list[Example]:
    """webqa-utopia-dev's list examples (``answer_kind == "list"``, at least two items)."""
    folder = Path(folder)
    out = []
    for line in (folder / "examples.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        answers = [list(a) for a in row.get("answers") or [] if a]
        if row.get("answer_kind") != "list" or len(answers) < 2:
            continue
        out.append(
            Example(
                id=row["id"],
                query=row["question"],
                page=folder / "pages" / f"{row['page_id']}.html",
                criteria=(tuple(answers[0]), tuple(answers[1]), tuple(answers[-1])),
                entities=[a[0] for a in answers],
                source="webqa",
            )
        )
    return out


def read_wtq_questions(folder: str | Path) -> list[Example]:
    """wikitablequestions-lists' ``wtq_list_questions.jsonl``: WikiTableQuestions' own
    questions whose answer is a list of three items or more, asked of the set's pages
    ("which movies were number 1 for at least two consecutive weeks?"). The criteria are
    the answer's first, second and last values in the dataset's order. Every question
    is worded apart from the others, so they are questions of templates the list
    examples never use; only a training signal here (see ``entities_eval.load``)."""
    folder = Path(folder)
    path = folder / "wtq_list_questions.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        values = [str(v) for v in row.get("target_values") or []]
        if len(values) < 2:
            continue
        out.append(
            Example(
                id=str(row["id"]),
                query=row["utterance"],
                page=folder / "pages" / f"{row['page_id']}.html",
                criteria=((values[0],), (values[1],), (values[-1],)),
                entities=values,
                source="wtq-questions",
                title=str(row.get("page_title") or ""),
            )
        )
    return out


def page_of(example: Example) -> str:
    """The page id an example belongs to (splits are made by page)."""
    return example.page.stem


# ---------------------------------------------------------------------------------------------
# Question templates and the template-disjoint split

_TOKEN = re.compile(r"\w+(?:['’-]\w+)*|[^\w\s]", re.UNICODE)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
ENTITY = "<E>"
NUMBER = "<N>"
#: Title words never taken for names (capitalised in titles, common in questions).
_TITLE_STOP = frozenset(
    ("a", "an", "and", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with",
     "vs", "home", "page")
)  # fmt: skip


def title_names(title: str) -> frozenset[str]:
    """The names of a page's title or site name: its capitalised words but the first and
    but function words, lower-cased ("List of tallest buildings in Minneapolis" ->
    {"minneapolis"})."""
    words = [t for t in _TOKEN.findall(title) if t[:1].isalnum()]
    return frozenset(
        w.lower() for w in words[1:] if w[:1].isupper() and w.lower() not in _TITLE_STOP
    )


def question_template(question: str, title: str = "") -> str:
    """The template of a question: what stays when its entity names are taken out.

    Lower-cased, with every quoted string, every capitalised word but the first, and every
    word of :func:`title_names` of the page's ``title`` replaced by ``<E>``, every number
    by ``<N>`` (runs of ``<E>`` collapse into one). "What conference papers have been
    published in 2012?" -> "what conference papers have been published in <N> ?"; "Who
    are the Teaching Assistants (TAs)?" -> "who are the <E> ( <E> ) ?"."""
    names = title_names(title)
    out: list[str] = []
    first = True
    for token in _TOKEN.findall(_QUOTED.sub(" \x00 ", question)):
        if token == "\x00":
            word = ENTITY
        elif token[:1].isdigit():
            word = NUMBER
        elif token[:1].isalpha() and (
            (token[:1].isupper() and not first) or token.lower() in names
        ):
            word = ENTITY
        else:
            word = token.lower()
        if token[:1].isalnum():
            first = False
        if not (word == ENTITY and out and out[-1] == ENTITY):
            out.append(word)
    return " ".join(out)


def page_title(example: Example) -> str:
    """The page's title: the dataset's, else the page's ``<title>`` element."""
    if example.title:
        return example.title
    try:
        head = example.page.read_text(encoding="utf-8", errors="replace")[:200000]
    except OSError:
        return ""
    m = _TITLE.search(head)
    return " ".join(m.group(1).split()) if m else ""


def template_groups(examples: Iterable[Example]) -> dict[str, str]:
    """Example id -> its template group: examples whose templates are equal, or whose
    lower-cased questions are equal (one question whose title words differ from page to
    page), share a group (connected components, named by their smallest template), so a
    question never falls on both sides of a split."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    keys = {}
    for ex in examples:
        t = question_template(ex.query, page_title(ex))
        q = "\x00" + " ".join(ex.query.lower().split())  # (no template starts with NUL)
        a, b = find(t), find(q)
        if a != b:
            parent[max(a, b)] = min(a, b)
        keys[ex.id] = t
    name: dict[str, str] = {}  # component root -> its smallest template
    for t in keys.values():
        root = find(t)
        name[root] = min(name.get(root, t), t)
    return {i: name[find(t)] for i, t in keys.items()}


def stable_share(key: str) -> int:
    """A stable percentile of a string (CRC-32 mod 100): splits fixed before any training."""
    return zlib.crc32(key.encode("utf-8")) % 100


# ---------------------------------------------------------------------------------------------
# Evaluation

_PUNCT_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


def normalise(text: str) -> str:
    """Lower case, accents and outer punctuation removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = " ".join(text.lower().split())
    return _PUNCT_EDGES.sub("", text)


def _edit_distance_at_most(a: str, b: str, limit: int) -> bool:
    if abs(len(a) - len(b)) > limit:
        return False
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        if min(cur) > limit:
            return False
        prev = cur
    return prev[-1] <= limit


def near_match(predicted: str, accepted: Sequence[str], limit: int = 2) -> bool:
    """Equal after :func:`normalise`, or within edit distance ``limit`` of an accepted string."""
    p = normalise(predicted)
    for gold in accepted:
        g = normalise(gold)
        if p == g or _edit_distance_at_most(p, g, limit):
            return True
    return False


def missing_message(data: Path) -> str:
    """What an entity benchmark says when ``data`` holds neither entity dataset."""
    return (
        f"no entity datasets under {data}: unpack ../shared/data with '../shared/data/unpack DEST'"
    )


def compatible(entities: Sequence[str], criteria: Example | tuple[Any, ...]) -> bool:
    """First, second and last entities match the criteria (section 2)."""
    crit = criteria.criteria if isinstance(criteria, Example) else criteria
    if len(entities) < 2:
        return False
    return (
        near_match(entities[0], crit[0])
        and near_match(entities[1], crit[1])
        and near_match(entities[-1], crit[2])
    )


def iter_examples(name: str, data: Path) -> Iterator[Example]:
    """The examples of a dataset folder under ``data`` by name: ``wikitablequestions-lists``
    (train and test files) or ``webqa-utopia-dev``."""
    folder = data / name
    if name == "webqa-utopia-dev":
        yield from read_webqa(folder)
    else:
        for split in ("train", "test"):
            yield from read_openweb(folder / f"lists.{split}.json")


# ---------------------------------------------------------------------------------------------
# Why the right list is not among the candidates

#: The causes :func:`miss_cause` tells apart, in the order it tries them.
CAUSES = (
    "found",  # a candidate is compatible
    "absent",  # an item is not in the page's text (even inside longer text)
    "inside-text",  # an item is only part of an element's text (a name in a sentence)
    "normalisation",  # an item is an element's text only after a looser comparison
    "subset",  # a candidate holds the items in order, with more items around them
    "split",  # every item is an element's text, but no candidate holds them together
    "other",
)

_LOOSE = re.compile(r"[\W_]+", re.UNICODE)


def loose(text: str) -> str:
    """:func:`normalise`, then every run of punctuation and spaces removed."""
    return _LOOSE.sub("", normalise(text))


def miss_cause(
    example: Example, lists: Sequence[Sequence[str]], texts: Sequence[str], page_text: str
) -> str:
    """Why no list of ``lists`` (the candidates' entities) is compatible with ``example``,
    one of :data:`CAUSES`: ``texts`` are the whole texts of the page's elements
    (whitespace collapsed, any length), ``page_text`` the page's text."""
    if any(compatible(entities, example) for entities in lists):
        return "found"
    items = example.criteria
    flat = loose(page_text)
    if not all(any(loose(a) in flat for a in item) for item in items):
        return "absent"
    whole = {normalise(t) for t in texts}
    if not all(any(normalise(a) in whole for a in item) for item in items):
        loose_whole = {loose(t) for t in texts}
        if all(any(loose(a) in loose_whole for a in item) for item in items):
            return "normalisation"
        return "inside-text"
    first, second, last = ({normalise(a) for a in item} for item in items)
    for entities in lists:
        norm = [normalise(e) for e in entities]
        for i, e in enumerate(norm[:-1]):
            if e in first and norm[i + 1] in second and any(x in last for x in norm[i + 1 :]):
                return "subset"
    return "split"


# ---------------------------------------------------------------------------------------------
# Question-list pairs read off a page's own headings

#: Heading questions per page, and their share of the gradient against an annotated
#: example's (chosen by cross-validation grouped by template and page: docs/entities.md).
HEADING_QUESTIONS = 5
HEADING_WEIGHT = 0.3


def heading_questions(
    candidates: Sequence[Any], k: int = HEADING_QUESTIONS
) -> list[tuple[str, list[bool]]]:
    """Synthetic training pairs from a page's own headings: for a heading or label of
    one to six words (the :class:`~scrapy_boilerplate.entities.features.Context` ``near``
    or ``label`` of some candidates), the question "what are the <heading> ?" with every
    candidate under that heading or label counted compatible (the marginal likelihood
    leaves the choice among them to the annotated examples). Headings over more than half
    of the page's candidates say nothing and are skipped; at most ``k`` a page, the first
    by CRC-32 of their text (stable from run to run). They teach the model, on pages
    whose questions were never annotated, that a question names the heading of its list."""
    from scrapy_boilerplate.entities.features import context_of

    memo: dict[Any, Any] = {}
    under: dict[str, list[int]] = {}
    for i, cand in enumerate(candidates):
        ctx = context_of(cand, memo)
        for heading in {ctx.near, ctx.label}:
            if heading and 1 <= len(heading.split()) <= 6:
                under.setdefault(heading, []).append(i)
    n = len(candidates)
    usable = [(h, ix) for h, ix in under.items() if 2 <= len(ix) <= n // 2]
    usable.sort(key=lambda t: zlib.crc32(t[0].encode("utf-8")))
    out = []
    for heading, ix in usable[:k]:
        ok = [False] * n
        for i in ix:
            ok[i] = True
        out.append((f"what are the {heading.lower().rstrip(':')} ?", ok))
    return out
