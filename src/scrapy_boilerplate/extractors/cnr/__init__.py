"""CNR (López, Silva, Insa): the chars-nodes ratio of every DOM node (Algorithm 1), the
selection of the top-rated nodes and their blocks (Algorithm 2), granularity, iterative
block detection and menus; ``algorithm`` has the details.

Entry point: ``scrapy_boilerplate.extract(html, extractor="cnr")`` (:class:`CNRExtractor`).
"""

from scrapy_boilerplate.extractors.cnr.algorithm import (
    CANDIDATES,
    ELEMENT,
    MENU_TAGS,
    NON_CONTENT,
    NON_CONTENT_TAGS,
    PARAMS,
    SELECTION_RULES,
    TAIL,
    TEXT,
    CNRExtractor,
    CNRTree,
    adjust_granularity,
    choose_main,
    compute_cnr,
    detect_blocks,
    detect_menus,
    identify_blocks,
    label_blocks,
    select_nodes,
    tree_and_blocks,
)

__all__ = [
    "CANDIDATES",
    "ELEMENT",
    "MENU_TAGS",
    "NON_CONTENT",
    "NON_CONTENT_TAGS",
    "PARAMS",
    "SELECTION_RULES",
    "TAIL",
    "TEXT",
    "CNRExtractor",
    "CNRTree",
    "adjust_granularity",
    "choose_main",
    "compute_cnr",
    "detect_blocks",
    "detect_menus",
    "identify_blocks",
    "label_blocks",
    "select_nodes",
    "tree_and_blocks",
]
