"""The stored crawls a batch reads, record by record: WARC files, Scrapy's HTTP cache, JSON
lines, folders of ``.html`` files.

Every reader yields :class:`Record` objects: the page's bytes with its URL and identity, or,
for a record that is not extracted, the reason it is skipped (``http-status``,
``not-html``, ``too-large``, ``truncated``, ``unreadable``). A reader never raises on bad
input past the opening of its file or folder: a broken record is a skipped record, and
the reader goes on with the next one it can find. A body over the size cap is skipped
from its declared length where the format gives one, without being read.

WARC files are read with FastWARC (the ``batch`` extra); Scrapy's cache is read from its
files directly, without Scrapy: the ``meta`` file (a Python literal) with
:func:`ast.literal_eval`, never the ``pickled_meta`` or ``response_data`` pickles, which
would run whatever code an untrusted cache put in them.
"""

from __future__ import annotations

import ast
import codecs
import gzip
import importlib.util
import json
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from scrapy_boilerplate.core.reasons import Reason

#: The input kinds (``--input-format``); ``auto`` tells them apart by name and content.
INPUT_FORMATS = ("auto", "warc", "httpcache", "jsonl", "html")

#: Skip reasons of the batch's own: a record that ends before its declared length (a
#: truncated file), and one that cannot be read at all (a bad gzip member, a cache entry
#: with a missing or malformed file, a JSON line that is not an object with an HTML field).
TRUNCATED = "truncated"
UNREADABLE = "unreadable"

#: Content types extracted; a record without one (or a generic one) is extracted if its
#: start looks like HTML.
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_GENERIC_TYPES = frozenset({"", "application/octet-stream", "text/plain", "unknown/unknown"})
_HTML_START = re.compile(rb"<(?:!doctype\s+html|html|head|body|title|meta|div|p\b|table)", re.I)
#: Bytes read of a cache entry's ``meta`` and ``response_headers`` files at most.
SMALL_FILE_LIMIT = 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


class InputProblem(Exception):
    """An input path that cannot be read at all (missing, unknown kind): a usage error of
    the batch, raised before any record is read."""


@dataclass(slots=True)
class Record:
    """One page of a stored crawl, or why it is skipped.

    ``id`` is its identity within ``source`` (WARC-Record-ID, the cache's request
    fingerprint, the line number of a JSON line, the file's path within the folder);
    ``(source, id)`` is what ``--resume`` matches. ``body`` is None when ``skip`` (a reason)
    is set.
    """

    id: str
    source: str
    url: str | None
    body: bytes | None
    encoding: str | None = None
    skip: str | None = None
    detail: str | None = None


def charset(content_type: str | None) -> str | None:
    """The ``charset=`` of a Content-Type, where Python knows it; None otherwise."""
    if not content_type:
        return None
    found = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", content_type, re.I)
    if not found:
        return None
    try:
        return codecs.lookup(found.group(1)).name
    except LookupError:
        return None


def html_skip(status: int | None, content_type: str | None, body_start: bytes) -> str | None:
    """Why a response is not extracted (None: it is): a status other than 2xx
    (``http-status``), a content type that is not HTML and a start that does not look like
    HTML (``not-html``). A missing status (a resource record, a file) counts as 200."""
    if status is not None and not 200 <= status < 300:
        return Reason.HTTP_STATUS.value
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind in HTML_TYPES:
        return None
    if kind in _GENERIC_TYPES:
        head = body_start[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"<") and _HTML_START.search(head):
            return None
    return Reason.NOT_HTML.value


