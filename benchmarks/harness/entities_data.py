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
from collections.abc import Iterator, Sequence
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


def page_of(example: Example) -> str:
    """The page id an example belongs to (splits are made by page)."""
    return example.page.stem


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
