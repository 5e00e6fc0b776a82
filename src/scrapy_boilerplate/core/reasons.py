"""The one vocabulary of outcomes: every ``reason`` this package gives a result.

An :class:`~scrapy_boilerplate.core.result.Extraction` (and an entity result) with no
main text says why in ``reason``, a plain string in ``to_dict()`` and in items (JSON).
:class:`Reason` lists every value the package produces, with what the command line, the
stats and the logs need to know of it: whether the input is not a usable HTML page at all
(:attr:`Reason.unusable`, exit code 4 of the command line), and a one-line gloss for
people. A third-party extractor may give reasons of its own: :meth:`Reason.of` returns None
for them, and :func:`gloss` and :func:`exit_code` still answer (generically).
"""

from __future__ import annotations

from enum import Enum

#: Exit code of the command line for a page that gave no main text.
EXIT_NO_TEXT = 1
#: Exit code of the command line for an input that is not a usable HTML page.
EXIT_UNUSABLE = 4

#: The gloss of a reason that is not a :class:`Reason` (a third-party extractor's own).
GENERIC_GLOSS = "the extractor gave no main text"


class Reason(str, Enum):
    """Why a result has no main text. Members are strings (``Reason.EMPTY == "empty"``).

    Each carries :attr:`unusable` (the input is not a usable HTML page), :attr:`gloss`
    (one line for people) and :attr:`exit_code` (the command line's: 4 if unusable, else 1).
    """

    unusable: bool
    gloss: str

    def __new__(cls, value: str, unusable: bool, gloss: str) -> Reason:
        member = str.__new__(cls, value)
        member._value_ = value
        member.unusable = unusable
        member.gloss = gloss
        return member

    def __str__(self) -> str:
        return self.value

    @property
    def exit_code(self) -> int:
        """The command line's exit code for a page with this reason."""
        return EXIT_UNUSABLE if self.unusable else EXIT_NO_TEXT

    @classmethod
    def of(cls, value: str | Reason | None) -> Reason | None:
        """The member whose value is ``value``; None for None or an unknown string."""
        if value is None:
            return None
        member = cls._value2member_map_.get(str(value))
        return member if isinstance(member, Reason) else None

    # -- the input is not a usable HTML page (core.document.parse refuses it) ---------------
    EMPTY = ("empty", True, "the input is empty")
    BINARY = ("binary", True, "the input is binary, not text")
    NOT_HTML = ("not-html", True, "the input is not HTML")
    TOO_LARGE = ("too-large", True, "the input is too large")
    TOO_MANY_NODES = ("too-many-nodes", True, "the page has too many elements")
    TOO_MANY_ATTRIBUTES = ("too-many-attributes", True, "a tag has too many attributes")
    PARSE_ERROR = ("parse-error", True, "the input could not be parsed as HTML")
    # -- a crawl's response that was not extracted (scrapy.middlewares.skip_reason) ---------
    HTTP_STATUS = ("http-status", True, "the response's HTTP status is not 2xx")
    NOT_EXTRACTED = ("not-extracted", False, "the response was not extracted")
    INVALID_META = ("invalid-meta", False, "the request's meta['boilerplate'] is invalid")
    # -- the page was read but gave no main text ---------------------------------------------
    NO_TEXT = ("no-text", False, "the page has no text blocks")
    FRAMESET = ("frameset", False, "the page is a frameset (its text lives in other documents)")
    TOO_DEEP = ("too-deep", False, "the page is nested too deeply to be parsed whole")
    NO_CONTENT = ("no-content", False, "every block was classified as boilerplate")
    # -- the extraction did not finish -------------------------------------------------------
    TIMEOUT = ("timeout", False, "the extraction took longer than its time limit")
    ERROR = ("error", False, "the extraction failed with an error")
    # -- VIPS: the page could not be rendered (render-<RenderError.reason>) ------------------
    RENDER_NO_BROWSER = ("render-no-browser", False, "no browser to render the page")
    RENDER_TIMEOUT = ("render-timeout", False, "rendering the page took too long")
    RENDER_CRASH = ("render-crash", False, "the browser failed while rendering the page")
    RENDER_NO_SANDBOX = (
        "render-no-sandbox",
        False,
        "the browser cannot start with its sandbox here, and running it without is not allowed",
    )
    # -- entity lists ------------------------------------------------------------------------
    NO_LIST = ("no-list", False, "the page has no candidate entity list")
    NO_QUERY = ("no-query", False, "the item has no entity query")
    NO_PAGE = ("no-page", False, "the item came with no page to read")


def reason_value(reason: str | Reason | None) -> str | None:
    """``reason`` as the plain string results store (a member's value; others unchanged)."""
    if isinstance(reason, Reason):
        return reason.value
    return reason


def gloss(reason: str | Reason | None) -> str:
    """The one-line gloss of ``reason``; :data:`GENERIC_GLOSS` for one that is not a member
    (empty for None)."""
    if reason is None:
        return ""
    member = Reason.of(reason)
    return member.gloss if member is not None else GENERIC_GLOSS


def is_unusable(reason: str | Reason | None) -> bool:
    """Whether ``reason`` says the input is not a usable HTML page (unknown: False)."""
    member = Reason.of(reason)
    return member is not None and member.unusable


def exit_code(reason: str | Reason | None) -> int:
    """The command line's exit code for a result with ``reason`` (None: 0; unknown: 1)."""
    if reason is None:
        return 0
    member = Reason.of(reason)
    return member.exit_code if member is not None else EXIT_NO_TEXT


__all__ = [
    "EXIT_NO_TEXT",
    "EXIT_UNUSABLE",
    "GENERIC_GLOSS",
    "Reason",
    "exit_code",
    "gloss",
    "is_unusable",
    "reason_value",
]
