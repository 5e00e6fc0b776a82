"""Declared, validated method parameters: one place parses every user-supplied threshold."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scrapy_boilerplate.core.errors import InvalidParameter

_MISSING = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a method, with the paper's name in lower case and its default."""

    name: str
    type: type
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: Sequence[Any] | None = None
    nullable: bool = False
    #: The value may name a local file (a saved layout, a model). Untrusted input (a crawl
    #: request's meta) may give only one of :attr:`keywords`, null (when nullable) or a
    #: file the crawl's owner allowed: see :func:`check_untrusted`.
    path: bool = False
    #: The values of a ``path`` parameter that are names, not files ('auto', a shipped model).
    keywords: Sequence[str] = ()

    def allowed(self) -> str:
        """Describe the allowed values, for error messages and --help."""
        if self.type is dict:
            lo = "" if self.minimum is None else f" >= {self.minimum}"
            hi = "" if self.maximum is None else f" <= {self.maximum}"
            text = (
                "a mapping (or JSON object) of names to numbers"
                + lo
                + (" and" if lo and hi else "")
                + hi
            )
        elif self.choices is not None:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.type is bool:
            text = "true or false"
        else:
            kind = {int: "an integer", float: "a number", str: "a string"}.get(
                self.type, self.type.__name__
            )
            lo = "" if self.minimum is None else f" >= {self.minimum}"
            hi = "" if self.maximum is None else f" <= {self.maximum}"
            text = kind + (lo + (" and" if lo and hi else "") + hi)
        return text + (" or null" if self.nullable else "")

    def coerce(self, value: Any) -> Any:
        """Convert strings (CLI, settings) to the declared type and check the range."""
        if value is None:
            if self.nullable:
                return None
            raise self._error(value)
        if self.type is dict:
            return self._coerce_mapping(value)
        try:
            if self.type is bool:
                if isinstance(value, str):
                    low = value.strip().lower()
                    if low in ("1", "true", "yes", "on"):
                        value = True
                    elif low in ("0", "false", "no", "off"):
                        value = False
                    else:
                        raise ValueError(value)
                elif not isinstance(value, (bool, int)) or value not in (0, 1):
                    raise ValueError(value)
                value = bool(value)
            elif self.type is int:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError(value)
                value = int(value)
            elif self.type is float:
                if isinstance(value, bool):
                    raise ValueError(value)
                value = float(value)
                if value != value:  # NaN
                    raise ValueError(value)
            elif self.type is str and not isinstance(value, str):
                raise ValueError(value)
        except (TypeError, ValueError):
            raise self._error(value) from None
        if self.choices is not None and value not in self.choices:
            raise self._error(value)
        if self.minimum is not None and value < self.minimum:
            raise self._error(value)
        if self.maximum is not None and value > self.maximum:
            raise self._error(value)
        return value

    def _coerce_mapping(self, value: Any) -> dict[str, float]:
        """A mapping param: given entries override the default's (so one tag can be changed
        alone); a JSON object string is accepted from the command line and settings."""
        if isinstance(value, str):
            import json

            try:
                value = json.loads(value)
            except ValueError:
                raise self._error(value) from None
        if not isinstance(value, Mapping):
            raise self._error(value)
        out = dict(self.default or {})
        for key, v in value.items():
            if not isinstance(key, str) or isinstance(v, bool) or not isinstance(v, (int, float)):
                raise self._error(value)
            if (
                v != v
                or (self.minimum is not None and v < self.minimum)
                or (self.maximum is not None and v > self.maximum)
            ):
                raise self._error(value)
            out[key] = v
        return out

    def _error(self, value: Any) -> InvalidParameter:
        return InvalidParameter(
            f"parameter {self.name!r} got {_short(value)}; allowed: {self.allowed()}", self.name
        )


def validate(
    spec: Iterable[Param], params: Mapping[str, Any] | None, method: str = ""
) -> dict[str, Any]:
    """Return every parameter of ``spec`` with defaults filled in and user values checked.

    Unknown names fail: a typo in a threshold must not be silently ignored. Whatever goes
    wrong converting a value (a JSON integer too large for a float, a key that is not a
    string) is an :class:`InvalidParameter` naming the parameter, never another exception.
    """
    if not params:  # (the common call: every default, nothing to check)
        return {p.name: p.default for p in spec}
    spec = list(spec)
    by_name = {p.name: p for p in spec}
    params = dict(params)
    unknown = sorted((set(params) - set(by_name)), key=repr)
    if unknown:
        where = f" of {method!r}" if method else ""
        allowed = ", ".join(sorted(by_name))
        raise InvalidParameter(
            f"unknown parameter {_short(unknown[0])}{where}; allowed: {allowed}",
            unknown[0] if isinstance(unknown[0], str) else repr(unknown[0]),
        )
    out = {}
    for p in spec:
        if p.name not in params:
            out[p.name] = p.default
            continue
        try:
            out[p.name] = p.coerce(params[p.name])
        except InvalidParameter:
            raise
        except Exception as exc:  # OverflowError, RecursionError, a value's own __eq__, ...
            raise InvalidParameter(
                f"parameter {p.name!r} got {_short(params[p.name])}; allowed: {p.allowed()} "
                f"({type(exc).__name__})",
                p.name,
            ) from None
    return out


def check_untrusted(
    spec: Iterable[Param],
    params: Mapping[str, Any],
    allowed_files: Collection[str] = (),
    method: str = "",
) -> dict[str, Any]:
    """``params`` from untrusted input (a crawl request's meta), with every ``path``
    parameter checked: one of its keywords, null when nullable, or a file of
    ``allowed_files`` (absolute paths, as the crawl's owner listed them).

    Nothing is opened or looked up on disk: the refusal reads the same whether the named
    file exists or not. An allowed file is returned as the listed path, so what is opened
    later is exactly what the owner listed, never the untrusted spelling of it. Other
    parameters are returned as given (:func:`validate` checks them).
    """
    paths = {p.name: p for p in spec if p.path}
    out = dict(params)
    for name, p in paths.items():
        if name not in params:
            continue
        value = params[name]
        if value is None and p.nullable:
            continue
        if isinstance(value, str) and value in p.keywords:
            continue
        listed = _listed(value, allowed_files)
        if listed is None:
            where = f" of {method!r}" if method else ""
            names = ", ".join(repr(k) for k in p.keywords) + (" or null" if p.nullable else "")
            raise InvalidParameter(
                f"parameter {name!r}{where} got {_short(value)} from request meta; allowed "
                f"there: {names}, or a file listed in BOILERPLATE_META_FILES",
                name,
            )
        out[name] = listed
    return out


def _listed(value: Any, allowed_files: Collection[str]) -> str | None:
    """The entry of ``allowed_files`` that ``value`` names (compared as absolute paths,
    without touching the disk), or None."""
    if not allowed_files or not isinstance(value, str) or not value or "\0" in value:
        return None
    wanted = os.path.abspath(value)
    for entry in allowed_files:
        if entry == wanted:
            return entry
    return None


def _short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters: untrusted values go into messages and logs."""
    try:
        text = repr(value)
    except Exception:  # a hostile object's __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
