"""The ``scrapy-boilerplate`` command line (also ``python -m scrapy_boilerplate``).

Sub-commands:

- ``extract FILE|URL|-``: run one extractor on a page and print its main text, the
  full result as JSON, Markdown, an HTML view of the page with every block outlined, or
  (VIPS) a PNG of its visual blocks; JSON, Markdown and the HTML view carry the page's
  metadata (title, authors, dates...) unless ``--no-metadata``;
- ``list``: the registered extractors and their parameters;
- ``train DIR``: a Web2Text model trained on a folder of pages and their clean text;
- ``entities FILE|URL|- --query TEXT``: the page's entity lists that answer a query;
- ``batch INPUT... --out OUT``: every page of stored crawls (WARC, Scrapy's HTTP cache,
  JSON lines, folders of HTML) into JSON lines or Parquet, in worker processes.

The benchmarks are no sub-command: ``python benchmarks/run.py`` from a clone.

Every parameter of every registered extractor (built-in or third-party) becomes an
option of ``extract`` (``length_low`` -> ``--length-low``); an option that does not
belong to the chosen extractor is refused. ``--param NAME=VALUE`` reaches any
parameter by name. See ``docs/cli.md`` for the whole reference and the exit codes.

:func:`main` takes ``argv`` and returns the exit code, so it can be tested without
a subprocess.
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from scrapy_boilerplate import __version__
from scrapy_boilerplate.cli import fetch as fetching
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.errors import BoilerplateError, InvalidParameter, UnknownExtractor
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.core.reasons import EXIT_NO_TEXT as EXIT_NO_TEXT  # exit 1, re-exported
from scrapy_boilerplate.core.reasons import EXIT_UNUSABLE, Reason, exit_code, gloss
from scrapy_boilerplate.core.registry import DEFAULT_EXTRACTOR
from scrapy_boilerplate.core.result import Extraction

PROG = "scrapy-boilerplate"
FORMATS = ("text", "json", "markdown", "html", "png")
#: Seconds a URL fetch may take in all (``--fetch-timeout``; the rules: cli.fetch).
URL_TIMEOUT = fetching.TIMEOUT
#: Bytes read from a URL at most (one more than the parser's default page limit).
URL_MAX_BYTES = fetching.MAX_BYTES

# A result's exit code (1 or 4) and the gloss of its reason come from its Reason
# (scrapy_boilerplate.core.reasons): ``Reason.unusable`` means exit 4.
EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INPUT = 3

#: Options of ``extract`` itself; a parameter with one of these names is reachable
#: through ``--param`` only.
_RESERVED = frozenset(
    {
        "help",
        "extractor",
        "param",
        "format",
        "output",
        "encoding",
        "url",
        "version",
        "fetch_timeout",
        "allow_private",
        "no_metadata",
        # batch's own options
        "out",
        "html",
        "main_html",
        "input_format",
        "url_field",
        "html_field",
        "metadata",
        "markdown",
        "blocks",
        "workers",
        "in_flight",
        "chunk",
        "timeout",
        "max_size",
        "max_nodes",
        "resume",
        "overwrite",
        "write_skipped",
        "part_rows",
        "quiet",
    }
)

_URL_RE = re.compile(r"^https?://", re.I)
_NULL = "null"

EXIT_CODES_HELP = """\
exit codes:
  0  success: main text found
  1  the page gave no main text (the reason is noted on stderr; output still written)
  2  usage error: bad option, unknown extractor, parameter out of range, a model or
     layout file that is not one
  3  input not found or unreadable, URL fetch failure or refusal, a missing model or
     layout file, output not writable
  4  input is not a usable HTML page (empty, binary, XML, too large, too many elements
     or attributes, unparsable)
"""


class UsageError(Exception):
    """A command-line mistake: reported on one line, exit code 2."""


class InputError(Exception):
    """The input (or the output file) cannot be read / written: exit code 3."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`UsageError` instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# ---------------------------------------------------------------------------------------------
# Parameter options generated from the extractors' Param specs


@dataclass
class _Option:
    """One generated ``--name`` option, shared by every extractor with that parameter."""

    param: str
    flag: str
    owners: list[str] = field(default_factory=list)
    specs: list[Param] = field(default_factory=list)

    @property
    def dest(self) -> str:
        return "param__" + self.param

    @property
    def is_bool(self) -> bool:
        """A flag (``--x`` or ``--x=true|false``) only if every owner declares a bool."""
        return all(p.type is bool for p in self.specs)


def option_flag(param_name: str) -> str:
    """The option string of a parameter: ``length_low`` -> ``--length-low``; a trailing
    underscore (a name that is a Python keyword, ``lambda_``) is dropped: ``--lambda``."""
    return "--" + param_name.rstrip("_").replace("_", "-")


def _class_params(name: str) -> tuple[Param, ...]:
    """The Param spec of extractor ``name``, read from its class when possible.

    Reading the class avoids instantiating every extractor (a model-based one may load
    its model in ``__init__``) just to build ``--help``.
    """
    classes = getattr(registry, "_classes", None)
    target = classes.get(name) if isinstance(classes, dict) else None
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
        return tuple(obj.params)
    if isinstance(target, type):
        return tuple(getattr(target, "params", ()))
    return tuple(registry.get(name).params)


def load_specs() -> tuple[dict[str, tuple[Param, ...]], dict[str, str]]:
    """Every registered extractor's parameters, and the ones that failed to load (why)."""
    specs: dict[str, tuple[Param, ...]] = {}
    failures: dict[str, str] = {}
    for name in registry.available():
        try:
            specs[name] = _class_params(name)
        except Exception as exc:  # a broken third-party extractor must not break the CLI
            failures[name] = _one_line(f"{type(exc).__name__}: {exc}")
    return specs, failures