def detect(path: Path) -> str:
    """The kind of input ``path`` is (one of :data:`INPUT_FORMATS` but ``auto``)."""
    if path.is_dir():
        return "httpcache" if _cache_entries_root(path) is not None else "html"
    name = path.name.lower()
    if re.search(r"\.warc(?:\.gz)?$", name):
        return "warc"
    if re.search(r"\.(?:jsonl|ndjson|json)(?:\.gz)?$", name):
        return "jsonl"
    if re.search(r"\.html?$", name):
        return "html"
    with path.open("rb") as f:
        head = f.read(64)
    if head.startswith(_GZIP_MAGIC):
        try:
            with gzip.open(path, "rb") as g:
                head = g.read(16)
        except (OSError, EOFError, zlib.error):
            head = b""
    if head.startswith(b"WARC/"):
        return "warc"
    if head.lstrip().startswith(b"{"):
        return "jsonl"
    raise InputProblem(f"{path}: not a WARC, JSON lines or HTML file (give --input-format)")


def read(
    path: Path,
    kind: str = "auto",
    max_size: int = 32 * 1024 * 1024,
    url_field: str = "url",
    html_field: str = "html",
) -> Iterator[Record]:
    """The records of one input; raises :class:`InputProblem` at once if it cannot be read."""
    if not path.exists():
        raise InputProblem(f"{path}: no such file or folder")
    if not os.access(path, os.R_OK):
        raise InputProblem(f"{path}: permission denied")
    if kind == "auto":
        kind = detect(path)
    if kind == "warc":
        if path.is_dir():
            raise InputProblem(f"{path}: a folder, not a WARC file")
        if importlib.util.find_spec("fastwarc") is None:
            raise InputProblem(
                f"{path}: reading WARC files needs FastWARC: "
                "pip install 'scrapy-boilerplate[batch]'"
            )
        return read_warc(path, max_size)
    if kind == "httpcache":
        if not path.is_dir():
            raise InputProblem(f"{path}: not a folder (Scrapy's HTTPCACHE_DIR)")
        return read_httpcache(path, max_size)
    if kind == "jsonl":
        if path.is_dir():
            raise InputProblem(f"{path}: a folder, not a JSON lines file")
        return read_jsonl(path, max_size, url_field, html_field)
    if kind == "html":
        return read_html(path, max_size)
    raise InputProblem(f"unknown input format {kind!r} (one of {', '.join(INPUT_FORMATS)})")


# ---------------------------------------------------------------------------------------------
# WARC


def read_warc(path: Path, max_size: int) -> Iterator[Record]:
    """The ``response`` and ``resource`` records of a WARC file (gzipped or not).

    A record whose declared length is over ``max_size`` is skipped (``too-large``) without
    its body being read; one that ends early (a truncated file) is ``truncated``. A gzip
    member that does not decompress ends FastWARC's iteration: that part is counted once
    as ``unreadable`` and reading resumes at the next gzip member (or ``WARC/`` header of
    an uncompressed file) after it.
    """
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    source = str(path)
    wanted = WarcRecordType.response | WarcRecordType.resource
    with path.open("rb") as f:
        compressed = f.read(2) == _GZIP_MAGIC
        magic = _GZIP_MAGIC + b"\x08" if compressed else b"WARC/"
        start = 0
        while True:
            f.seek(start)
            last = start  # where the last record read began (or where this pass began)
            yielded = False
            try:
                for rec in ArchiveIterator(f, record_types=wanted, parse_http=True):
                    last = start + rec.stream_pos
                    yielded = True
                    yield _warc_record(rec, source, max_size)
                return
            except (OSError, ValueError, EOFError, zlib.error) as exc:
                if yielded or start == 0:  # a new broken stretch: count it once
                    yield Record(
                        f"offset:{last}",
                        source,
                        None,
                        None,
                        skip=UNREADABLE,
                        detail=f"{type(exc).__name__}: {exc}",
                    )
            following = _find(f, magic, last + 1)
            if following is None:
                return
            start = following


def _find(f: BinaryIO, magic: bytes, offset: int, chunk: int = 1 << 20) -> int | None:
    """The offset of the next ``magic`` at or after ``offset`` in ``f``; None if none."""
    f.seek(offset)
    tail = b""
    base = offset
    while True:
        data = f.read(chunk)
        if not data:
            return None
        buf = tail + data
        at = buf.find(magic)
        if at >= 0:
            return base - len(tail) + at
        tail = buf[-(len(magic) - 1) :]
        base += len(data)


