"""Byte-level fuzzing of every entry point with atheris (libFuzzer), from real pages.

Run it through fuzz/run.py, or directly (libFuzzer flags pass through)::

    python fuzz/atheris_fuzz.py -max_total_time=300 -timeout=20 -rss_limit_mb=3072 \
        -max_len=65536 -dict=fuzz/html.dict -artifact_prefix=fuzz/.work/crashes/ \
        fuzz/.work/corpus

With no corpus directory among the arguments, the seed corpus (see seeds.py) is built in
fuzz/.work/corpus first. Give a crash file instead of a directory to replay it once;
``python fuzz/run.py --show CRASH`` prints which entry point it hits and the input.

Input layout: byte 0 picks the entry point (``TARGETS``), byte 1 the ``Content-Type``
and byte 2 the extractor (and a small piece size for ``decode_in_pieces``) for the Scrapy
targets, the rest is the page. An exception or
a broken contract (fuzz_contract.py) is a crash.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import atheris

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

with atheris.instrument_imports(include=["scrapy_boilerplate", "w3lib", "parsel", "fuzz_contract"]):
    import fuzz_contract as contract

    import scrapy_boilerplate
    import scrapy_boilerplate.entities.extract
    import scrapy_boilerplate.extractors.cnr
    import scrapy_boilerplate.extractors.justext
    import scrapy_boilerplate.extractors.vips
    import scrapy_boilerplate.extractors.web2text
    import scrapy_boilerplate.scrapy.middlewares  # noqa: F401

import seeds  # noqa: E402


def _extract_bytes(i: int) -> Any:
    return lambda page, data: contract.check_extract(page, *contract.EXTRACTORS[i])


def _extract_str(i: int) -> Any:
    # surrogateescape: bytes that are not UTF-8 become lone surrogates in the str
    return lambda page, data: contract.check_extract(
        page.decode("utf-8", "surrogateescape"), *contract.EXTRACTORS[i]
    )


def _scrapy(html_response: bool) -> Any:
    def run(page: bytes, data: bytes) -> None:
        n = len(contract.CONTENT_TYPES)
        pick = data[1] % (n + 1)
        if pick < n:
            content_type = contract.CONTENT_TYPES[pick]
        else:  # the header from the input itself: the bytes before the first blank line
            content_type, sep, rest = page.partition(b"\r\n\r\n")
            if not sep or len(content_type) > 200:
                content_type = None
            else:
                page = rest
        method = contract.EXTRACTORS[data[2] % len(contract.EXTRACTORS)]
        piece_size = 1 + data[2] // len(contract.EXTRACTORS) % 16
        contract.check_scrapy(
            page, content_type, *method, html_response=html_response, piece_size=piece_size
        )

    return run


#: Extractor names in targets ("justext+" is jusText with reference_compat).
_NAMES = [name + "+" * (i == 1) for i, (name, _) in enumerate(contract.EXTRACTORS)]
#: Entry point per value of byte 0 (modulo the length).
TARGETS: list[tuple[str, Any]] = [
    *((f"extract-bytes:{n}", _extract_bytes(i)) for i, n in enumerate(_NAMES)),
    *((f"extract-str:{n}", _extract_str(i)) for i, n in enumerate(_NAMES)),
    ("parse-bytes", lambda page, data: contract.check_parse(page)),
    ("parse-str", lambda page, data: contract.check_parse(page.decode("utf-8", "surrogateescape"))),
    ("entities", lambda page, data: contract.check_entities(page, "names")),
    ("scrapy-html-response", _scrapy(True)),
    ("scrapy-text-response", _scrapy(False)),
]
assert len(TARGETS) == seeds.N_TARGETS, len(TARGETS)

#: BOILERPLATE_FUZZ_TARGET=name: fuzz that entry point only (byte 0 is then ignored).
_ONLY = os.environ.get("BOILERPLATE_FUZZ_TARGET")
if _ONLY:
    _FIXED = [t for t in TARGETS if t[0] == _ONLY]
    if not _FIXED:
        sys.exit(f"unknown BOILERPLATE_FUZZ_TARGET {_ONLY!r}; one of {[t[0] for t in TARGETS]}")


def target_of(data: bytes) -> tuple[str, Any]:
    if _ONLY:
        return _FIXED[0]
    return TARGETS[data[0] % len(TARGETS)]


def TestOneInput(data: bytes) -> None:  # atheris' name
    if len(data) < 3:
        return
    _name, run = target_of(data)
    run(data[3:], data)


def main() -> None:
    argv = list(sys.argv)
    if not any(Path(a).is_dir() for a in argv[1:] if not a.startswith("-")) and not any(
        Path(a).is_file() for a in argv[1:] if not a.startswith("-")
    ):
        corpus = seeds.WORK / "corpus"
        info = seeds.build_corpus(corpus)
        if not info["datasets_present"]:
            print(
                "atheris_fuzz: ./datasets is missing: seeds are tests/pages only "
                "(unpack with ../shared/data/unpack datasets)",
                file=sys.stderr,
            )
        print(f"atheris_fuzz: seed corpus {corpus}: {info}", file=sys.stderr)
        argv.append(str(corpus))
    for arg in argv:
        if arg.startswith("-artifact_prefix=") and arg.endswith("/"):
            Path(arg.split("=", 1)[1]).mkdir(parents=True, exist_ok=True)
    atheris.Setup(argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