def _collect_options(specs: dict[str, tuple[Param, ...]]) -> dict[str, _Option]:
    options: dict[str, _Option] = {}
    for name in sorted(specs, key=lambda n: (n != DEFAULT_EXTRACTOR, n)):
        for p in specs[name]:
            if p.name in _RESERVED or not re.fullmatch(r"[A-Za-z][\w-]*", p.name):
                continue
            opt = options.setdefault(p.name, _Option(p.name, option_flag(p.name)))
            opt.owners.append(name)
            opt.specs.append(p)
    return options


def _metavar(p: Param) -> str:
    if p.choices is not None:
        return "{" + ",".join(str(c) for c in p.choices) + "}"
    return {int: "N", float: "X", str: "TEXT"}.get(p.type, "VALUE")


def _describe(p: Param) -> str:
    """``default 70; an integer >= 0`` for help and ``list``."""
    default = _NULL if p.default is None else p.default
    if isinstance(default, bool):
        default = str(default).lower()
    return f"default {default}; {p.allowed()}"


def _param_help(opt: _Option) -> str:
    p = opt.specs[0]
    text = p.help.rstrip(".") if p.help else opt.param
    text = text.replace("%", "%%")
    extra = f" [{', '.join(opt.owners)}]" if len(opt.owners) > 1 else ""
    return f"{text} ({_describe(p).replace('%', '%%')}){extra}"


# ---------------------------------------------------------------------------------------------
# Parser


def build_parser(
    specs: dict[str, tuple[Param, ...]] | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, _Option]]:
    """The full parser, with one option per extractor parameter; and those options by name."""
    if specs is None:
        specs, _ = load_specs()
    options = _collect_options(specs)
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Tell a page's main content from its boilerplate.",
        epilog=EXIT_CODES_HELP + "\nSee docs/cli.md for the full reference.",
        formatter_class=fmt,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    ex = sub.add_parser(
        "extract",
        help="extract the main text of a page (file, URL or - for stdin)",
        description=(
            "Run an extractor on a page and write its main text (or the whole result).\n"
            "Boolean parameters are flags: --no-headings sets true, --no-headings=false\n"
            "sets false. '--PARAM null' sets a nullable parameter to null (its default\n"
            "behaviour). Options of another extractor than the chosen one are refused."
        ),
        epilog=EXIT_CODES_HELP,
        formatter_class=fmt,
        allow_abbrev=False,
    )
    ex.add_argument(
        "input",
        metavar="FILE|URL|-",
        help="an HTML file, an http(s):// URL (fetched), or - to read stdin",
    )
    ex.add_argument(
        "-e",
        "--extractor",
        default=DEFAULT_EXTRACTOR,
        metavar="NAME",
        help=f"extraction method: {', '.join(sorted(specs)) or 'none found'} "
        f"(default: {DEFAULT_EXTRACTOR}; see '{PROG} list')",
    )
    ex.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        default="text",
        help="text: the main text (default); json: the whole result; markdown: "
        "the content blocks as Markdown; html: the page with every block "
        "outlined (green content, red boilerplate), to open in a browser; png (vips "
        "only, needs Chromium): a screenshot with the visual blocks outlined and labelled "
        "with their id and DoC, written to --output",
    )
    ex.add_argument(
        "-o", "--output", metavar="FILE", default=None, help="write here instead of stdout (UTF-8)"
    )
    ex.add_argument(
        "--view-remote",
        action="store_true",
        help="with --format html: let the view load the page's http(s) images and style "
        "sheets, for a faithful look (default: the view loads nothing; scripts never run)",
    )
    ex.add_argument(
        "--encoding",
        default=None,
        metavar="NAME",
        help="the page's encoding when known (default: BOM, HTTP header, "
        "<meta charset>, then UTF-8)",
    )
    ex.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="the page's URL, for a file or stdin (base of relative links)",
    )
    ex.add_argument(
        "--no-metadata",
        action="store_true",
        help="skip reading the page's metadata (title, authors, dates...), which json, "
        "markdown and html show by default: a little faster",
    )
    _add_fetch_options(ex)
    ex.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set any parameter of the chosen extractor by name (repeatable); "
        "works for third-party extractors too",
    )
    _add_param_options(ex, options)
    _add_batch_parser(sub, specs, options)

    ls = sub.add_parser(
        "list",
        help="list the extractors and their parameters",
        description="List the registered extractors and their parameters.",
        allow_abbrev=False,
    )
    ls.add_argument("--json", action="store_true", help="machine-readable output")

    tr = sub.add_parser(
        "train",
        help="train a Web2Text model on a folder of NAME.html + NAME.txt pairs, or "
        "(train auto --data DIR) auto's model on the unpacked datasets",
        description=(
            "Train Web2Text's two networks on your own pages: DIR holds NAME.html and "
            "NAME.txt (its clean main text, UTF-8) pairs; blocks are labelled by aligning "
            "the text with the page (the paper's section 4.1). Writes an ONNX model that "
            "the extractor loads with --model PATH (or params={'model': PATH}). Needs "
            "PyTorch: pip install -e '.[train]'. "
            "'train auto --data DIR --out FILE' trains auto's model (page type, blocks, "
            "quality) on the training splits of the datasets unpacked under DIR, as the "
            "shipped one was; it needs LightGBM and onnxmltools (the same extra)."
        ),
        allow_abbrev=False,
    )
    tr.add_argument(
        "dir",
        type=Path,
        metavar="DIR|auto",
        help="folder of NAME.html + NAME.txt pairs, or 'auto' (with --data)",
    )
    tr.add_argument(
        "--data",
        type=Path,
        default=None,
        help="train auto: the folder the datasets are unpacked in (wcxb-dev, ...)",
    )
    tr.add_argument(
        "--out",
        type=Path,
        default=Path("web2text.onnx"),
        help="model file to write (.onnx); its training report goes beside it as .json",
    )
    tr.add_argument(
        "--force",
        action="store_true",
        help="replace the report's file (--out with .json) even if another run or program wrote it",
    )
    tr.add_argument("--iterations", type=int, default=5000, help="training steps per network")
    tr.add_argument("--valid-share", type=float, default=0.1, help="pages kept for early stopping")
    tr.add_argument(
        "--seed",
        type=int,
        default=None,
        help="random seed (default: 0 for Web2Text, 13 for auto, the shipped models' seeds)",
    )

    en = sub.add_parser(
        "entities",
        help="the entity lists of a page that answer a query, as JSON",
        description=(
            "Zero-shot entity extraction (Pasupat and Liang): rank the page's extraction "
            "predicates for QUERY and print the best lists with their score and XPath."
        ),
        allow_abbrev=False,
    )
    en.add_argument("input", metavar="FILE|URL|-", help="a page: a file, an http(s) URL or -")
    en.add_argument("--query", "-q", required=True, help="what to list, e.g. 'hiking trails'")
    en.add_argument("--top-k", type=int, default=5, help="how many lists (default 5)")
    en.add_argument("--model", default=None, help="a model file of your own (JSON)")
    en.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")
    _add_fetch_options(en)

    return parser, options


