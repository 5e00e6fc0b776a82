"""The downloader middleware that extracts each HTML response, and the spider middleware
that hands the extraction to the items scraped from it.

Order: the downloader middleware sits at 545, below Retry (550), HttpCompression (590)
and Redirect (600), so it sees final, decompressed responses once retries are decided.
The spider middleware sits at 600 (any position works: it only reads the response).

The spider callback reads the result as ``response.boilerplate`` (an
:class:`~scrapy_boilerplate.Extraction`) or with :func:`get_extraction`; the response is
a :class:`BoilerplateHtmlResponse` whose tree is the one the extraction used, so
``response.css()`` does not parse the page again.
"""

from __future__ import annotations

import codecs
import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from itemadapter import is_item
from scrapy.http import HtmlResponse, Response, TextResponse
from w3lib.encoding import html_to_unicode, http_content_type_encoding, read_bom

from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.document import check_binary, check_markup, parse
from scrapy_boilerplate.core.errors import InvalidParameter, UnsupportedInput
from scrapy_boilerplate.core.extract import extract
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.result import Extraction
from scrapy_boilerplate.scrapy.config import BOILERPLATE_MAX_NODES
from scrapy_boilerplate.scrapy.state import Component, case_of

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.http import Request
    from scrapy.selector import Selector

    from scrapy_boilerplate.scrapy.state import CheckedMarkup, CrawlerState

logger = logging.getLogger(__name__)

#: Set to True in ``Request.meta`` to leave a response (and its items) untouched.
DONT_EXTRACT = "dont_extract_boilerplate"
#: ``Request.meta`` key: ``{"extractor": ..., "params": {...}}`` for this request, or False.
META_KEY = "boilerplate"
#: ``Request.meta`` key set (a short string) on responses that were not extracted.
SKIPPED_KEY = "boilerplate_skipped"


def _document(
    source: Any, url: str, encoding: str | None, extractor: str, context: Any, max_nodes: int
) -> Any:
    """The page to extract: ``source`` itself, or a Document carrying the request's context
    for the method (see :meth:`Extractor.context_from_meta`).

    Raises :class:`UnsupportedInput` (the page is not one to extract) only with a context.
    """
    if context is None:
        return source
    doc = parse(source, url=url, encoding=encoding, max_nodes=max_nodes)
    return registry.get(extractor).with_context(doc, context)


def _extract_page(
    source: Any,
    url: str,
    encoding: str | None,
    extractor: str,
    params: dict[str, Any],
    context: Any,
    max_nodes: int,
    options: dict[str, Any] | None = None,
) -> Extraction:
    """Extract one page; ``options`` are :attr:`Config.extract_options` (``metadata``),
    from the crawl's settings only."""
    try:
        page = _document(source, url, encoding, extractor, context, max_nodes)
    except UnsupportedInput as exc:
        return Extraction.failed(
            exc.reason, extractor, params, url=url, extra={"detail": exc.detail}
        )
    except InvalidParameter as exc:  # the method refused what the request's meta carried
        return Extraction.failed(
            Reason.INVALID_META, extractor, params, url=url, extra={"error": f"{exc}"}
        )
    return extract(
        page,
        extractor,
        url=url,
        encoding=encoding,
        max_nodes=max_nodes,
        **(options or {}),
        **params,
    )


_HTML_TYPES = (b"text/html", b"application/xhtml+xml", b"application/vnd.wap.xhtml+xml")
_HTML_SNIFF = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<body",
    b"<title",
    b"<meta",
    b"<div",
    b"<p>",
    b"<table",
    b"<!--",
)