def _warc_record(rec: Any, source: str, max_size: int) -> Record:
    headers = rec.headers
    rid = str(headers.get("WARC-Record-ID") or rec.record_id or "")
    url = headers.get("WARC-Target-URI")
    http = rec.http_headers
    if http is not None:
        status: int | None = http.status_code
        content_type = http.get("Content-Type")
    else:
        status, content_type = None, headers.get("Content-Type")
    declared = int(rec.content_length)
    if declared > max_size:
        return Record(rid, source, url, None, skip=Reason.TOO_LARGE.value,
                      detail=f"{declared} bytes")  # fmt: skip
    body = rec.reader.read()
    if len(body) < declared:
        return Record(rid, source, url, None, skip=TRUNCATED,
                      detail=f"{len(body)} of {declared} bytes")  # fmt: skip
    skip = html_skip(status, content_type, body)
    if skip:
        return Record(rid, source, url, None, skip=skip, detail=f"{status} {content_type}")
    return Record(rid, source, url, body, charset(content_type))


# ---------------------------------------------------------------------------------------------
# Scrapy's HTTP cache (FilesystemCacheStorage)


def _cache_entries_root(path: Path) -> int | None:
    """How deep the entries of a cache folder are: 3 for HTTPCACHE_DIR
    (``<spider>/<fp[:2]>/<fp>/meta``), 2 for one spider's folder; None: not a cache."""
    for depth, pattern in ((3, "*/*/*/meta"), (2, "*/*/meta")):
        if next(iter(path.glob(pattern)), None) is not None:
            return depth
    return None


def _read_small(path: Path, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """A cache file's bytes (gunzipped when HTTPCACHE_GZIP wrote it), at most ``limit``."""
    with path.open("rb") as f:
        gzipped = f.read(2) == _GZIP_MAGIC
        f.seek(0)
        if gzipped:
            with gzip.GzipFile(fileobj=f) as g:
                data = g.read(limit + 1)
        else:
            data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path.name} is over {limit} bytes")
    return data


def _entries(root: Path, depth: int) -> Iterator[tuple[Path, Path]]:
    """(spider folder, entry folder) of every cache entry, in a stable order."""

    def folders(p: Path) -> list[Path]:
        try:
            return sorted(c for c in p.iterdir() if c.is_dir())
        except OSError:
            return []

    spiders = folders(root) if depth == 3 else [root]
    for spider in spiders:
        for prefix in folders(spider):
            for entry in folders(prefix):
                yield spider, entry


def read_httpcache(path: Path, max_size: int) -> Iterator[Record]:
    """The entries of a Scrapy HTTPCACHE_DIR written by ``FilesystemCacheStorage`` (plain or
    HTTPCACHE_GZIP), or of one spider's folder in it. ``id`` is the request fingerprint
    (the entry's folder name), ``source`` the spider's folder."""
    depth = _cache_entries_root(path) or 3
    for spider, entry in _entries(path, depth):
        yield _cache_record(entry, str(spider), max_size)