def _add_param_options(parser: argparse.ArgumentParser, options: dict[str, _Option]) -> None:
    """One option per extractor parameter, grouped by the first extractor that has it."""
    groups: dict[str, Any] = {}
    for opt in options.values():
        owner = opt.owners[0]
        group = groups.get(owner)
        if group is None:
            group = groups[owner] = parser.add_argument_group(f"{owner} parameters")
        if opt.is_bool:
            group.add_argument(
                opt.flag,
                dest=opt.dest,
                default=argparse.SUPPRESS,
                metavar="true|false",
                nargs="?",
                const="true",
                help=_param_help(opt),
            )
        else:
            group.add_argument(
                opt.flag,
                dest=opt.dest,
                default=argparse.SUPPRESS,
                metavar=_metavar(opt.specs[0]),
                help=_param_help(opt),
            )


def _add_batch_parser(
    sub: Any, specs: dict[str, tuple[Param, ...]], options: dict[str, _Option]
) -> None:
    """The ``batch`` sub-command: stored crawls in, one record per page out."""
    from scrapy_boilerplate.core.document import MAX_NODES_DEFAULT

    bt = sub.add_parser(
        "batch",
        help="extract every page of stored crawls (WARC, Scrapy's HTTPCACHE_DIR, JSON "
        "lines, folders of .html) into JSON lines or Parquet, in worker processes",
        description=(
            "Extract every page of INPUT (WARC / WARC.gz files, a Scrapy HTTPCACHE_DIR with\n"
            "filesystem storage, JSON lines files, folders of .html files) and write one\n"
            "record per page to --out. Bad records are skipped with a reason and counted;\n"
            "the exit code is 0 when the batch ran. See docs/batch.md."
        ),
        epilog="exit codes:\n  0  the batch ran (whatever its records gave)\n  2  usage "
        "error\n  3  an input that cannot be opened, an output that cannot be written",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    bt.add_argument("inputs", nargs="+", metavar="INPUT", help="WARC, cache folder, JSONL, HTML")
    bt.add_argument("--out", required=True, metavar="OUT", help="the JSON lines file (or "
                    "Parquet folder) written")  # fmt: skip
    bt.add_argument(
        "-e",
        "--extractor",
        default=DEFAULT_EXTRACTOR,
        metavar="NAME",
        help=f"extraction method: {', '.join(sorted(specs)) or 'none found'} "
        f"(default: {DEFAULT_EXTRACTOR})",
    )
    bt.add_argument("-f", "--format", choices=("jsonl", "parquet"), default="jsonl",
                    help="jsonl (default): one JSON object a line; parquet: a folder of "
                    "part-NNNNN.parquet files (needs pyarrow)")  # fmt: skip
    bt.add_argument("--input-format", choices=("auto", "warc", "httpcache", "jsonl", "html"),
                    default="auto", help="the kind of every INPUT (default: told apart by "
                    "name and content)")  # fmt: skip
    bt.add_argument(
        "--url-field",
        default="url",
        metavar="NAME",
        help="JSON lines input: the field of the page's URL (default url)",
    )
    bt.add_argument(
        "--html-field",
        default="html",
        metavar="NAME",
        help="JSON lines input: the field of the page's HTML (default html)",
    )
    bt.add_argument(
        "--metadata",
        action="store_true",
        help="add the page's metadata (title, authors, dates...) to each record",
    )
    bt.add_argument(
        "--markdown", action="store_true", help="add the content blocks as Markdown to each record"
    )
    bt.add_argument(
        "--html",
        action="store_true",
        dest="main_html",
        help="add the main content as clean HTML to each record (main_html)",
    )
    bt.add_argument(
        "--blocks",
        choices=("content", "all", "none"),
        default="content",
        help="the blocks of each record: content (default: the content blocks' "
        "text, tag, xpath, index), all (every block, every key) or none",
    )
    bt.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: the CPUs; 0: extract in this process)",
    )
    bt.add_argument(
        "--in-flight",
        type=int,
        default=0,
        metavar="N",
        help="records read and not yet written, at most (default: four per worker, or two "
        "chunks per worker where that is more)",
    )
    bt.add_argument(
        "--chunk",
        type=int,
        default=None,
        metavar="N",
        help="records sent to a worker in one task, at most (fewer past 1 MiB; default 4)",
    )
    bt.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="seconds one page may take (reason timeout past it; 0: no limit; default 30)",
    )
    bt.add_argument(
        "--max-size",
        type=int,
        default=32 * 1024 * 1024,
        metavar="BYTES",
        help="bodies over this many bytes are skipped (too-large), unread where "
        "the input declares their length (default 32 MiB)",
    )
    bt.add_argument(
        "--max-nodes",
        type=int,
        default=MAX_NODES_DEFAULT,
        metavar="N",
        help=f"pages of more elements are not extracted (too-many-nodes; 0: no "
        f"limit; default {MAX_NODES_DEFAULT})",
    )
    bt.add_argument(
        "--resume",
        action="store_true",
        help="skip the records already in OUT (a batch killed, then run again)",
    )
    bt.add_argument(
        "--overwrite",
        action="store_true",
        help="replace what OUT holds (default: refuse an OUT that holds records)",
    )
    bt.add_argument(
        "--write-skipped",
        action="store_true",
        help="write a record (skipped: true, with its reason) for every input "
        "record not extracted too",
    )
    bt.add_argument(
        "--part-rows",
        type=int,
        default=1000,
        metavar="N",
        help="parquet: rows per part file (default 1000)",
    )
    bt.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar and no summary on stderr"
    )
    bt.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set any parameter of the chosen extractor by name (repeatable)",
    )
    _add_param_options(bt, options)


