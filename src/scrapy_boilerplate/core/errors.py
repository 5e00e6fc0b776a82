"""Exception types of scrapy-boilerplate (each documented in docs/api.md)."""

from __future__ import annotations

from scrapy_boilerplate.core.reasons import Reason, reason_value


class BoilerplateError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidParameter(BoilerplateError, ValueError):
    """A method parameter is unknown, of the wrong type or out of range.

    The message names the parameter and the values it allows.
    """

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


class UnknownExtractor(BoilerplateError, LookupError):
    """No extractor is registered under the requested name."""

    def __init__(self, name: str, available: list[str]) -> None:
        super().__init__(f"unknown extractor {name!r}; available: {', '.join(sorted(available))}")
        self.name = name
        self.available = sorted(available)


class UnsupportedInput(BoilerplateError):
    """The input is not an HTML page we can work on (empty, binary, XML, too large...).

    :func:`scrapy_boilerplate.extract` turns it into an empty
    :class:`~scrapy_boilerplate.core.result.Extraction` whose ``reason`` is :attr:`reason`
    (a :class:`~scrapy_boilerplate.core.reasons.Reason` passed in is kept as its value).
    """

    def __init__(self, reason: Reason | str, detail: str = "") -> None:
        value = reason_value(reason) or ""
        super().__init__(f"{value}: {detail}" if detail else value)
        self.reason: str = value
        self.detail = detail