class BoilerplateHtmlResponse(HtmlResponse):
    """An ``HtmlResponse`` that carries its extraction as ``.boilerplate``.

    Scrapy responses take no new attributes (``__slots__`` since 2.15), hence the
    subclass; ``boilerplate`` is listed in ``attributes`` so ``replace()`` keeps it.
    """

    __slots__ = ("boilerplate",)
    attributes = (*HtmlResponse.attributes, "boilerplate")

    def __init__(self, *args: Any, boilerplate: Extraction | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.boilerplate = boilerplate


def get_extraction(response: Response) -> Extraction | None:
    """The extraction of ``response``, or None when it was not extracted (see
    ``response.meta["boilerplate_skipped"]`` for why)."""
    return getattr(response, "boilerplate", None)


def looks_like_html(body: bytes) -> bool:
    """Whether the start of ``body`` looks like an HTML page (for untyped responses)."""
    head = body[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if not head.startswith(b"<") or (head.startswith(b"<?xml") and b"<html" not in head):
        return False
    return any(tag in head for tag in _HTML_SNIFF)


def skip_reason(response: Response, max_body_size: int, sniff: bool = True) -> Reason | None:
    """Why ``response`` is not extracted (None: it is)."""
    if not 200 <= response.status < 300:
        return Reason.HTTP_STATUS
    body = response.body
    if not body.strip():
        return Reason.EMPTY
    if len(body) > max_body_size:
        return Reason.TOO_LARGE
    if isinstance(response, HtmlResponse):
        return None
    content_type = (response.headers.get(b"Content-Type") or b"").split(b";")[0].strip().lower()
    if content_type in _HTML_TYPES:
        return None
    if sniff and looks_like_html(body):
        return None
    return Reason.NOT_HTML


def _extract_response(
    response: HtmlResponse,
    extractor: str,
    params: dict[str, Any],
    context: Any = None,
    max_nodes: int = BOILERPLATE_MAX_NODES,
    checked: CheckedMarkup | None = None,
    options: dict[str, Any] | None = None,
) -> Extraction:
    # Runs in the worker: building ``response.selector`` there keeps the parse off the
    # event loop, and the spider callback reuses the same tree.
    try:
        page = checked_tree(response, max_nodes, checked)
    except UnsupportedInput as exc:
        return Extraction.failed(
            exc.reason, extractor, params, url=response.url, extra={"detail": exc.detail}
        )
    return _extract_page(page, response.url, None, extractor, params, context, max_nodes, options)


def checked_tree(
    response: TextResponse, max_nodes: int, checked: CheckedMarkup | None = None
) -> Selector | str:
    """The tree of ``response`` to read: ``response.selector`` (built by the caller's
    thread, and reused by the spider callback), or its text where Scrapy cannot build it.

    Its bytes are checked first as :func:`~scrapy_boilerplate.core.document.parse` checks
    a page, so that Scrapy's parser never reads what ``parse`` refuses: binary bytes (a
    tree of them would be read as a page of mojibake, with no reason) and markup over the
    element or attribute caps (one uninterruptible call into libxml2). Raises
    :class:`~scrapy_boilerplate.core.errors.UnsupportedInput` with the reason.

    ``checked`` (the crawler's :attr:`CrawlerState.checked_markup`, with the crawl's
    ``max_nodes``) keeps each response's outcome: a response checked once (by the
    downloader middleware) is not scanned again (by the entity pipeline).
    """
    if checked is not None and response in checked:
        refused = checked[response]
        if refused is not None:
            raise UnsupportedInput(*refused)
    else:
        try:
            check_binary(response.body)
            check_markup(response.body, max_nodes)
        except UnsupportedInput as exc:
            if checked is not None:  # (the reason, not the exception: its traceback
                checked[response] = (exc.reason, exc.detail)  # holds the response)
            raise
        if checked is not None:
            checked[response] = None
    try:
        return response.selector
    except ValueError:  # Scrapy reads <base href> with w3lib, which refuses "https://www:x.org/"
        return response.text  # what the selector parses; process mode extracts it too


def _extract_body(
    body: bytes,
    encoding: str | None,
    url: str,
    extractor: str,
    params: dict[str, Any],
    context: Any = None,
    max_nodes: int = BOILERPLATE_MAX_NODES,
    options: dict[str, Any] | None = None,
) -> Extraction:
    # Runs in a worker process: the bytes are parsed there (a tree cannot be sent).
    from scrapy_boilerplate.scrapy.config import resolve_extractor

    resolve_extractor(extractor, "BOILERPLATE_EXTRACTOR")  # an import path: register it here
    return _extract_page(body, url, encoding, extractor, params, context, max_nodes, options)


class BoilerplateDownloaderMiddleware(Component):
    """Extracts every 2xx HTML response off the event loop (priority 545)."""

    async def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        meta = request.meta
        if meta.get(DONT_EXTRACT) or meta.get(META_KEY) is False:
            return response
        config = self.state.config
        reporter = self.state.reporter
        reason = skip_reason(response, config.max_body_size, config.sniff)
        if reason is not None:
            meta[SKIPPED_KEY] = reason.value
            reporter.inc(f"skipped/{reason.value}")
            return response
        meta.pop(SKIPPED_KEY, None)  # a meta copied from a parent request
        new = _as_extractable(response)
        try:
            extractor, params = config.for_request(meta)
            context = registry.get(extractor).context_from_meta(meta)
        except Exception as exc:  # meta is untrusted: whatever it breaks, the item is kept
            reporter.problem(
                f"errors/{type(exc).__name__}",
                logging.ERROR,
                "Bad meta['boilerplate'] on %s: %s",
                request.url,
                exc,
                case=case_of(exc, request.url),
            )
            new.boilerplate = Extraction.failed(
                Reason.INVALID_META,
                config.extractor,
                url=response.url,
                extra={"error": f"{type(exc).__name__}: {exc}"},
            )
            return new
        new.boilerplate = await self._extract(new, extractor, params, context)
        return new

    async def _extract(
        self,
        response: BoilerplateHtmlResponse,
        extractor: str,
        params: dict[str, Any],
        context: Any = None,
    ) -> Extraction:
        if self.state.runner.mode == "process":
            content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1")
            encoding = http_content_type_encoding(content_type)
            call: tuple[Any, ...] = (
                _extract_body,
                response.body,
                encoding,
                response.url,
                extractor,
                params,
                context,
                self.state.config.max_nodes,
                self.state.config.extract_options,
            )
        else:
            call = (
                _extract_response,
                response,
                extractor,
                params,
                context,
                self.state.config.max_nodes,
                self.state.checked_markup,
                self.state.config.extract_options,
            )
        return await self.state.extract(call, extractor, params, response.url, response.url)


_DECODE_CHUNK = 256 * 1024


def decode_in_pieces(response: TextResponse) -> str | None:
    """``response.text``, decoded piece by piece; None when Scrapy must do it itself.

    Gives exactly what ``TextResponse.text`` gives (``html_to_unicode`` with the
    response's declared encoding, bad bytes replaced), but in 256 KiB pieces: one
    ``bytes.decode`` of a big body holds the GIL until it ends, in whatever thread it runs,
    and the reactor thread waits meanwhile (docs/settings.md, ``BOILERPLATE_DECODE_SIZE``).
    A response whose encoding is not declared (BOM, header, meta) is left to Scrapy's
    own detection.
    """
    declared_encoding = getattr(response, "_declared_encoding", None)  # Scrapy 2.13 to 2.19
    declared = declared_encoding() if declared_encoding is not None else None
    if not declared:
        return None
    body = response.body
    bom_encoding, bom = read_bom(body)
    if bom_encoding is not None:
        encoding, start = bom_encoding, len(bom or b"")
    else:
        # The encoding html_to_unicode would pick (it normalises aliases and UTF-16/32).
        encoding, start = html_to_unicode(f"charset={declared}", b"")[0], 0
    try:
        errors = _decode_errors(encoding)
        if errors != "replace":
            # w3lib's GB18030 handler resumes after a lead 0x80, and CPython's incremental
            # decoder then loses the bytes it held ("\x80" + "0" gives "€", not "€0"), at
            # a cut or at the end: one decode, as w3lib's to_unicode does.
            return body[start:].decode(encoding, errors)
        decoder = codecs.getincrementaldecoder(encoding)(errors=errors)
        pieces = [
            decoder.decode(body[i : i + _DECODE_CHUNK])
            for i in range(start, len(body), _DECODE_CHUNK)
        ]
        pieces.append(decoder.decode(b"", final=True))
    except LookupError:
        return None
    except UnicodeError:  # CPython's ISO-2022 decoders: "pending buffer overflow" at a cut
        return None
    return "".join(pieces)


def _decode_errors(encoding: str) -> str:
    """The error handler ``w3lib.encoding.to_unicode`` decodes with: from w3lib 2.5, a
    GB18030 lead byte 0x80 is the euro sign (the Encoding Standard's), not U+FFFD."""
    if codecs.lookup(encoding).name != "gb18030":
        return "replace"
    try:
        codecs.lookup_error("w3lib_gb18030_replace")
    except LookupError:  # an older w3lib
        return "replace"
    return "w3lib_gb18030_replace"


def _cache_text(response: TextResponse, text: str) -> None:
    # Scrapy's own cache of the decoded body (TextResponse._cached_ubody, 2.13 to 2.19).
    if getattr(response, "_cached_ubody", False) is None:
        response._cached_ubody = text


class BoilerplateDecodeMiddleware(Component):
    """Decodes big text bodies off the reactor thread (priority 585).

    Sits between HttpCompression (590, which decompresses) and MetaRefresh (580, the
    first of Scrapy's components to read ``response.text``), so the text is ready
    before anyone on the reactor thread asks for it.
    """

    async def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        size = self.state.config.decode_size
        if (
            not size
            or self.state.runner.mode == "inline"
            or not isinstance(response, TextResponse)
            or len(response.body) < size
            or request.meta.get(DONT_EXTRACT)
            or getattr(response, "_cached_ubody", False) is not None
        ):
            return response
        try:
            text = await self.state.runner.offload(decode_in_pieces, response)
        except Exception as exc:  # never worse than Scrapy decoding it itself
            self.state.reporter.problem(
                "errors/decode",
                logging.WARNING,
                "Could not pre-decode %s: %s",
                response.url,
                exc,
                case=case_of(exc, response.url),
            )
            return response
        if text is not None:
            _cache_text(response, text)
            self.state.reporter.inc("decoded")
        return response


def _as_extractable(response: Response) -> BoilerplateHtmlResponse:
    """``response`` as a :class:`BoilerplateHtmlResponse`, keeping a tree already parsed."""
    if isinstance(response, BoilerplateHtmlResponse):
        return response
    new = response.replace(cls=BoilerplateHtmlResponse)
    # What earlier components already decoded or parsed is reused, never done twice:
    # Scrapy's caches of the decoded body and of the selector (2.13 to 2.19).
    for cache in ("_cached_ubody", "_cached_benc", "_cached_selector"):
        value = getattr(response, cache, None)
        if value is not None and getattr(new, cache, False) is None:
            setattr(new, cache, value)
    return new


class BoilerplateSpiderMiddleware(Component):
    """Writes the response's extraction into every item its callback yields.

    The one hook that sees both the response and the items: the spider does nothing.
    Items that carry raw HTML in ``BOILERPLATE_HTML_FIELD`` are left to the pipeline.
    """

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterator[Any]:
        for obj in result:
            yield self._attach(response, obj)

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        async for obj in result:
            yield self._attach(response, obj)

    def _attach(self, response: Response, obj: Any) -> Any:
        if not is_item(obj):
            return obj
        request = response.request
        meta = request.meta if request is not None else {}
        if meta.get(DONT_EXTRACT) or meta.get(META_KEY) is False:
            return obj
        state = self.state
        html_field = state.config.html_field
        if html_field is not None and _has_value(obj, html_field):
            return obj  # the pipeline extracts it from its own HTML
        result = get_extraction(response)
        if result is None:
            reason = meta.get(SKIPPED_KEY) or Reason.NOT_EXTRACTED
            result = Extraction.failed(reason, state.config.extractor, url=response.url)
        return write_item(state, obj, result)


def _has_value(item: Any, field: str) -> bool:
    from itemadapter import ItemAdapter

    adapter = ItemAdapter(item)
    return field in adapter and bool(adapter.get(field))


def write_item(state: CrawlerState, item: Any, result: Extraction) -> Any:
    """Write ``result`` into ``item``; a class without the fields is reported, not fatal.

    Returns the item to pass on (an ``Article`` may replace a dict: see :class:`ItemWriter`).
    """
    try:
        item = state.writer.write(item, result)
    except KeyError:
        cls = type(item)
        message = state.writer.missing_message(
            cls, state.writer.missing_fields(cls) or state.writer.field_names
        )
        state.reporter.problem(
            "errors/missing_fields",
            logging.ERROR,
            "%s",
            message,
            case=f"{cls.__module__}.{cls.__qualname__}",
        )
        return item
    state.reporter.inc("items")
    return item