def _add_fetch_options(parser: argparse.ArgumentParser) -> None:
    """``--fetch-timeout`` and ``--allow-private``: the limits of fetching a URL input."""
    parser.add_argument(
        "--fetch-timeout",
        type=float,
        default=URL_TIMEOUT,
        metavar="SECONDS",
        help=f"a URL input's whole fetch (connection, headers, body, redirects) must end "
        f"within this many seconds (default {URL_TIMEOUT:g})",
    )
    parser.add_argument(
        "--allow-private",
        action="store_true",
        help="follow redirects to private, loopback or link-local addresses (the URL you "
        "type is fetched whatever its address; redirects reach public addresses only)",
    )


def _rewrite_bool_flags(argv: list[str], options: dict[str, _Option]) -> list[str]:
    """Turn a bare boolean flag into ``--flag=true`` so it never swallows the FILE argument."""
    flags = {opt.flag for opt in options.values() if opt.is_bool}
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--":
            out.extend(argv[i:])
            break
        out.append(arg + "=true" if arg in flags else arg)
    return out


# ---------------------------------------------------------------------------------------------
# Helpers


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _err(message: str, kind: str = "error") -> None:
    print(f"{PROG}: {kind}: {_one_line(message)}", file=sys.stderr)


def _param_value(p: Param | None, raw: str) -> Any:
    """A command-line string as the extractor's validate() expects it (it coerces strings)."""
    if p is None:
        return raw
    if p.nullable and raw.strip().lower() == _NULL:
        return None
    if p.type in (int, float, bool, str):
        return raw
    try:  # a third-party type (list, dict...): accept JSON, else give the string as is
        return json.loads(raw)
    except ValueError:
        return raw


def _gather_params(
    args: argparse.Namespace, options: dict[str, _Option], name: str, spec: Sequence[Param]
) -> dict[str, Any]:
    """The parameters given on the command line for extractor ``name`` (raises UsageError)."""
    by_name = {p.name: p for p in spec}
    given: dict[str, Any] = {}
    for item in args.param:
        key, sep, raw = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise UsageError(f"--param expects NAME=VALUE, got {item!r}")
        if key in given:
            raise UsageError(f"parameter {key!r} given twice")
        given[key] = _param_value(by_name.get(key), raw)
    for opt in options.values():
        if not hasattr(args, opt.dest):
            continue
        if opt.param not in by_name:
            raise UsageError(
                f"option {opt.flag} does not apply to extractor {name!r} "
                f"(it is a parameter of {', '.join(opt.owners)})"
            )
        if opt.param in given:
            raise UsageError(f"parameter {opt.param!r} given twice ({opt.flag} and --param)")
        given[opt.param] = _param_value(by_name[opt.param], getattr(args, opt.dest))
    return given


def _read_input(
    source: str, timeout: float = URL_TIMEOUT, allow_private: bool = False
) -> tuple[Any, str | None, str | None]:
    """The page as bytes, with the URL it came from and its HTTP charset (for a URL, fetched
    within ``timeout`` seconds, redirects to private addresses only with ``allow_private``)."""
    if source == "-":
        stdin = sys.stdin
        if stdin is None:
            raise InputError("no standard input to read")
        buffer = getattr(stdin, "buffer", None)
        try:
            data = buffer.read() if buffer is not None else stdin.read()
        except OSError as exc:
            raise InputError(f"cannot read stdin: {exc}") from None
        return data, None, None
    if _URL_RE.match(source):
        return _fetch(source, timeout, allow_private)
    path = Path(source)
    try:
        return path.read_bytes(), None, None
    except FileNotFoundError:
        raise InputError(f"file not found: {source}") from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a file: {source}") from None
    except PermissionError:
        raise InputError(f"permission denied: {source}") from None
    except OSError as exc:
        raise InputError(f"cannot read {source}: {exc.strerror or exc}") from None


