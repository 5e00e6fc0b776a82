"""Stored crawls written by the tests: WARC records built by hand (each its own gzip member,
as crawlers write them), and Scrapy HTTPCACHE_DIR entries in the exact layout of
``scrapy.extensions.httpcache.FilesystemCacheStorage.store_response``."""

from __future__ import annotations

import gzip
import hashlib
import os
import pickle
import time
from pathlib import Path
from typing import Any

from scrapy_boilerplate.core.deadline import check
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.core.result import Extraction

WORDS = "Words of a sentence in a paragraph about the life of rivers and their banks. "


def page(i: int, paragraphs: int = 3) -> str:
    """A small article page with a menu, a heading and a few paragraphs."""
    body = "".join(f"<p>{WORDS * 6}Paragraph {j} of page {i}.</p>" for j in range(paragraphs))
    return (
        f"<html><head><title>Page {i}</title><meta name='author' content='Ann Lee'></head>"
        f"<body><nav><a href='/'>Home</a> <a href='/a'>About</a></nav>"
        f"<article><h1>Title of page {i}</h1>{body}</article>"
        f"<footer>Copyright 2024</footer></body></html>"
    )


def warc_record(
    url: str,
    body: bytes,
    *,
    status: str = "200 OK",
    content_type: str = "text/html; charset=utf-8",
    record_id: str | None = None,
) -> bytes:
    """One WARC/1.0 response record (uncompressed bytes)."""
    http = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    rid = record_id or f"<urn:uuid:{hashlib.md5(url.encode()).hexdigest()}>"
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Record-ID: {rid}\r\nWARC-Target-URI: {url}\r\n"
        "WARC-Date: 2024-01-01T00:00:00Z\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


def write_warc(path: Path, records: list[bytes], compress: bool = True) -> list[int]:
    """Write ``records`` (one gzip member each when ``compress``); their byte offsets."""
    offsets = []
    with path.open("wb") as f:
        for rec in records:
            offsets.append(f.tell())
            f.write(gzip.compress(rec) if compress else rec)
    return offsets


class Trap:
    """Unpickling this runs code: it makes the folder ``path`` (so a test sees it happen)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (self.path,))


def write_cache_entry(
    cache: Path,
    spider: str,
    url: str,
    body: bytes,
    *,
    status: int = 200,
    content_type: str = "text/html; charset=utf-8",
    use_gzip: bool = False,
    trap: Path | None = None,
) -> str:
    """One entry as FilesystemCacheStorage writes it; its fingerprint. With ``trap``, its
    pickles (pickled_meta, response_data) would make that folder if anything loaded them."""
    fp = hashlib.sha1(url.encode()).hexdigest()
    folder = cache / spider / fp[:2] / fp
    folder.mkdir(parents=True)
    opener: Any = gzip.open if use_gzip else open
    meta = {
        "url": url,
        "method": "GET",
        "status": status,
        "response_url": url,
        "timestamp": 1700000000.5,
    }
    pickled: Any = Trap(str(trap)) if trap else meta
    files = {
        "meta": repr(meta).encode(),
        "pickled_meta": pickle.dumps(pickled, protocol=4),
        "response_headers": f"Content-Type: {content_type}\r\nServer: test\r\n".encode(),
        "response_body": body,
        "response_data": pickle.dumps(Trap(str(trap)) if trap else {"flags": []}, protocol=4),
        "request_headers": b"Accept: text/html\r\n",
        "request_body": b"",
    }
    for name, data in files.items():
        with opener(folder / name, "wb") as f:
            f.write(data)
    return fp


class DyingExtractor(Extractor):
    """A method whose worker process dies on a page that says ``die`` (as one killed for
    memory would); it gives the page's text otherwise."""

    name = "dying"

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        text = " ".join(t for _, t in doc.iter_text()).strip()
        if "die" in text.split():
            os._exit(1)
        return Extraction(main_text=text, blocks=[], extractor=self.name, params=params)


class SlowExtractor(Extractor):
    """A method that runs past any deadline on a page that says ``slow`` (checking it as
    every method does, so the page ends with reason ``timeout``); the page's text
    otherwise."""

    name = "slow"

    def extract(self, doc: Any, params: dict[str, Any]) -> Extraction:
        text = " ".join(t for _, t in doc.iter_text()).strip()
        if "slow" in text.split():
            for _ in range(1000):  # 10 s at most, far past the tests' deadline
                check()
                time.sleep(0.01)
        return Extraction(main_text=text, blocks=[], extractor=self.name, params=params)
