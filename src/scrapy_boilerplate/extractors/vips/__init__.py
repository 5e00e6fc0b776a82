"""VIPS (Cai, Yu, Wen, Ma, "VIPS: a Vision-based Page Segmentation Algorithm",
MSR-TR-2003-79, sections 3 and 4): visual block extraction with the 13 rules of
Table 1 as Table 2 applies them, separator detection and weights, content structure
construction with DoC and PDoC; on a rendered layout (headless Chromium, one CDP
``DOMSnapshot.captureSnapshot``) or an approximate static one.

Entry points: ``scrapy_boilerplate.extract(html, extractor="vips")``, :func:`segment` on a
:class:`Layout`, :func:`render_snapshot` / :func:`capture_snapshot` for the rendered layout.
"""

from scrapy_boilerplate.extractors.vips.algorithm import (
    VipsConfig,
    VisualBlock,
    segment,
    tree_to_dict,
)
from scrapy_boilerplate.extractors.vips.extractor import (
    LAYOUT_KEY,
    VipsExtractor,
    attach_layout,
    layout_from_meta,
)
from scrapy_boilerplate.extractors.vips.layout import Layout, LNode, from_snapshot
from scrapy_boilerplate.extractors.vips.render import RenderError, capture_snapshot, render_snapshot
from scrapy_boilerplate.extractors.vips.static import static_layout

__all__ = [
    "LAYOUT_KEY",
    "LNode",
    "Layout",
    "RenderError",
    "VipsConfig",
    "VipsExtractor",
    "VisualBlock",
    "attach_layout",
    "capture_snapshot",
    "from_snapshot",
    "layout_from_meta",
    "render_snapshot",
    "segment",
    "static_layout",
    "tree_to_dict",
]