def _fetch(
    url: str, timeout: float = URL_TIMEOUT, allow_private: bool = False
) -> tuple[bytes, str, str | None]:
    """GET ``url`` (all of it within ``timeout`` seconds); the body, the final URL and the
    charset of Content-Type. The rules (redirects, limits): :mod:`scrapy_boilerplate.cli.fetch`."""
    headers = {
        "User-Agent": f"{PROG}/{__version__}",
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
    }
    try:
        return fetching.fetch(url, headers, timeout=timeout, allow_private=allow_private)
    except fetching.FetchError as exc:
        raise InputError(str(exc)) from None


def _fetch_limits(args: argparse.Namespace) -> tuple[float, bool]:
    """``--fetch-timeout`` (checked: a usage error unless positive) and ``--allow-private``."""
    timeout = args.fetch_timeout
    if not timeout > 0 or timeout == float("inf"):
        raise UsageError(f"--fetch-timeout must be a positive number of seconds, got {timeout}")
    return timeout, args.allow_private


def render(
    result: Extraction,
    fmt: str,
    page: Any,
    url: str | None,
    encoding: str | None,
    view_remote: bool = False,
) -> str:
    """The output text of ``result`` in format ``fmt`` (``page`` is needed for ``html``;
    ``view_remote`` lets its view load the page's remote images and style sheets)."""
    if fmt == "json":
        return json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    if fmt == "markdown":
        return render_markdown(result)
    if fmt == "html":
        from scrapy_boilerplate.cli.htmlview import render_view

        return render_view(page, result, url=url, encoding=encoding, remote=view_remote)
    return result.main_text + "\n" if result.main_text else ""


#: The formats that show the page's metadata (read unless ``--no-metadata``).
METADATA_FORMATS = frozenset({"json", "markdown", "html"})


def _md_inline(text: str) -> str:
    """``text`` on one line with Markdown's inline markup characters escaped (a page's
    title is text, not markup)."""
    return re.sub(r"([\\`*_\[\]<>])", r"\\\1", " ".join(text.split()))


def _same_heading(line: str, title: str) -> bool:
    """Whether a Markdown line (a heading or not) says ``title``: the same letters and
    digits, whatever the case, spaces and punctuation (a page's heading often differs
    from its metadata's title only there)."""

    def norm(s: str) -> str:
        return "".join(c for c in s.casefold() if c.isalnum())

    return bool(norm(title)) and norm(line.lstrip("#")) == norm(title)


def render_markdown(result: Extraction) -> str:
    """``Extraction.to_markdown()`` headed by the page's metadata, when the result has it:
    the title as a level-1 heading (unless the body already starts with it), then a line
    of the authors and the publication date, e.g. ``*Ann Lee · 2024-05-02*``."""
    body = result.to_markdown()
    meta: dict[str, Any] = result.metadata if isinstance(result.metadata, dict) else {}
    found = meta.get("title")
    title = found if isinstance(found, str) else ""
    authors = meta.get("authors")
    byline = (
        [a for a in authors if isinstance(a, str) and a.strip()]
        if isinstance(authors, list)
        else []
    )
    date = meta.get("date_published")
    if isinstance(date, str) and date.strip():
        byline.append(date[:10] if re.match(r"\d{4}-\d{2}-\d{2}", date) else date)
    head: list[str] = []
    first, _, rest = body.partition("\n")
    if title.strip() and _same_heading(first, title):
        head.append(first)  # the body's own heading stays; the byline goes under it
        body = rest.lstrip("\n")
    elif title.strip():
        head.append("# " + _md_inline(title))
    if byline:
        head.append("*" + _md_inline(" · ".join(byline)) + "*")
    if not head:
        return body
    return "\n\n".join(head) + ("\n\n" + body if body.strip() else "\n")


def _png(
    args: argparse.Namespace, page: Any, url: str | None, encoding: str | None,
    params: dict[str, Any],
) -> Extraction:  # fmt: skip
    """``--format png``: render the page, run VIPS on that very layout, outline the leaf
    visual blocks (green content, red boilerplate) with ``id (DoC)`` and write the PNG."""
    if args.extractor != "vips":
        raise UsageError("--format png draws VIPS's visual blocks: use --extractor vips")
    if args.output in (None, "-"):
        raise UsageError("--format png writes a picture: give --output FILE.png")
    from scrapy_boilerplate import extract, parse
    from scrapy_boilerplate.core.document import MAX_NODES_DEFAULT
    from scrapy_boilerplate.core.errors import UnsupportedInput
    from scrapy_boilerplate.extractors.vips import RenderError, attach_layout
    from scrapy_boilerplate.extractors.vips.render import render_png

    def draw(snapshot: dict[str, Any]) -> tuple[list[dict[str, Any]], Extraction]:
        doc = attach_layout(parse(page, url=url, encoding=encoding), snapshot)
        result = extract(doc, "vips", **{**params, "layout": "auto"})
        boxes = [
            {
                "x": b.fields["box"][0], "y": b.fields["box"][1], "w": b.fields["box"][2],
                "h": b.fields["box"][3], "color": "#1a8f3c" if b.is_content else "#c0392b",
                "label": f"{b.fields['id']} ({b.fields['doc']})",
            }
            for b in result.blocks
        ]  # fmt: skip
        return boxes, result

    # The page's scripts run only with --javascript; the sandbox as the environment says
    # (SCRAPY_BOILERPLATE_BROWSER_SANDBOX, see docs/security/browser.md).
    limits: dict[str, Any] = {"width": params.get("viewport_width", 1366),
              "timeout": params.get("render_timeout", 30.0),
              "javascript": bool(params.get("javascript", False)),
              "max_nodes": MAX_NODES_DEFAULT}  # fmt: skip
    try:
        if url and url.startswith("file:"):
            png, result = render_png(url=url, draw=draw, **limits)
        else:
            html = page.decode(encoding or "utf-8", "replace") if isinstance(page, bytes) else page
            png, result = render_png(html, draw=draw, **limits)
    except RenderError as exc:
        raise InputError(f"cannot render the page: {exc}") from None
    except UnsupportedInput as exc:
        raise InputError(f"input is not a usable HTML page ({exc})") from None
    try:
        Path(args.output).write_bytes(png)
    except OSError as exc:
        raise InputError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return result


