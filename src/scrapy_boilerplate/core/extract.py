"""The one-call entry point: :func:`extract` a page with a registered method."""

from __future__ import annotations

from typing import Any

from scrapy_boilerplate.core import registry, render
from scrapy_boilerplate.core.deadline import ExtractionTimeout, check, within
from scrapy_boilerplate.core.document import MAX_NODES_DEFAULT, MAX_SIZE_DEFAULT, parse
from scrapy_boilerplate.core.errors import UnsupportedInput
from scrapy_boilerplate.core.metadata import empty_metadata, page_metadata
from scrapy_boilerplate.core.reasons import Reason
from scrapy_boilerplate.core.registry import DEFAULT_EXTRACTOR, Extractor
from scrapy_boilerplate.core.result import Extraction


def extract(
    html: Any,
    extractor: str = DEFAULT_EXTRACTOR,
    *,
    url: str | None = None,
    encoding: str | None = None,
    timeout: float | None = None,
    max_size: int = MAX_SIZE_DEFAULT,
    max_nodes: int = MAX_NODES_DEFAULT,
    metadata: bool = False,
    main_html: bool = False,
    **params: Any,
) -> Extraction:
    """Run ``extractor`` on a page and return its :class:`Extraction`.

    ``html`` is ``str``, ``bytes``, a ``parsel.Selector`` (e.g. ``response.selector``:
    Scrapy's tree is reused, not parsed again), an lxml tree, or a :class:`Document`
    from :func:`parse`. ``params`` are the method's thresholds (``length_low=70``...).

    Input that is not a usable HTML page (empty, binary, XML, over ``max_size`` bytes
    or ``max_nodes`` elements) gives an empty Extraction whose ``reason`` says why;
    so does a page that takes more than ``timeout`` seconds (reason ``timeout``: the
    extraction stops at the limit, it does not finish in the background). Every result
    with an empty ``main_text`` has a ``reason`` (a :class:`Reason` value): one whose
    method gave none gets ``no-content`` (blocks, none of them content) or ``no-text``. A bad
    parameter raises :class:`InvalidParameter`; an unknown method raises
    :class:`UnknownExtractor`.

    ``metadata=True`` also reads the page's metadata into ``Extraction.metadata`` (title,
    authors, dates, language, description, canonical URL, site name, images, breadcrumbs,
    each with its source; :func:`~scrapy_boilerplate.core.metadata.page_metadata`). It is
    off by default, for its cost.

    ``main_html=True`` also fills :attr:`Extraction.main_html`: the content blocks as
    clean HTML read from the page's tree (:func:`~scrapy_boilerplate.core.render.main_html`;
    "" when there is no main text), within the same ``timeout``.
    """
    options = _Options(metadata, main_html)
    method = registry.get(extractor)
    checked = method.validate(params)
    if timeout is not None and timeout > 0:
        try:
            with within(timeout):
                return _extract(html, method, extractor, checked, url, encoding, max_size,
                                max_nodes, options)  # fmt: skip
        except ExtractionTimeout as exc:
            return options.failed(
                Extraction.failed(
                    Reason.TIMEOUT,
                    extractor,
                    checked,
                    url=url,
                    extra={"error": f"ExtractionTimeout: {exc}"},
                )
            )
    return _extract(html, method, extractor, checked, url, encoding, max_size, max_nodes, options)


class _Options:
    """What a caller asked for besides the main text: the page's metadata, its clean HTML."""

    def __init__(self, metadata: bool, main_html: bool) -> None:
        self.metadata = metadata
        self.main_html = main_html

    def failed(self, result: Extraction) -> Extraction:
        """``result`` (a page not read, or not read in time) with what was asked for, empty:
        items keep one shape whatever happened to the page."""
        if self.metadata:
            result.metadata = empty_metadata()
            result.metadata["notes"].append(f"page not read: {result.reason}")
        if self.main_html:
            result.main_html = ""
        return result


def _extract(
    html: Any,
    method: Extractor,
    extractor: str,
    checked: dict[str, Any],
    url: str | None,
    encoding: str | None,
    max_size: int,
    max_nodes: int,
    options: _Options,
) -> Extraction:
    try:
        doc = parse(html, url=url, encoding=encoding, max_size=max_size, max_nodes=max_nodes)
    except UnsupportedInput as exc:
        return options.failed(
            Extraction.failed(exc.reason, extractor, checked, url=url, extra={"detail": exc.detail})
        )
    result = method.extract(doc, checked)
    check()  # a page past its deadline gives no result, whichever step passed it
    if result.reason is None and not result.main_text.strip():
        # Any method's result, a third-party one's too: an empty main text says why.
        result.reason = Reason.NO_CONTENT.value if result.blocks else Reason.NO_TEXT.value
    if result.reason == Reason.NO_TEXT:
        result.reason = doc.empty_reason().value
    if result.url is None:
        result.url = doc.url if doc.url is not None else url
    if result.encoding is None:
        result.encoding = doc.encoding
    if result.language is None and doc.declared_language:
        # Methods without a language model report the page's declared language.
        result.language = doc.declared_language.split("-")[0].split("_")[0].lower() or None
    if options.main_html:
        result.main_html = render.main_html(doc, result) if result.reason is None else ""
    if options.metadata:
        images = render.content_images(doc, result) if result.reason is None else []
        result.metadata = page_metadata(doc, result, images=[i["url"] for i in images])
        check()
    return result
