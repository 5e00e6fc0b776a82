"""Declared, validated method parameters: one place parses every user-supplied threshold."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
            f"parameter {self.name!r} got {value!r}; allowed: {self.allowed()}", self.name
        )


def validate(
    spec: Iterable[Param], params: Mapping[str, Any] | None, method: str = ""
) -> dict[str, Any]:
    """Return every parameter of ``spec`` with defaults filled in and user values checked.

    Unknown names fail: a typo in a threshold must not be silently ignored.
    """
    spec = list(spec)
    by_name = {p.name: p for p in spec}
    params = dict(params or {})
    unknown = sorted(set(params) - set(by_name))
    if unknown:
        where = f" of {method!r}" if method else ""
        raise InvalidParameter(
            f"unknown parameter {unknown[0]!r}{where}; allowed: {', '.join(sorted(by_name))}",
            unknown[0],
        )
    out = {}
    for p in spec:
        out[p.name] = p.coerce(params[p.name]) if p.name in params else p.default
    return out