def _file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a file (``file not found``...), or None if it can."""
    target = Path(path)
    if not target.exists():
        return "file not found"
    if target.is_dir():
        return "is a directory, not a file"
    if not os.access(target, os.R_OK):
        return "permission denied"
    return None


def _file_error(exc: BoilerplateError) -> Exception:
    """The command-line error for ``exc``, raised about a file an option named (its
    ``path``, as a Web2Text model's ModelError carries): an input error (exit 3) when the
    file is missing or unreadable, a usage error (exit 2) when it is there but is not
    what the option wants."""
    path = getattr(exc, "path", None)
    if isinstance(path, (str, Path)) and _file_problem(path):
        return InputError(str(exc))
    return UsageError(str(exc))


#: The values of VIPS's ``layout`` parameter that name no file.
_LAYOUT_WORDS = ("auto", "static", "rendered")


def _check_layout_file(name: str, params: dict[str, Any]) -> None:
    """VIPS's ``--layout FILE``, read before the page is: a file that is missing or
    unreadable is an input error (exit 3), one that is not a layout a usage error (2)."""
    layout = params.get("layout") if name == "vips" else None
    if not isinstance(layout, str) or layout in _LAYOUT_WORDS:
        return
    problem = _file_problem(layout)
    if problem:
        raise InputError(
            f"parameter 'layout': {problem}: {layout} (the value is a layout file or one of "
            f"{', '.join(_LAYOUT_WORDS)})"
        )
    from scrapy_boilerplate.extractors.vips.layout import Layout, LayoutError

    try:
        Layout.load(layout)
    except OSError as exc:
        raise InputError(f"cannot read {layout}: {exc.strerror or exc}") from None
    except LayoutError as exc:
        raise UsageError(
            f"parameter 'layout': {layout} is not a layout or CDP snapshot ({exc})"
        ) from None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass


def _write(text: str, output: str | None) -> None:
    """Write ``text`` as UTF-8 to ``output`` (a path) or to stdout (None or ``-``)."""
    data = text.encode("utf-8", "replace")
    if output is None or output == "-":
        out = sys.stdout
        buffer = getattr(out, "buffer", None)
        try:
            if buffer is not None:
                out.flush()
                buffer.write(data)
                buffer.flush()
            else:
                out.write(text)
                out.flush()
        except BrokenPipeError:  # `... | head`: the reader is gone, nothing left to do
            _silence_stdout()
        return
    try:
        Path(output).write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None


def _reason_text(result: Any) -> str:
    """``binary: not text (...)``: the reason of ``result`` (an Extraction or an entity
    result), then the detail or the reason's gloss (for ``no-content``, with the number of
    blocks)."""
    reason = result.reason or ""
    extra = getattr(result, "extra", None)
    detail = extra.get("detail") if isinstance(extra, dict) else None
    if detail:
        text = str(detail)
    elif reason == Reason.NO_CONTENT:
        text = f"every block, {len(result.blocks)} in all, was classified as boilerplate"
    else:
        text = gloss(reason)
    return f"{reason}: {text}" if text else reason


def _report(result: Any, what: str) -> int:
    """Say on stderr why ``result`` has no ``what`` (an error for an input that is not a
    usable HTML page, else a note) and return the exit code its reason gives."""
    code = exit_code(result.reason)
    if code == EXIT_UNUSABLE:
        _err(f"input is not a usable HTML page ({_reason_text(result)})")
    elif code != EXIT_OK:
        _err(f"no {what} ({_reason_text(result)})", "note")
    return code


# ---------------------------------------------------------------------------------------------
# Commands


def _checked_params(
    args: argparse.Namespace, options: dict[str, _Option]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The parameters given for ``args.extractor`` on the command line, and the same
    validated by the method (defaults filled in); raises UsageError or InputError."""
    name = args.extractor
    try:
        method = registry.get(name)
    except UnknownExtractor as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:
        raise UsageError(
            f"extractor {name!r} cannot be loaded: {type(exc).__name__}: {exc}"
        ) from None
    params = _gather_params(args, options, name, tuple(method.params))
    try:
        checked = method.validate(params)
    except InvalidParameter as exc:
        raise UsageError(str(exc)) from None
    except BoilerplateError as exc:  # a Web2Text model file missing (3) or no model (2)
        raise _file_error(exc) from None
    return params, checked


