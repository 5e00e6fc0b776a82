"""The extractor registry: built-in methods plus third-party ones found through entry points.

A third party registers an extractor either at run time with :func:`register`
or in its packaging metadata::

    [project.entry-points."scrapy_boilerplate.extractors"]
    mymethod = "mypackage.module:MyExtractor"

An extractor is a subclass of :class:`Extractor`: a ``name``, a ``params``
spec (a tuple of :class:`~scrapy_boilerplate.core.params.Param`) and an
``extract(doc, params)`` method returning an
:class:`~scrapy_boilerplate.core.result.Extraction`. One instance is made per
process and reused (models load once).
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy_boilerplate.core.errors import UnknownExtractor
from scrapy_boilerplate.core.params import Param, check_untrusted, validate

if TYPE_CHECKING:
    from scrapy_boilerplate.core.document import Document
    from scrapy_boilerplate.core.result import Extraction

ENTRY_POINT_GROUP = "scrapy_boilerplate.extractors"

#: The method used when none is named: by extract(), the command line and the crawl.
DEFAULT_EXTRACTOR = "auto"

_BUILTIN: dict[str, str] = {
    "justext": "scrapy_boilerplate.extractors.justext:JustextExtractor",
    "cnr": "scrapy_boilerplate.extractors.cnr:CNRExtractor",
    "web2text": "scrapy_boilerplate.extractors.web2text:Web2TextExtractor",
    "vips": "scrapy_boilerplate.extractors.vips:VipsExtractor",
    "auto": "scrapy_boilerplate.auto:AutoExtractor",
}
#: The methods this package ships (others come from entry points or :func:`register`).
BUILTIN: tuple[str, ...] = tuple(_BUILTIN)


class Extractor:
    """Base class of every method: declare ``name`` and ``params``, implement ``extract``."""

    name: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """All parameters with defaults filled in; raises InvalidParameter on a bad one."""
        return validate(self.params, params, self.name)

    def check_untrusted(
        self, params: Mapping[str, Any], allowed_files: Collection[str] = ()
    ) -> dict[str, Any]:
        """``params`` from untrusted input (a crawl request's meta), before :meth:`validate`:
        a parameter declared ``Param(..., path=True)`` may only be one of its keywords or a
        file of ``allowed_files``; raises InvalidParameter otherwise, without touching the
        disk. A method whose parameters name files some other way overrides this.
        """
        return check_untrusted(self.params, params, allowed_files, self.name)

    def extract(self, doc: Document, params: dict[str, Any]) -> Extraction:
        """Label the blocks of ``doc`` with already validated ``params``."""
        raise NotImplementedError

    def context_from_meta(self, meta: Mapping[str, Any]) -> Any:
        """What this method reads from a crawl request's meta besides its parameters, or
        None (most methods: nothing).

        The Scrapy glue calls it on the reactor thread for the method a request uses and
        hands the value to :meth:`with_context` where the page is extracted, so the glue
        never names a method. The value may cross to a worker process: plain data only.
        VIPS returns the page's rendered layout.
        """
        return None

    def with_context(self, doc: Document, context: Any) -> Document:
        """``doc`` carrying ``context`` (from :meth:`context_from_meta`, not None). Raise
        :class:`~scrapy_boilerplate.core.errors.InvalidParameter` when the context is
        malformed: it came from a request's meta (the item gets reason ``invalid-meta``)."""
        return doc


_classes: dict[str, type[Extractor] | str] = dict(_BUILTIN)
_instances: dict[str, Extractor] = {}
_lock = threading.Lock()
_entry_points_loaded = False


def register(name: str, extractor: type[Extractor] | str) -> None:
    """Register ``extractor`` (a class or a ``"module:Class"`` path) under ``name``."""
    with _lock:
        _classes[name] = extractor
        _instances.pop(name, None)


def unregister(name: str) -> None:
    """Forget the extractor registered under ``name`` (a no-op when there is none)."""
    with _lock:
        _classes.pop(name, None)
        _instances.pop(name, None)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _classes.setdefault(ep.name, ep.value)
    _entry_points_loaded = True


def available() -> list[str]:
    """Names of every registered extractor, built-in and from entry points."""
    with _lock:
        _load_entry_points()
        return sorted(_classes)


def import_class(path: str) -> Any:
    """The object ``"package.module:Name"`` names (imported now; not checked)."""
    from importlib import import_module

    module, _, attr = path.partition(":")
    return getattr(import_module(module), attr)


def get(name: str) -> Extractor:
    """The process-wide instance of the extractor called ``name``."""
    inst = _instances.get(name)
    if inst is not None:
        return inst
    with _lock:
        if name not in _classes:
            _load_entry_points()
        target = _classes.get(name)
        if target is None:
            raise UnknownExtractor(name, list(_classes))
        if name not in _instances:
            cls = import_class(target) if isinstance(target, str) else target
            _instances[name] = cls()
        return _instances[name]
