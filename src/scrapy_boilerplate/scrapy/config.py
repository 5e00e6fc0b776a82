"""Every ``BOILERPLATE_*`` setting's default, and :class:`Config`: the settings parsed once.

The Scrapy components read their configuration through :meth:`Config.from_settings`,
which checks every value and raises :class:`BoilerplateSettingsError` naming the
setting and the values it allows: a wrong value fails the crawl at start, not on the
thousandth page. docs/settings.md documents each setting.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.document import MAX_NODES_DEFAULT
from scrapy_boilerplate.core.errors import BoilerplateError, InvalidParameter, UnknownExtractor
from scrapy_boilerplate.core.metadata import FIELDS as METADATA_FIELDS
from scrapy_boilerplate.core.result import PAGE_TYPES

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Turn every component of the plugin on or off.
BOILERPLATE_ENABLED = True
#: The method: a registered name (``justext``, ``cnr``, ...) or ``"package.module:Class"``.
BOILERPLATE_EXTRACTOR = registry.DEFAULT_EXTRACTOR
#: The method's thresholds, e.g. ``{"length_low": 70}``; the paper's defaults fill the rest.
BOILERPLATE_PARAMS: dict[str, Any] = {}
#: Item fields written, by output: a dict ``{output: field name}`` (outputs: see
#: :data:`OUTPUTS`), or one field name (a string) to get every output in one dict.
BOILERPLATE_FIELDS: dict[str, str] = {
    "main_text": "main_text",
    "blocks": "blocks",
    "extractor": "extractor",
    "reason": "boilerplate_reason",
}

#: Which blocks the ``blocks`` output holds: ``content`` (the content blocks only, each as
#: ``{"text", "tag", "xpath", "index"}``), ``all`` (every block, boilerplate included, with
#: every key of ``Block.to_dict()``: the largest part of an item by far) or ``none`` (no
#: blocks output at all).
BOILERPLATE_BLOCKS = "content"

#: A field holding raw HTML (str or bytes): items carrying it are extracted from it.
BOILERPLATE_HTML_FIELD: str | None = None
#: Item classes (objects or import paths) checked at start for the fields written.
BOILERPLATE_ITEM_CLASSES: list[Any] = []
#: Bodies larger than this many bytes are not extracted (reason ``too-large``).
BOILERPLATE_MAX_BODY_SIZE = 32 * 1024 * 1024
#: Pages of more elements than this are not extracted (reason ``too-many-nodes``; 0: no
#: limit): memory is a few kilobytes per element whatever the method, so this bounds it.
BOILERPLATE_MAX_NODES = MAX_NODES_DEFAULT
#: Seconds one page may take (0: no limit); a page over it gets reason ``timeout``.
BOILERPLATE_TIMEOUT = 30.0
#: Where extraction runs: ``inline`` (in the reactor thread), ``thread`` or ``process``.
BOILERPLATE_EXECUTION = "thread"
#: Threads or processes of the pool (0: the number of CPUs, at most 4).
BOILERPLATE_WORKERS = 0
#: Pages waiting for or in extraction at once, per crawler (0: four per worker).
BOILERPLATE_QUEUE_SIZE = 0
#: ``keep`` an item whose extraction failed, with the reason recorded, or ``drop`` it.
BOILERPLATE_ON_ERROR = "keep"
#: Items whose extraction's ``quality`` (the expected text F1, from methods that estimate
#: it: ``auto``) is below this are dropped by the pipeline (0: keep every item). A float,
#: or a dict by page type with a ``"default"`` key, e.g. ``{"article": 0.5, "default": 0.2}``.
BOILERPLATE_MIN_QUALITY: float | dict[str, float] = 0.0
#: Page types kept (``auto``'s: see :data:`PAGE_TYPES`): the pipeline drops items whose
#: page type is another (empty: keep every page type; items without one are kept).
BOILERPLATE_PAGE_TYPES: list[str] = []
#: The fields items get: ``plain`` (``BOILERPLATE_FIELDS``) or ``zyte-article`` (the fields
#: of zyte-common-items' ``Article``: docs/items.md).
BOILERPLATE_ITEM_SCHEMA = "plain"
#: Responses whose Content-Type says nothing of HTML are extracted if their body looks
#: like HTML.
BOILERPLATE_SNIFF = True
#: Bodies of at least this many bytes are decoded to text in a helper thread, in pieces,
#: before Scrapy's MetaRefreshMiddleware (580) decodes them on the reactor thread, where
#: decoding a big page stalls the crawl. 0 turns it off; inline mode never does it.
BOILERPLATE_DECODE_SIZE = 1024 * 1024
#: Seconds between ``malloc_trim(0)`` calls (glibc) in the threads and processes that
#: extract, after a page: freed memory goes back to the system, so resident memory stays
#: flat over long crawls (0: never).
BOILERPLATE_MEMORY_TRIM = 10.0
#: Call ``gc.freeze()`` when the spider opens (thread and process modes): the objects of
#: start-up are left out of every later full garbage collection, which otherwise holds
#: the GIL while it scans them all, again and again in a busy crawl.
BOILERPLATE_GC_FREEZE = True

# Entity lists (docs/entities.md): the add-on adds their components only when they are on.
#: Add the entity lists that answer a query to items (``BOILERPLATE_ENTITY_QUERY`` set
#: turns them on as well).
BOILERPLATE_ENTITIES_ENABLED = False
#: The crawl's query ("hiking trails near baltimore"); an item's own query field, the
#: request's ``meta["boilerplate_entity_query"]`` and the spider's ``entity_query`` come first.
BOILERPLATE_ENTITY_QUERY: str | None = None
#: The item field that holds an item's own query.
BOILERPLATE_ENTITY_QUERY_FIELD = "query"
#: Entity lists written per item (``entity_candidates``), best first.
BOILERPLATE_ENTITY_TOP_K = 5
#: An entity model file (JSON, as ``Model.save`` writes it); None: the shipped model.
BOILERPLATE_ENTITY_MODEL: str | None = None
#: Elements of a page read for lists; a bigger page is read up to there (``capped``).
BOILERPLATE_ENTITY_MAX_NODES = 20_000
#: Extraction predicates generated per page at most; more are left out (``capped``).
BOILERPLATE_ENTITY_MAX_PREDICATES = 500_000

# Request meta is untrusted (docs/security/meta.md): it may choose registered methods and
# parameter values, never a file unless it is listed here.
#: Files (saved VIPS layouts, Web2Text models) a request's ``meta["boilerplate"]["params"]``
#: may name; any other path from meta is refused (reason ``invalid-meta``). Empty: none.
BOILERPLATE_META_FILES: list[str] = []
#: Methods a request's ``meta["boilerplate"]["extractor"]`` may name besides the registered
#: ones, as import paths ``"package.module:Class"``: imported at start, from the settings.
BOILERPLATE_META_EXTRACTORS: list[str] = []

# The browser VIPS renders pages in (``layout="rendered"``; docs/security/browser.md).
#: Where Chromium cannot start with its sandbox (as root, or in a container without user
#: namespaces): ``require`` refuses to render (reason ``render-no-sandbox``),
#: ``allow-unsandboxed`` renders without it (said once in the log). None: the
#: ``SCRAPY_BOILERPLATE_BROWSER_SANDBOX`` environment variable, else ``require``. It goes
#: with the crawl's pages to the renderer (a run option), never into the environment.
BOILERPLATE_BROWSER_SANDBOX: str | None = None

DEFAULTS: dict[str, Any] = {
    name: value for name, value in dict(globals()).items() if name.startswith("BOILERPLATE_")
}

#: The outputs read from ``Extraction.metadata`` (computed only when one is written), by
#: the metadata key each holds (None: the whole dict); the metadata's ``language`` is the
#: ``metadata_language`` output, ``language`` being the method's own already.
METADATA_OUTPUTS: dict[str, str | None] = {
    "metadata": None,
    **{("metadata_language" if key == "language" else key): key for key in METADATA_FIELDS},
}
#: What an item can receive, and where it comes from in the Extraction.
OUTPUTS = (
    "main_text",
    "blocks",
    "extractor",
    "params",
    "language",
    "reason",
    "markdown",
    "url",
    "encoding",
    "page_type",
    "page_type_probability",
    "quality",
    # The main content as clean HTML (extract(..., main_html=True), asked for only when
    # it is an output).
    "main_html",
    # The page's metadata (extract(..., metadata=True), asked for only when one of these
    # is an output): the whole dict, then its fields one by one.
    *METADATA_OUTPUTS,
)
#: The ``extract()`` option each output needs, asked for only when an output needs it
#: (:func:`~scrapy_boilerplate.scrapy.items.output_value` reads the Extraction's attribute
#: of that name).
OUTPUT_OPTIONS = {"main_html": "main_html", **dict.fromkeys(METADATA_OUTPUTS, "metadata")}
#: The ``extract()`` options each ``BOILERPLATE_ITEM_SCHEMA`` needs (``zyte-article``:
#: ``articleBodyHtml`` is the clean HTML).
SCHEMA_OPTIONS: dict[str, tuple[str, ...]] = {
    "plain": (),
    "zyte-article": ("metadata", "main_html"),
}
#: ``BOILERPLATE_ITEM_SCHEMA`` values.
ITEM_SCHEMAS = tuple(SCHEMA_OPTIONS)
#: The item fields the entity lists write (docs/entities.md), when they are on.
ENTITY_FIELDS = ("entities", "entity_candidates", "entities_reason")
EXECUTION_MODES = ("inline", "thread", "process")
BROWSER_SANDBOX_MODES = ("require", "allow-unsandboxed")
ON_ERROR = ("keep", "drop")
BLOCKS_MODES = ("content", "all", "none")


class BoilerplateSettingsError(BoilerplateError, ValueError):
    """A ``BOILERPLATE_*`` setting has a value the plugin cannot use.

    The message names the setting and the values it allows.
    """

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(f"{setting}: {message}")
        self.setting = setting


# Entity lists: their settings, checked -----------------------------------------------------


@dataclass(frozen=True)
class EntityConfig:
    """The ``BOILERPLATE_ENTITY*`` settings, checked (``Config.entities``)."""

    enabled: bool = BOILERPLATE_ENTITIES_ENABLED
    query: str | None = BOILERPLATE_ENTITY_QUERY
    query_field: str = BOILERPLATE_ENTITY_QUERY_FIELD
    top_k: int = BOILERPLATE_ENTITY_TOP_K
    model: str | None = BOILERPLATE_ENTITY_MODEL
    max_nodes: int = BOILERPLATE_ENTITY_MAX_NODES
    max_predicates: int = BOILERPLATE_ENTITY_MAX_PREDICATES

    @classmethod
    def from_settings(cls, settings: Any) -> EntityConfig:
        """Read and check the entity settings (whether entity lists are on or not)."""
        if settings.get("BOILERPLATE_ENTITY_CONCURRENCY") is not None:
            raise BoilerplateSettingsError(
                "BOILERPLATE_ENTITY_CONCURRENCY",
                "no longer used: entity lists are extracted by the crawl's extraction "
                "workers; set BOILERPLATE_WORKERS and BOILERPLATE_QUEUE_SIZE instead",
            )
        field_name = settings.get("BOILERPLATE_ENTITY_QUERY_FIELD", BOILERPLATE_ENTITY_QUERY_FIELD)
        if not isinstance(field_name, str) or not field_name.strip():
            raise BoilerplateSettingsError(
                "BOILERPLATE_ENTITY_QUERY_FIELD", f"expected a field name, got {field_name!r}"
            )
        return cls(
            enabled=entities_wanted(settings),
            query=_entity_query(settings),
            query_field=field_name.strip(),
            top_k=_at_least_one(settings, "BOILERPLATE_ENTITY_TOP_K", "lists"),
            model=_entity_model(settings),
            max_nodes=_at_least_one(settings, "BOILERPLATE_ENTITY_MAX_NODES", "elements"),
            max_predicates=_at_least_one(
                settings, "BOILERPLATE_ENTITY_MAX_PREDICATES", "predicates"
            ),
        )


def entities_wanted(settings: Any) -> bool:
    """Whether entity lists are on: ``BOILERPLATE_ENTITIES_ENABLED`` or a crawl-wide query.

    The add-on asks this to decide whether to add the entity components at all.
    """
    try:
        enabled = settings.getbool("BOILERPLATE_ENTITIES_ENABLED", BOILERPLATE_ENTITIES_ENABLED)
    except ValueError as exc:
        raise BoilerplateSettingsError(
            "BOILERPLATE_ENTITIES_ENABLED", f"expected True or False: {exc}"
        ) from None
    return enabled or _entity_query(settings) is not None


def _entity_query(settings: Any) -> str | None:
    query = settings.get("BOILERPLATE_ENTITY_QUERY", BOILERPLATE_ENTITY_QUERY)
    if query is None:
        return None
    if not isinstance(query, str) or not query.strip():
        raise BoilerplateSettingsError(
            "BOILERPLATE_ENTITY_QUERY",
            f"expected a non-empty query (a str) or None, got {type(query).__name__} {query!r}",
        )
    return query.strip()


def _at_least_one(settings: Any, name: str, what: str) -> int:
    value = settings.get(name, DEFAULTS[name])
    try:
        number = settings.getint(name, DEFAULTS[name])
    except (TypeError, ValueError):
        number = 0
    if number < 1:
        raise BoilerplateSettingsError(
            name, f"expected an integer >= 1 (a number of {what}), got {value!r}"
        )
    return number


def _entity_model(settings: Any) -> str | None:
    value = settings.get("BOILERPLATE_ENTITY_MODEL", BOILERPLATE_ENTITY_MODEL)
    if value is None or value == "":
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise BoilerplateSettingsError(
            "BOILERPLATE_ENTITY_MODEL", f"expected a file path or None, got {value!r}"
        )
    path = os.path.abspath(os.path.expanduser(os.fspath(value)))
    if not os.path.isfile(path):
        raise BoilerplateSettingsError(
            "BOILERPLATE_ENTITY_MODEL",
            f"no model file at {path} (an entity model JSON file, or None for the shipped one)",
        )
    return path


@dataclass(frozen=True)
class Config:
    """The plugin's settings, checked: what every component is built from."""

    enabled: bool = True
    extractor: str = BOILERPLATE_EXTRACTOR
    params: dict[str, Any] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=lambda: dict(BOILERPLATE_FIELDS))
    container: str | None = None
    blocks: str = BOILERPLATE_BLOCKS
    html_field: str | None = None
    item_classes: tuple[type, ...] = ()
    max_body_size: int = BOILERPLATE_MAX_BODY_SIZE
    max_nodes: int = BOILERPLATE_MAX_NODES
    timeout: float = BOILERPLATE_TIMEOUT
    execution: str = BOILERPLATE_EXECUTION
    workers: int = 1
    queue_size: int = 4
    on_error: str = BOILERPLATE_ON_ERROR
    min_quality: float = 0.0
    #: ``BOILERPLATE_MIN_QUALITY`` given by page type: the bound of each type named (other
    #: types get :attr:`min_quality`, the dict's ``"default"``).
    min_quality_by_type: dict[str, float] = field(default_factory=dict)
    page_types: frozenset[str] = frozenset()
    item_schema: str = BOILERPLATE_ITEM_SCHEMA
    #: Options of ``extract()`` the outputs need (``{"metadata": True}``), asked for only
    #: when an output needs them (they cost time). A crawl setting: a request's meta
    #: cannot switch them.
    extract_options: dict[str, bool] = field(default_factory=dict)
    sniff: bool = BOILERPLATE_SNIFF
    decode_size: int = BOILERPLATE_DECODE_SIZE
    memory_trim: float = BOILERPLATE_MEMORY_TRIM
    gc_freeze: bool = BOILERPLATE_GC_FREEZE
    entities: EntityConfig = field(default_factory=EntityConfig)
    meta_files: frozenset[str] = frozenset()
    meta_extractors: tuple[str, ...] = ()
    browser_sandbox: str | None = BOILERPLATE_BROWSER_SANDBOX

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Config:
        """Read and check every ``BOILERPLATE_*`` setting (typed getters: ``-s`` strings work)."""

        def get(name: str, getter: str) -> Any:
            try:
                return getattr(settings, getter)(name, DEFAULTS[name])
            except (TypeError, ValueError) as exc:
                raise BoilerplateSettingsError(name, f"{exc}") from None

        def at_least_zero(name: str, getter: str, expected: str) -> Any:
            value = get(name, getter)
            if value < 0:
                raise BoilerplateSettingsError(name, f"expected {expected}, got {value}")
            return value

        enabled = get("BOILERPLATE_ENABLED", "getbool")
        extractor = settings.get("BOILERPLATE_EXTRACTOR", BOILERPLATE_EXTRACTOR)
        if not isinstance(extractor, str) or not extractor.strip():
            raise BoilerplateSettingsError(
                "BOILERPLATE_EXTRACTOR",
                f"expected a method name ({', '.join(registry.available())}) or "
                f"'package.module:Class', got {extractor!r}",
            )
        extractor = resolve_extractor(extractor.strip(), "BOILERPLATE_EXTRACTOR")
        params = _json_object(settings, "BOILERPLATE_PARAMS", '{"length_low": 50}')
        params = check_params(extractor, params, "BOILERPLATE_PARAMS")

        fields, container = _fields(settings.get("BOILERPLATE_FIELDS", BOILERPLATE_FIELDS))
        blocks = _blocks_mode(settings.get("BOILERPLATE_BLOCKS", BOILERPLATE_BLOCKS))
        if blocks == "none" and not container and set(fields) == {"blocks"}:
            raise BoilerplateSettingsError(
                "BOILERPLATE_BLOCKS", "'none' leaves no output of BOILERPLATE_FIELDS to write"
            )
        html_field = settings.get("BOILERPLATE_HTML_FIELD") or None
        if html_field is not None and not isinstance(html_field, str):
            raise BoilerplateSettingsError(
                "BOILERPLATE_HTML_FIELD", f"expected a field name or None, got {html_field!r}"
            )
        classes = tuple(_load_class(c) for c in _class_list(settings, "BOILERPLATE_ITEM_CLASSES"))

        max_body_size = get("BOILERPLATE_MAX_BODY_SIZE", "getint")
        if max_body_size <= 0:
            raise BoilerplateSettingsError(
                "BOILERPLATE_MAX_BODY_SIZE",
                f"expected a positive number of bytes, got {max_body_size}",
            )
        memory_trim = at_least_zero(
            "BOILERPLATE_MEMORY_TRIM", "getfloat", "seconds >= 0 (0: never)"
        )
        max_nodes = at_least_zero("BOILERPLATE_MAX_NODES", "getint", "elements >= 0 (0: no limit)")
        timeout = at_least_zero("BOILERPLATE_TIMEOUT", "getfloat", "seconds >= 0 (0: no limit)")
        execution = str(settings.get("BOILERPLATE_EXECUTION", BOILERPLATE_EXECUTION)).lower()
        if execution not in EXECUTION_MODES:
            raise BoilerplateSettingsError(
                "BOILERPLATE_EXECUTION",
                f"expected one of {', '.join(EXECUTION_MODES)}, got {execution!r}",
            )
        workers = at_least_zero("BOILERPLATE_WORKERS", "getint", "an integer >= 0 (0: automatic)")
        workers = workers or min(4, os.cpu_count() or 1)
        queue_size = at_least_zero(
            "BOILERPLATE_QUEUE_SIZE", "getint", "an integer >= 0 (0: automatic)"
        )
        queue_size = queue_size or 4 * workers
        on_error = str(settings.get("BOILERPLATE_ON_ERROR", BOILERPLATE_ON_ERROR)).lower()
        if on_error not in ON_ERROR:
            raise BoilerplateSettingsError(
                "BOILERPLATE_ON_ERROR", f"expected one of {', '.join(ON_ERROR)}, got {on_error!r}"
            )
        decode_size = at_least_zero("BOILERPLATE_DECODE_SIZE", "getint", "bytes >= 0 (0: off)")
        min_quality, min_quality_by_type = _min_quality(settings)
        page_types = frozenset(_page_types(settings))
        item_schema = _item_schema(settings)
        if item_schema != "plain" and settings.get("BOILERPLATE_FIELDS") is not None:
            raise BoilerplateSettingsError(
                "BOILERPLATE_FIELDS",
                f"applies to BOILERPLATE_ITEM_SCHEMA 'plain' only; {item_schema!r} writes "
                "its own fields: leave BOILERPLATE_FIELDS unset",
            )
        by_item = item_schema != "plain"  # the pipeline reads what it records per item
        if (
            (min_quality or min_quality_by_type)
            and not (by_item or container)
            and ("quality" not in fields)
        ):
            raise BoilerplateSettingsError(
                "BOILERPLATE_MIN_QUALITY",
                "the pipeline reads each item's quality: add the quality output to "
                "BOILERPLATE_FIELDS (e.g. {..., 'quality': 'quality'}) or use a container field",
            )
        if (
            (page_types or min_quality_by_type)
            and not (by_item or container)
            and ("page_type" not in fields)
        ):
            setting = "BOILERPLATE_PAGE_TYPES" if page_types else "BOILERPLATE_MIN_QUALITY"
            raise BoilerplateSettingsError(
                setting,
                "the pipeline reads each item's page type: add the page_type output to "
                "BOILERPLATE_FIELDS (e.g. {..., 'page_type': 'page_type'}) or use a "
                "container field",
            )
        options = set(SCHEMA_OPTIONS[item_schema])
        if item_schema == "plain" and not container:
            options.update(OUTPUT_OPTIONS[out] for out in fields if out in OUTPUT_OPTIONS)
        return cls(
            enabled=enabled,
            extractor=extractor,
            params=params,
            fields=fields,
            container=container,
            blocks=blocks,
            html_field=html_field,
            item_classes=classes,
            max_body_size=max_body_size,
            max_nodes=max_nodes,
            timeout=timeout,
            execution=execution,
            workers=workers,
            queue_size=queue_size,
            on_error=on_error,
            min_quality=min_quality,
            min_quality_by_type=min_quality_by_type,
            page_types=page_types,
            item_schema=item_schema,
            extract_options=dict.fromkeys(sorted(options), True),
            sniff=get("BOILERPLATE_SNIFF", "getbool"),
            decode_size=decode_size,
            gc_freeze=get("BOILERPLATE_GC_FREEZE", "getbool"),
            memory_trim=memory_trim,
            entities=EntityConfig.from_settings(settings),
            meta_files=_meta_files(settings.get("BOILERPLATE_META_FILES")),
            meta_extractors=tuple(
                resolve_extractor(str(path).strip(), "BOILERPLATE_META_EXTRACTORS")
                for path in _class_list(settings, "BOILERPLATE_META_EXTRACTORS")
            ),
            browser_sandbox=browser_sandbox(settings),
        )

    def run_options(self) -> dict[str, Any]:
        """The crawl's run options (:mod:`scrapy_boilerplate.core.options`), which its
        runner sets where each page runs: ``browser_sandbox`` when the setting is given.
        Per crawler and per page, so two crawlers of one process never share them."""
        return {} if self.browser_sandbox is None else {"browser_sandbox": self.browser_sandbox}

    def for_request(self, meta: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The method and parameters for one request: the settings, then ``meta["boilerplate"]``.

        ``meta["boilerplate"] = {"extractor": "cnr", "params": {...}}``: choosing another
        method drops the settings' thresholds (they belong to the configured method).
        Raises :class:`~scrapy_boilerplate.core.errors.BoilerplateError` on a bad override.

        Meta is untrusted (it may come from a shared queue): it may name a registered
        method only (never an import path: importing runs a module's code) and give file
        parameters only as keywords or files of ``BOILERPLATE_META_FILES``
        (:meth:`~scrapy_boilerplate.core.registry.Extractor.check_untrusted`). Nothing here
        opens a file or loads a model: this runs on the reactor thread.
        """
        override = meta.get("boilerplate")
        if not override:
            return self.extractor, self.params
        if not isinstance(override, Mapping):
            raise InvalidParameter(
                f"meta['boilerplate'] must be a dict with 'extractor' and/or 'params' (or "
                f"False), got {type(override).__name__}",
                "boilerplate",
            )
        unknown = set(override) - {"extractor", "params"}
        if unknown:
            raise InvalidParameter(
                f"meta['boilerplate'] has unknown keys {sorted(unknown, key=repr)}; allowed: "
                f"'extractor', 'params'",
                "boilerplate",
            )
        extractor = self.extractor
        params: dict[str, Any] = dict(self.params)
        wanted = override.get("extractor")
        if wanted and wanted != extractor:
            extractor = registered_extractor(wanted)
            params = {}
        extra = override.get("params") or {}
        if not isinstance(extra, Mapping):
            raise InvalidParameter(
                f"meta['boilerplate']['params'] must be a dict, got {type(extra).__name__}",
                "params",
            )
        method = registry.get(extractor)
        params.update(method.check_untrusted(extra, self.meta_files))
        return extractor, method.validate(params)


def registered_extractor(name: Any) -> str:
    """``name`` from a request's meta when it is a registered method (built-in, entry
    point, :func:`~scrapy_boilerplate.core.registry.register`, or an import path that
    ``BOILERPLATE_EXTRACTOR`` or ``BOILERPLATE_META_EXTRACTORS`` resolved at start): meta
    never imports anything."""
    available = registry.available()
    if isinstance(name, str) and name in available:
        return name
    shown = repr(name) if isinstance(name, str) and len(name) <= 80 else type(name).__name__
    raise InvalidParameter(
        f"meta['boilerplate']['extractor'] got {shown}: not a registered method; allowed: "
        f"{', '.join(available)} (import paths go in BOILERPLATE_EXTRACTOR or "
        f"BOILERPLATE_META_EXTRACTORS, never in meta)",
        "extractor",
    )


def browser_sandbox(settings: Any) -> str | None:
    """``BOILERPLATE_BROWSER_SANDBOX``, checked (None: not set). Reading it changes
    nothing: the crawl's runner hands it to the renderer with each page
    (:meth:`Config.run_options`)."""
    value = settings.get("BOILERPLATE_BROWSER_SANDBOX", BOILERPLATE_BROWSER_SANDBOX)
    if value is None or value == "":
        return None
    mode = value.strip().lower() if isinstance(value, str) else value
    if mode not in BROWSER_SANDBOX_MODES:
        raise BoilerplateSettingsError(
            "BOILERPLATE_BROWSER_SANDBOX",
            f"expected one of {', '.join(BROWSER_SANDBOX_MODES)} or None, got {value!r}",
        )
    return str(mode)


def resolve_extractor(name: str, setting: str) -> str:
    """A registered method name for ``name``; an import path is registered under itself."""
    try:
        registry.get(name)
        return name
    except UnknownExtractor as exc:
        if ":" not in name and "." not in name:
            raise BoilerplateSettingsError(
                setting,
                f"unknown extractor {name!r}; allowed: {', '.join(exc.available)} "
                f"or an import path 'package.module:Class'",
            ) from None
    target = name if ":" in name else ":".join(name.rsplit(".", 1))
    try:
        cls = registry.import_class(target)
    except (ImportError, AttributeError, ValueError) as exc:
        raise BoilerplateSettingsError(setting, f"cannot import {name!r}: {exc}") from None
    if not (isinstance(cls, type) and issubclass(cls, registry.Extractor)):
        raise BoilerplateSettingsError(
            setting, f"{name!r} is not a scrapy_boilerplate.Extractor subclass"
        )
    registry.register(name, target)
    return name


def check_params(extractor: str, params: Mapping[str, Any], setting: str) -> dict[str, Any]:
    """``params`` validated against the method's spec, defaults filled in."""
    try:
        return registry.get(extractor).validate(dict(params))
    except InvalidParameter as exc:
        raise BoilerplateSettingsError(setting, f"{exc} (extractor {extractor!r})") from None


def _meta_files(value: Any) -> frozenset[str]:
    """``BOILERPLATE_META_FILES`` checked: absolute paths (``~`` expanded), not looked up."""
    files = set()
    for entry in _list_setting(value, "BOILERPLATE_META_FILES", "a list of file paths"):
        if not isinstance(entry, (str, os.PathLike)) or not os.fspath(entry):
            raise BoilerplateSettingsError(
                "BOILERPLATE_META_FILES", f"expected file paths (str), got {entry!r}"
            )
        files.add(os.path.abspath(os.path.expanduser(os.fspath(entry))))
    return frozenset(files)


def _fields(value: Any) -> tuple[dict[str, str], str | None]:
    """``({output: field}, None)`` for a mapping, ``(every output, name)`` for a string."""
    allowed = ", ".join(OUTPUTS)
    if isinstance(value, str):
        value = value.strip()
        if value.startswith("{"):  # -s BOILERPLATE_FIELDS='{"main_text": "text"}'
            try:
                value = json.loads(value)
            except ValueError as exc:
                raise BoilerplateSettingsError("BOILERPLATE_FIELDS", f"bad JSON: {exc}") from None
        elif value:
            return {k: k for k in ("main_text", "blocks", "extractor", "reason")}, value
        else:
            raise BoilerplateSettingsError(
                "BOILERPLATE_FIELDS", "expected a field name or a dict, got ''"
            )
    if hasattr(value, "copy_to_dict"):  # a Scrapy BaseSettings
        value = value.copy_to_dict()
    if not isinstance(value, Mapping):
        raise BoilerplateSettingsError(
            "BOILERPLATE_FIELDS",
            f"expected a dict {{output: field name}} (outputs: {allowed}) or one field name, "
            f"got {type(value).__name__}",
        )
    fields: dict[str, str] = {}
    for output, name in value.items():
        if output not in OUTPUTS:
            raise BoilerplateSettingsError(
                "BOILERPLATE_FIELDS", f"unknown output {output!r}; allowed: {allowed}"
            )
        if name is None or name == "":
            continue  # switched off
        if not isinstance(name, str):
            raise BoilerplateSettingsError(
                "BOILERPLATE_FIELDS", f"field name for {output!r} must be a string, got {name!r}"
            )
        fields[output] = name
    if not fields:
        raise BoilerplateSettingsError("BOILERPLATE_FIELDS", "no output left to write")
    return fields, None


def _min_quality(settings: Any) -> tuple[float, dict[str, float]]:
    """``BOILERPLATE_MIN_QUALITY`` checked: ``(bound, {page type: bound})``; a dict's
    ``"default"`` is the bound of the page types it does not name (0 when it has none)."""
    name = "BOILERPLATE_MIN_QUALITY"
    allowed = (
        "a quality from 0 to 1 (0: keep every item), or a dict of them by page type "
        f"({', '.join(PAGE_TYPES)}) and 'default'"
    )
    value = settings.get(name, BOILERPLATE_MIN_QUALITY)
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            raise BoilerplateSettingsError(name, f"expected {allowed}, got {value!r}") from None
    if hasattr(value, "copy_to_dict"):  # a Scrapy BaseSettings
        value = value.copy_to_dict()

    def bound(raw: Any) -> float:
        try:
            number = float(raw) if not isinstance(raw, bool) else -1.0
        except (TypeError, ValueError):
            number = -1.0
        if not 0 <= number <= 1:  # (NaN too)
            raise BoilerplateSettingsError(name, f"expected {allowed}, got {raw!r}")
        return number

    if not isinstance(value, Mapping):
        return bound(value if value is not None else 0.0), {}
    by_type: dict[str, float] = {}
    for key, raw in value.items():
        if key != "default" and key not in PAGE_TYPES:
            raise BoilerplateSettingsError(
                name, f"unknown page type {key!r}; allowed: {', '.join(PAGE_TYPES)}, 'default'"
            )
        by_type[key] = bound(raw)
    default = by_type.pop("default", 0.0)
    # A type whose bound is the default needs no entry (and no page type to be read).
    return default, {k: v for k, v in by_type.items() if v != default}


def _page_types(settings: Any) -> list[str]:
    """``BOILERPLATE_PAGE_TYPES`` checked: names of :data:`PAGE_TYPES`."""
    name = "BOILERPLATE_PAGE_TYPES"
    what = f"a list of page types ({', '.join(PAGE_TYPES)})"
    types = _list_setting(settings.get(name), name, what)
    for entry in types:
        if entry not in PAGE_TYPES:
            raise BoilerplateSettingsError(
                name, f"unknown page type {entry!r}; allowed: {', '.join(PAGE_TYPES)}"
            )
    return types


def _item_schema(settings: Any) -> str:
    """``BOILERPLATE_ITEM_SCHEMA`` checked: one of :data:`ITEM_SCHEMAS`."""
    value = settings.get("BOILERPLATE_ITEM_SCHEMA") or BOILERPLATE_ITEM_SCHEMA
    schema = value.strip().lower() if isinstance(value, str) else value
    if schema not in ITEM_SCHEMAS:
        raise BoilerplateSettingsError(
            "BOILERPLATE_ITEM_SCHEMA", f"expected one of {', '.join(ITEM_SCHEMAS)}, got {value!r}"
        )
    return str(schema)


def _blocks_mode(value: Any) -> str:
    """``BOILERPLATE_BLOCKS`` checked: one of :data:`BLOCKS_MODES`."""
    mode = value.strip().lower() if isinstance(value, str) else value
    if mode not in BLOCKS_MODES:
        raise BoilerplateSettingsError(
            "BOILERPLATE_BLOCKS", f"expected one of {', '.join(BLOCKS_MODES)}, got {value!r}"
        )
    return mode


def _json_object(settings: Any, name: str, example: str) -> dict[str, Any]:
    """A dict setting; on the command line, a JSON object (``example`` shows one)."""
    try:
        return settings.getdict(name, DEFAULTS[name])
    except (TypeError, ValueError):
        raise BoilerplateSettingsError(
            name,
            f"expected a JSON object, e.g. -s {name}='{example}', got {settings.get(name)!r}",
        ) from None


def _list_setting(value: Any, setting: str, what: str) -> list[Any]:
    """A list setting: a list (tuple, set), or on the command line a JSON list or items
    separated by commas (``-s NAME='["a", "b"]'`` or ``-s NAME=a,b``); None or "" is []."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        text = value.strip()
        if not text.startswith("["):
            return [part.strip() for part in text.split(",") if part.strip()]
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, list):
            raise BoilerplateSettingsError(
                setting, f"expected {what}: a JSON list, or items separated by commas, got {text!r}"
            )
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise BoilerplateSettingsError(setting, f"expected {what}, got {value!r}")
    return list(value)


def _class_list(settings: Any, setting: str) -> list[Any]:
    """Classes or import paths (``BOILERPLATE_ITEM_CLASSES``, ``BOILERPLATE_META_EXTRACTORS``):
    one class alone counts as a list of it."""
    value = settings.get(setting)
    if isinstance(value, type):
        return [value]
    what = "classes or import paths such as 'myproject.items.PageItem'"
    return [v.strip() if isinstance(v, str) else v for v in _list_setting(value, setting, what)]


def _load_class(value: Any) -> type:
    if isinstance(value, type):
        return value
    from scrapy.utils.misc import load_object

    try:
        obj = load_object(value)
    except (ImportError, NameError, ValueError, AttributeError) as exc:
        raise BoilerplateSettingsError(
            "BOILERPLATE_ITEM_CLASSES", f"cannot import {value!r}: {exc}"
        ) from None
    if not isinstance(obj, type):
        raise BoilerplateSettingsError("BOILERPLATE_ITEM_CLASSES", f"{value!r} is not a class")
    return obj