def _cache_record(entry: Path, source: str, max_size: int) -> Record:
    fp = entry.name
    try:
        meta = ast.literal_eval(_read_small(entry / "meta").decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("meta is not a dict")
        url = meta.get("response_url") or meta.get("url")
        status = meta.get("status")
        if not isinstance(status, int) or (url is not None and not isinstance(url, str)):
            raise ValueError("meta has no status or URL")
        raw_headers = _read_small(entry / "response_headers")
    except (OSError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError,
            UnicodeDecodeError, EOFError, zlib.error) as exc:  # fmt: skip
        return Record(fp, source, None, None, skip=UNREADABLE,
                      detail=f"{type(exc).__name__}: {exc}")  # fmt: skip
    content_type = _header(raw_headers, b"content-type")
    body_path = entry / "response_body"
    try:
        with body_path.open("rb") as f:
            gzipped = f.read(2) == _GZIP_MAGIC
            f.seek(0)
            if not gzipped and os.fstat(f.fileno()).st_size > max_size:
                return Record(fp, source, url, None, skip=Reason.TOO_LARGE.value)
            if gzipped:
                with gzip.GzipFile(fileobj=f) as g:
                    body = g.read(max_size + 1)
            else:
                body = f.read(max_size + 1)
    except (OSError, EOFError, zlib.error) as exc:
        return Record(fp, source, url, None, skip=UNREADABLE,
                      detail=f"{type(exc).__name__}: {exc}")  # fmt: skip
    if len(body) > max_size:
        return Record(fp, source, url, None, skip=Reason.TOO_LARGE.value)
    skip = html_skip(status, content_type, body)
    if skip:
        return Record(fp, source, url, None, skip=skip, detail=f"{status} {content_type}")
    return Record(fp, source, url, body, charset(content_type))


def _header(raw: bytes, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case) in Scrapy's raw header block."""
    for line in raw.splitlines():
        key, sep, value = line.partition(b":")
        if sep and key.strip().lower() == name:
            return value.strip().decode("latin-1")
    return None


# ---------------------------------------------------------------------------------------------
# JSON lines and HTML files


def read_jsonl(path: Path, max_size: int, url_field: str, html_field: str) -> Iterator[Record]:
    """One record per line of a JSON lines file (``.gz`` too): an object with the page's
    HTML in ``html_field`` (a string) and its URL in ``url_field`` (optional). ``id`` is the
    line number (from 1); a line over ``max_size`` bytes is ``too-large`` (read in pieces,
    never whole), one that is not such an object ``unreadable``; blank lines are no records.
    """
    source = str(path)
    opener: Any = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rb") as f:
        number = 0
        while True:
            try:
                line = f.readline(max_size + 1)
            except (OSError, EOFError, zlib.error) as exc:
                yield Record(f"{number + 1}", source, None, None, skip=UNREADABLE,
                             detail=f"{type(exc).__name__}: {exc}")  # fmt: skip
                return
            if not line:
                return
            number += 1
            rid = str(number)
            if len(line) > max_size and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):  # the rest of the long line
                    line = f.readline(1 << 20)
                yield Record(rid, source, None, None, skip=Reason.TOO_LARGE.value)
                continue
            if not line.strip():  # a blank line keeps its number but is no record
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                yield Record(rid, source, None, None, skip=UNREADABLE, detail=str(exc))
                continue
            html = obj.get(html_field) if isinstance(obj, dict) else None
            url = obj.get(url_field) if isinstance(obj, dict) else None
            if not isinstance(html, str) or (url is not None and not isinstance(url, str)):
                yield Record(rid, source, None, None, skip=UNREADABLE,
                             detail=f"no string field {html_field!r}")  # fmt: skip
                continue
            body = html.encode("utf-8", "surrogatepass")
            if len(body) > max_size:
                yield Record(rid, source, url, None, skip=Reason.TOO_LARGE.value)
                continue
            yield Record(rid, source, url, body, "utf-8")


def read_html(path: Path, max_size: int) -> Iterator[Record]:
    """The ``.html`` / ``.htm`` files of a folder (and its sub-folders), in path order, or
    one such file. ``id`` is the path within the folder (the file's name for a file)."""
    if path.is_file():
        files, root = [path], path.parent
    else:
        files = sorted(
            p for p in path.rglob("*") if p.suffix.lower() in (".html", ".htm") and p.is_file()
        )
        root = path
    source = str(path)
    for file in files:
        rid = file.relative_to(root).as_posix()
        try:
            with file.open("rb") as f:
                if os.fstat(f.fileno()).st_size > max_size:
                    yield Record(rid, source, None, None, skip=Reason.TOO_LARGE.value)
                    continue
                body = f.read(max_size + 1)
        except OSError as exc:
            yield Record(rid, source, None, None, skip=UNREADABLE,
                         detail=f"{type(exc).__name__}: {exc}")  # fmt: skip
            continue
        if len(body) > max_size:
            yield Record(rid, source, None, None, skip=Reason.TOO_LARGE.value)
            continue
        yield Record(rid, source, None, body)