def cmd_extract(args: argparse.Namespace, options: dict[str, _Option]) -> int:
    """``extract``: run the extractor, write the output, return the exit code."""
    name = args.extractor
    params, _ = _checked_params(args, options)
    encoding = args.encoding
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise UsageError(f"unknown encoding {encoding!r}") from None

    limits = _fetch_limits(args)
    _check_layout_file(name, params)
    page, fetched_url, charset = _read_input(args.input, *limits)
    url = args.url or fetched_url
    encoding = encoding or charset

    from scrapy_boilerplate import extract

    if name == "vips" and url is None and args.input != "-" and not _URL_RE.match(args.input):
        url = Path(args.input).resolve().as_uri()  # a rendered layout loads its style sheets
    try:
        if args.format == "png":
            result = _png(args, page, url, encoding, params)
        else:
            wanted = args.format in METADATA_FORMATS and not args.no_metadata
            result = extract(page, name, url=url, encoding=encoding, metadata=wanted, **params)
            _write(render(result, args.format, page, url, encoding, args.view_remote), args.output)
    except InvalidParameter as exc:  # validated above; a method may still check more
        raise UsageError(str(exc)) from None
    except BoilerplateError as exc:  # (UnsupportedInput is a result, never raised here)
        raise _file_error(exc) from None

    return _report(result, "main text")


def describe_extractors(
    specs: dict[str, tuple[Param, ...]], failures: dict[str, str]
) -> list[dict[str, Any]]:
    """The data of ``list``: each extractor with its parameters (or why it cannot load)."""
    from scrapy_boilerplate.core.result import to_jsonable

    out: list[dict[str, Any]] = []
    for name in sorted(set(specs) | set(failures), key=lambda n: (n != DEFAULT_EXTRACTOR, n)):
        entry: dict[str, Any] = {"name": name, "default": name == DEFAULT_EXTRACTOR}
        if name in failures:
            entry["error"] = failures[name]
        else:
            entry["params"] = [
                {
                    "name": p.name,
                    "option": option_flag(p.name) if p.name not in _RESERVED else None,
                    "type": getattr(p.type, "__name__", str(p.type)),
                    "default": to_jsonable(p.default),
                    "allowed": p.allowed(),
                    "help": p.help,
                }
                for p in specs[name]
            ]
        out.append(entry)
    return out


def cmd_list(
    args: argparse.Namespace, specs: dict[str, tuple[Param, ...]], failures: dict[str, str]
) -> int:
    """``list``: print the extractors and their parameters."""
    entries = describe_extractors(specs, failures)
    if args.json:
        _write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n", None)
        return EXIT_OK
    lines: list[str] = []
    for entry in entries:
        head = entry["name"] + ("  (default)" if entry["default"] else "")
        lines.append(head)
        if "error" in entry:
            lines.append(f"  cannot be loaded: {entry['error']}")
        elif not entry["params"]:
            lines.append("  (no parameters)")
        else:
            spec = {p.name: p for p in specs[entry["name"]]}
            for item in entry["params"]:
                p = spec[item["name"]]
                flag = item["option"] or f"--param {p.name}=..."
                lines.append(f"  {flag} {_metavar(p) if p.type is not bool else '[true|false]'}")
                if p.help:
                    lines.append(f"      {p.help}")
                lines.append(f"      {_describe(p)}")
        lines.append("")
    lines.append(f"Use: {PROG} extract PAGE --extractor NAME [--option VALUE ...]")
    _write("\n".join(lines) + "\n", None)
    return EXIT_OK


def cmd_train_auto(args: argparse.Namespace) -> int:
    """``train auto --data DIR``: auto's model from the datasets unpacked under DIR."""
    from scrapy_boilerplate.auto import train as training

    data: Path = args.data
    if not data.is_dir():
        raise InputError(f"--data: no such folder: {data}")
    out: Path = args.out if args.out.suffix == ".onnx" else args.out / "auto.onnx"
    report = out.with_suffix(".json")
    for path in (out, report):
        if path.exists() and not args.force:
            raise UsageError(f"--out: {path} exists (give --force to replace it)")
    try:
        training.check_data(data)
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from None
    try:
        training.lightgbm_module()
    except RuntimeError as exc:
        _err(str(exc))
        return EXIT_USAGE
    seed = training.SEED if args.seed is None else args.seed
    result = training.train(data, out, log=lambda line: print(line, file=sys.stderr), seed=seed)
    _write(
        f"wrote {out} and {report} (text F1 {result['cv_text_f1']['all']} out of fold); use it "
        f"with scrapy-boilerplate extract -e auto --model {out} PAGE\n",
        None,
    )
    return EXIT_OK


def cmd_train(args: argparse.Namespace) -> int:
    """``train``: a Web2Text model from a folder of (html, text) pairs (or ``train auto``)."""
    if args.data is not None:
        if str(args.dir) != "auto":
            raise UsageError("--data goes with 'train auto' (train auto --data DIR)")
        if args.out == Path("web2text.onnx"):
            args.out = Path("auto.onnx")
        return cmd_train_auto(args)
    if str(args.dir) == "auto" and not args.dir.is_dir():
        raise UsageError("train auto needs --data DIR: the folder the datasets are unpacked in")
    from scrapy_boilerplate.extractors.web2text.data import folder_pairs, load_folder, split_pages

    folder: Path = args.dir
    if not folder.is_dir():
        raise InputError(f"no such folder: {folder}")
    if not 0 < args.valid_share < 1:
        raise UsageError(f"--valid-share must be between 0 and 1, got {args.valid_share}")
    if args.iterations < 1:
        raise UsageError(f"--iterations must be at least 1, got {args.iterations}")
    if sum(1 for _ in folder_pairs(folder)) < 2:
        raise InputError(f"{folder}: needs at least two NAME.html + NAME.txt pairs")
    from scrapy_boilerplate.extractors.web2text import train as training

    try:  # where the model and its report go: checked now, not after the training
        training.check_outputs(args.out, force=args.force)
    except ValueError as exc:
        raise UsageError(f"--out: {exc}") from None
    except OSError as exc:
        raise InputError(f"--out: {exc}") from None
    try:
        training._torch()
    except SystemExit as exc:  # PyTorch missing: say how to get it
        _err(str(exc))
        return EXIT_USAGE
    pages = load_folder(folder)
    seed = 0 if args.seed is None else args.seed
    try:
        train_pages, valid_pages = split_pages(pages, args.valid_share, seed)
    except ValueError as exc:
        raise InputError(f"{folder}: {exc}") from None
    result = training.train(
        train_pages,
        valid_pages,
        args.out,
        iterations=args.iterations,
        seed=seed,
        metadata={"trained_on": str(folder)},
    )
    meta = result.metadata
    _write(
        f"wrote {result.path} ({meta['train_pages']} training pages, {meta['valid_pages']} "
        f"for validation, {meta['train_blocks']} blocks); use it with "
        f"scrapy-boilerplate extract -e web2text --model {result.path} PAGE\n",
        None,
    )
    return EXIT_OK


def cmd_entities(args: argparse.Namespace) -> int:
    """``entities``: the ranked entity lists of a page for a query, as JSON."""
    from scrapy_boilerplate.entities.extract import extract_entities, load_model

    if not args.query.strip():
        raise UsageError("--query must not be empty")
    if args.top_k < 1:
        raise UsageError(f"--top-k must be at least 1, got {args.top_k}")
    limits = _fetch_limits(args)
    if args.model is not None:
        problem = _file_problem(args.model)
        if problem:
            raise InputError(f"model {problem}: {args.model}")
        try:  # read now, not when the page first has a list: a bad file is a usage error
            load_model(args.model)
        except OSError as exc:
            raise InputError(f"cannot read {args.model}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise UsageError(
                f"--model {args.model} is not an entity model ({type(exc).__name__}: {exc})"
            ) from None
    page, _, _ = _read_input(args.input, *limits)
    result = extract_entities(page, args.query, top_k=args.top_k, model=args.model)
    _write(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n", args.output)
    return _report(result, "entity list")


def cmd_batch(args: argparse.Namespace, options: dict[str, _Option]) -> int:
    """``batch``: extract every record of the inputs into --out; 0 once the batch ran."""
    from scrapy_boilerplate.batch import BatchOptions, InputProblem, run_batch
    from scrapy_boilerplate.batch.run import CHUNK

    name = args.extractor
    _, params = _checked_params(args, options)
    for flag, value, least in (("--workers", args.workers, 0), ("--in-flight", args.in_flight, 0),
                               ("--chunk", args.chunk, 1),
                               ("--max-size", args.max_size, 1), ("--max-nodes", args.max_nodes, 0),
                               ("--part-rows", args.part_rows, 1)):  # fmt: skip
        if value is not None and value < least:
            raise UsageError(f"{flag} must be at least {least}, got {value}")
    if not args.timeout >= 0 or args.timeout == float("inf"):
        raise UsageError(f"--timeout must be a number of seconds >= 0, got {args.timeout}")
    if args.resume and args.overwrite:
        raise UsageError("--resume and --overwrite exclude each other")
    if args.format == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(
                "--format parquet needs pyarrow: pip install 'scrapy-boilerplate[batch]'"
            ) from None
    batch_options = BatchOptions(
        extractor=name,
        params=params,
        metadata=args.metadata,
        markdown=args.markdown,
        main_html=args.main_html,
        blocks=args.blocks,
        timeout=args.timeout,
        max_size=args.max_size,
        max_nodes=args.max_nodes,
        format=args.format,
        input_format=args.input_format,
        url_field=args.url_field,
        html_field=args.html_field,
        write_skipped=args.write_skipped,
    )
    show = not args.quiet and sys.stderr is not None and sys.stderr.isatty()
    try:
        summary = run_batch(
            args.inputs,
            args.out,
            batch_options,
            workers=args.workers,
            in_flight=args.in_flight,
            resume=args.resume,
            overwrite=args.overwrite,
            progress=show,
            part_rows=args.part_rows,
            chunk=args.chunk if args.chunk is not None else CHUNK,
        )
    except FileExistsError as exc:
        raise UsageError(f"--out: {exc}: give --resume or --overwrite") from None
    except InputProblem as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{getattr(exc, 'filename', None) or args.out}: "
                         f"{exc.strerror or exc}") from None  # fmt: skip
    if not args.quiet:
        for line in summary.lines():
            print(f"{PROG}: batch: {line}", file=sys.stderr)
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    specs, failures = load_specs()
    parser, options = build_parser(specs)
    try:
        try:
            args = parser.parse_args(_rewrite_bool_flags(argv, options))
        except SystemExit as exc:  # --help / --version
            return exc.code if isinstance(exc.code, int) else 0
        if args.command == "list":
            return cmd_list(args, specs, failures)
        if args.command == "train":
            return cmd_train(args)
        if args.command == "entities":
            return cmd_entities(args)
        if args.command == "batch":
            return cmd_batch(args, options)
        return cmd_extract(args, options)
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except InputError as exc:
        _err(str(exc))
        return EXIT_INPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
