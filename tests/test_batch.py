"""Batch extraction over stored crawls (scrapy_boilerplate.batch, ``scrapy-boilerplate batch``):
every input kind, every bad input, resume after a kill, the same records as a loop over
extract(), parallel the same as serial, the command line."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from batch_fixtures import (
    DyingExtractor,
    SlowExtractor,
    page,
    warc_record,
    write_cache_entry,
    write_warc,
)
from scrapy_boilerplate import cli, extract
from scrapy_boilerplate.batch import (
    TRUNCATED,
    UNREADABLE,
    BatchOptions,
    InputProblem,
    done_keys,
    output,
    read,
    run_batch,
)
from scrapy_boilerplate.batch import run as run_module
from scrapy_boilerplate.core import registry

METHOD = "justext"  # quick to load in every worker process


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _by_id(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (r["source"], r["id"]))


def _mixed_warc(path: Path, n: int = 6) -> dict[str, bytes]:
    """A WARC of ``n`` HTML pages, a 404, an image and an empty page; the pages by URL."""
    pages = {f"http://example.com/{i}": page(i).encode() for i in range(n)}
    records = [warc_record(url, body) for url, body in pages.items()]
    records.insert(2, warc_record("http://example.com/gone", b"<html>gone</html>",
                                  status="404 Not Found"))  # fmt: skip
    records.insert(4, warc_record("http://example.com/a.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 50,
                                  content_type="image/png"))  # fmt: skip
    records.append(warc_record("http://example.com/empty", b"   "))
    write_warc(path, records)
    return pages


def _expected(result: Any, rid: str, source: str, url: str | None, **options: Any) -> dict:
    """The record a plain loop makes from ``Extraction.to_dict()``."""
    d = result.to_dict()
    out = {
        "id": rid,
        "source": source,
        "url": url,
        "main_text": d["main_text"],
        "extractor": d["extractor"],
        "reason": d["reason"],
        "language": d["language"],
    }
    if options.get("blocks", "content") == "content":
        keys = ("text", "tag", "xpath", "index")
        out["blocks"] = [{k: b[k] for k in keys} for b in d["blocks"] if b["label"] == "content"]
    elif options.get("blocks") == "all":
        out["blocks"] = d["blocks"]
    for key in ("page_type", "page_type_probability", "quality"):
        if key in d:
            out[key] = d[key]
    if options.get("metadata"):
        out["metadata"] = d["metadata"]
    if options.get("markdown"):
        out["markdown"] = result.to_markdown()
    if options.get("main_html"):
        out["main_html"] = d["main_html"]
    return out


# ---------------------------------------------------------------------------------------------
# WARC


def test_warc_records_equal_a_loop_over_extract(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    pages = _mixed_warc(warc)
    out = tmp_path / "out.jsonl"
    options = BatchOptions(extractor=METHOD, metadata=True, markdown=True, main_html=True)
    summary = run_batch([warc], out, options, workers=0)
    got = {r["url"]: r for r in _lines(out)}
    assert set(got) == {*pages, "http://example.com/empty"}
    for url, body in pages.items():
        result = extract(
            body, METHOD, url=url, encoding="utf-8", timeout=30.0, metadata=True, main_html=True
        )
        want = _expected(
            result, got[url]["id"], str(warc), url, metadata=True, markdown=True, main_html=True
        )
        assert got[url]["main_html"].startswith("<")
        assert got[url] == want
        assert got[url]["main_text"] and got[url]["id"].startswith("<urn:uuid:")
    assert got["http://example.com/empty"]["reason"] == "empty"
    assert summary.records == len(pages) + 3
    assert summary.extracted == len(pages)
    assert summary.skipped == {"http-status": 1, "not-html": 1}
    assert summary.empty == {"empty": 1}
    assert summary.errors == 0


def test_blocks_modes_and_auto_fields(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc"
    body = page(1).encode()
    write_warc(warc, [warc_record("http://example.com/1", body)], compress=False)
    for mode in ("all", "none"):
        out = tmp_path / f"{mode}.jsonl"
        run_batch([warc], out, BatchOptions(extractor=METHOD, blocks=mode), workers=0)
        (got,) = _lines(out)
        result = extract(body, METHOD, url="http://example.com/1", encoding="utf-8")
        assert got == _expected(result, got["id"], str(warc), "http://example.com/1", blocks=mode)
    out = tmp_path / "auto.jsonl"
    run_batch([warc], out, BatchOptions(extractor="auto"), workers=0)
    (got,) = _lines(out)
    assert got["page_type"] and 0 <= got["quality"] <= 1 and "page_type_probability" in got


def test_parallel_output_equals_serial_output(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    _mixed_warc(warc, n=12)
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    options = BatchOptions(extractor=METHOD, write_skipped=True)
    one = run_batch([warc], serial, options, workers=0)
    two = run_batch([warc], parallel, options, workers=2, in_flight=3)
    assert _by_id(_lines(parallel)) == _by_id(_lines(serial))
    assert len(_lines(serial)) == 15
    assert (two.records, two.extracted, two.skipped) == (one.records, one.extracted, one.skipped)


def test_a_worker_that_dies_costs_its_pages_not_the_batch(tmp_path: Path) -> None:
    # "dying" is registered in this process only: the workers register it from its class.
    registry.register("dying", DyingExtractor)
    try:
        warc = tmp_path / "crawl.warc.gz"
        texts = ["alpha words", "beta words", "die", "gamma words", "delta words"]
        _words_warc(warc, texts)
        out = tmp_path / "out.jsonl"
        summary = run_batch([warc], out, BatchOptions(extractor="dying"), workers=1,
                            in_flight=1)  # fmt: skip
    finally:
        registry.unregister("dying")
    got = {r["url"]: r for r in _lines(out)}
    assert len(got) == 5 and summary.records == 5
    assert got["http://example.com/2"]["reason"] == "error"
    assert "died" in got["http://example.com/2"]["detail"]
    assert [got[f"http://example.com/{i}"]["main_text"] for i in (0, 1, 3, 4)] == [
        "alpha words", "beta words", "gamma words", "delta words"]  # fmt: skip
    assert summary.errors == 1 and summary.extracted == 4


def _words_warc(path: Path, texts: list[str]) -> None:
    write_warc(path, [warc_record(f"http://example.com/{i}", f"<p>{t}</p>".encode())
                      for i, t in enumerate(texts)])  # fmt: skip


def test_a_worker_that_dies_in_a_chunk_costs_only_the_page_that_killed_it(
    tmp_path: Path,
) -> None:
    # one task holds all six pages; the worker dies at the third: the other five are
    # extracted again one at a time, and the page that kills the next worker too is lost
    registry.register("dying", DyingExtractor)
    try:
        warc = tmp_path / "crawl.warc.gz"
        texts = ["alpha words", "beta words", "die", "gamma words", "delta words", "eta words"]
        _words_warc(warc, texts)
        out = tmp_path / "out.jsonl"
        summary = run_batch([warc], out, BatchOptions(extractor="dying"), workers=1, chunk=6)
    finally:
        registry.unregister("dying")
    got = {r["url"]: r for r in _lines(out)}
    assert len(got) == 6 and summary.records == 6
    assert got["http://example.com/2"]["reason"] == "error"
    assert "died" in got["http://example.com/2"]["detail"]
    assert [got[f"http://example.com/{i}"]["main_text"] for i in (0, 1, 3, 4, 5)] == [
        t for t in texts if t != "die"]  # fmt: skip
    assert summary.errors == 1 and summary.extracted == 5


def test_a_page_past_its_deadline_in_a_chunk_times_out_alone(tmp_path: Path) -> None:
    registry.register("slow", SlowExtractor)
    try:
        warc = tmp_path / "crawl.warc.gz"
        texts = ["alpha words", "slow", "beta words", "gamma words"]
        _words_warc(warc, texts)
        out = tmp_path / "out.jsonl"
        summary = run_batch([warc], out, BatchOptions(extractor="slow", timeout=0.5),
                            workers=1, chunk=4)  # fmt: skip
    finally:
        registry.unregister("slow")
    got = {r["url"]: r for r in _lines(out)}
    assert got["http://example.com/1"]["reason"] == "timeout"
    assert [got[f"http://example.com/{i}"]["main_text"] for i in (0, 2, 3)] == [
        "alpha words", "beta words", "gamma words"]  # fmt: skip
    assert summary.errors == 1 and summary.empty == {"timeout": 1} and summary.extracted == 3


@pytest.mark.parametrize(("chunk", "in_flight"), [(4, 0), (3, 5), (16, 2)])
def test_chunked_output_equals_serial_output(tmp_path: Path, chunk: int, in_flight: int) -> None:
    # chunks cut short by the input's end, by skipped records, by a small in_flight
    warc = tmp_path / "crawl.warc.gz"
    _mixed_warc(warc, n=9)
    serial, chunked = tmp_path / "serial.jsonl", tmp_path / "chunked.jsonl"
    options = BatchOptions(extractor=METHOD, write_skipped=True)
    one = run_batch([warc], serial, options, workers=0)
    counts: list[int] = []
    two = run_batch([warc], chunked, options, workers=2, in_flight=in_flight, chunk=chunk,
                    on_record=lambda s: counts.append(s.records))  # fmt: skip
    assert _by_id(_lines(chunked)) == _by_id(_lines(serial))
    assert len(_lines(serial)) == 12
    assert (two.records, two.extracted, two.skipped) == (one.records, one.extracted, one.skipped)
    assert counts == list(range(1, 13))  # progress record by record, chunks or not


def test_pages_larger_than_a_pipe_pass_whole_through_the_workers(tmp_path: Path) -> None:
    # bodies of 0.3 and 1.5 MB: wider than a default pipe (64 KiB) and than the widened one
    warc = tmp_path / "big.warc.gz"
    pages = {f"http://example.com/big{i}": page(i, paragraphs=n).encode()
             for i, n in enumerate((600, 3000, 2))}  # fmt: skip
    assert max(len(b) for b in pages.values()) > run_module.PIPE_BYTES
    write_warc(warc, [warc_record(url, body) for url, body in pages.items()])
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    run_batch([warc], serial, BatchOptions(extractor=METHOD), workers=0)
    run_batch([warc], parallel, BatchOptions(extractor=METHOD), workers=1)
    assert _by_id(_lines(parallel)) == _by_id(_lines(serial))
    assert {r["url"] for r in _lines(parallel)} == set(pages)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="F_SETPIPE_SZ is Linux's")
def test_the_pools_pipes_are_widened(tmp_path: Path) -> None:
    import fcntl

    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    if limit < run_module.PIPE_BYTES:
        pytest.skip(f"this system's pipes grow to {limit} bytes at most")
    pool = run_module._pool(1, BatchOptions(extractor=METHOD))
    try:
        queues: list[Any] = [pool._call_queue, pool._result_queue]  # type: ignore[attr-defined]
        for queue in queues:
            size = fcntl.fcntl(queue._writer.fileno(), fcntl.F_GETPIPE_SZ)
            assert size >= run_module.PIPE_BYTES
    finally:
        pool.shutdown()


def test_widening_pipes_that_are_not_there_leaves_the_pool_as_it_is() -> None:
    class NoQueues:
        pass

    class ClosedQueue:
        class _writer:
            @staticmethod
            def fileno() -> int:
                raise ValueError("closed")

    assert run_module._widen_pipes(NoQueues()) == 0  # type: ignore[arg-type]
    pool = NoQueues()
    pool._call_queue = ClosedQueue()  # type: ignore[attr-defined]
    assert run_module._widen_pipes(pool) == 0  # type: ignore[arg-type]


def test_encoded_lines_are_json_dumps_text() -> None:
    record = {"id": "a", "main_text": "caf\u00e9 \u4e2d\u6587 \ud800 \"q\"\n", "n": 0.5,
              "blocks": [{"text": "x", "index": 1}], "url": None}  # fmt: skip
    line = output.encode(record, "jsonl")
    want = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
    assert line == want
    row = output.encode(record, "parquet")
    assert row["blocks"] == json.dumps(record["blocks"], ensure_ascii=False)


def test_truncated_warc_keeps_the_records_before_the_cut(tmp_path: Path) -> None:
    warc = tmp_path / "cut.warc.gz"
    bodies = [page(i).encode() for i in range(3)]
    write_warc(warc, [warc_record(f"http://example.com/{i}", b) for i, b in enumerate(bodies)])
    data = warc.read_bytes()
    warc.write_bytes(data[: len(data) - 200])
    out = tmp_path / "out.jsonl"
    summary = run_batch([warc], out, BatchOptions(extractor=METHOD), workers=0)
    assert [r["url"] for r in _lines(out)] == ["http://example.com/0", "http://example.com/1"]
    assert summary.skipped == {TRUNCATED: 1}
    assert summary.errors == 1


def test_uncompressed_warc_cut_in_a_body(tmp_path: Path) -> None:
    warc = tmp_path / "cut.warc"
    write_warc(warc, [warc_record(f"http://example.com/{i}", page(i).encode()) for i in range(2)],
               compress=False)  # fmt: skip
    warc.write_bytes(warc.read_bytes()[:-300])
    records = list(read(warc))
    assert [r.skip for r in records] == [None, TRUNCATED]


def test_bad_gzip_member_is_skipped_and_the_batch_goes_on(tmp_path: Path) -> None:
    warc = tmp_path / "bad.warc.gz"
    recs = [warc_record(f"http://example.com/{i}", page(i).encode()) for i in range(5)]
    offsets = write_warc(warc, recs)
    data = bytearray(warc.read_bytes())
    middle = (offsets[2] + offsets[3]) // 2
    data[middle : middle + 40] = b"\0" * 40  # member 2's deflate stream is broken
    warc.write_bytes(bytes(data))
    out = tmp_path / "out.jsonl"
    summary = run_batch([warc], out, BatchOptions(extractor=METHOD, write_skipped=True),
                        workers=0)  # fmt: skip
    got = _lines(out)
    urls = [r["url"] for r in got if not r.get("skipped")]
    assert urls == ["http://example.com/0", "http://example.com/1", "http://example.com/3",
                    "http://example.com/4"]  # fmt: skip
    assert summary.skipped == {UNREADABLE: 1}
    (bad,) = [r for r in got if r.get("skipped")]
    assert (
        bad["reason"] == UNREADABLE and bad["main_text"] == "" and bad["id"].startswith("offset:")
    )


def test_body_over_the_cap_is_skipped_unread(tmp_path: Path) -> None:
    warc = tmp_path / "big.warc.gz"
    big = page(1, paragraphs=200).encode()
    write_warc(warc, [warc_record("http://example.com/big", big),
                      warc_record("http://example.com/small", page(2).encode())])  # fmt: skip
    out = tmp_path / "out.jsonl"
    summary = run_batch([warc], out, BatchOptions(extractor=METHOD, max_size=len(big) - 1),
                        workers=0)  # fmt: skip
    assert [r["url"] for r in _lines(out)] == ["http://example.com/small"]
    assert summary.skipped == {"too-large": 1}


def test_timeout_gives_a_record_with_reason_timeout(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [warc_record("http://example.com/1", page(1, paragraphs=30).encode())])
    out = tmp_path / "out.jsonl"
    summary = run_batch([warc], out, BatchOptions(extractor=METHOD, timeout=1e-9), workers=0)
    (got,) = _lines(out)
    assert got["reason"] == "timeout" and got["main_text"] == ""
    assert summary.errors == 1 and summary.empty == {"timeout": 1}


# ---------------------------------------------------------------------------------------------
# Scrapy's HTTP cache


@pytest.mark.parametrize("use_gzip", [False, True])
def test_httpcache_entries_without_unpickling(tmp_path: Path, use_gzip: bool) -> None:
    cache = tmp_path / "httpcache"
    trap = tmp_path / "pickle-was-loaded"
    bodies = {f"http://example.com/{i}": page(i).encode() for i in range(3)}
    fps = {
        url: write_cache_entry(cache, "news", url, body, use_gzip=use_gzip, trap=trap)
        for url, body in bodies.items()
    }
    write_cache_entry(cache, "news", "http://example.com/x", b"<p>x</p>", status=500,
                      use_gzip=use_gzip)  # fmt: skip
    write_cache_entry(cache, "shop", "http://example.com/f.pdf", b"%PDF-1.4",
                      content_type="application/pdf", use_gzip=use_gzip)  # fmt: skip
    broken = write_cache_entry(cache, "shop", "http://example.com/broken", b"<p>y</p>")
    (cache / "shop" / broken[:2] / broken / "meta").write_bytes(b"{'status': 200, 'url': ")
    missing = write_cache_entry(cache, "shop", "http://example.com/missing", b"<p>z</p>")
    (cache / "shop" / missing[:2] / missing / "response_body").unlink()
    out = tmp_path / "out.jsonl"
    summary = run_batch([cache], out, BatchOptions(extractor=METHOD), workers=0)
    assert not trap.exists()  # no pickle of the cache was loaded
    got = {r["url"]: r for r in _lines(out)}
    assert set(got) == set(bodies)
    for url, body in bodies.items():
        result = extract(body, METHOD, url=url, encoding="utf-8", timeout=30.0)
        assert got[url] == _expected(result, fps[url], str(cache / "news"), url)
    assert summary.skipped == {"http-status": 1, "not-html": 1, UNREADABLE: 2}
    # one spider's folder is an input too
    one = tmp_path / "news.jsonl"
    run_batch([cache / "news"], one, BatchOptions(extractor=METHOD), workers=0)
    assert {r["id"] for r in _lines(one)} == set(fps.values())


# ---------------------------------------------------------------------------------------------
# JSON lines and HTML folders


def test_jsonl_input_with_field_names(tmp_path: Path) -> None:
    src = tmp_path / "pages.jsonl.gz"
    lines = [
        json.dumps({"link": "http://example.com/1", "content": page(1)}),
        "",
        "{not json",
        json.dumps({"link": "http://example.com/3", "other": "no html"}),
        json.dumps({"link": "http://example.com/4", "content": page(4, paragraphs=40)}),
        json.dumps({"link": "http://example.com/5", "content": page(5)}),
    ]
    src.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    out = tmp_path / "out.jsonl"
    options = BatchOptions(extractor=METHOD, url_field="link", html_field="content",
                           max_size=len(lines[4]) - 10, write_skipped=True)  # fmt: skip
    summary = run_batch([src], out, options, workers=0)
    got = {r["id"]: r for r in _lines(out)}
    assert {k: v["reason"] for k, v in got.items()} == {
        "1": None,
        "3": UNREADABLE,
        "4": UNREADABLE,
        "5": "too-large",
        "6": None,
    }
    assert got["6"]["url"] == "http://example.com/5"
    result = extract(page(5).encode(), METHOD, url="http://example.com/5", encoding="utf-8")
    assert got["6"] == _expected(result, "6", str(src), "http://example.com/5")
    assert summary.skipped == {UNREADABLE: 2, "too-large": 1}


def test_html_folder_ids_are_paths(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    (folder / "blog").mkdir(parents=True)
    (folder / "index.html").write_text(page(0))
    (folder / "blog" / "post.htm").write_text(page(1))
    (folder / "notes.txt").write_text("not a page")
    out = tmp_path / "out.jsonl"
    run_batch([folder], out, BatchOptions(extractor=METHOD), workers=0)
    got = {r["id"]: r for r in _lines(out)}
    assert set(got) == {"index.html", "blog/post.htm"}
    result = extract(page(1).encode(), METHOD, timeout=30.0)
    assert got["blog/post.htm"] == _expected(result, "blog/post.htm", str(folder), None)


def test_inputs_are_told_apart_by_content(tmp_path: Path) -> None:
    warc = tmp_path / "crawl-data"  # no extension: a gzipped WARC by its content
    write_warc(warc, [warc_record("http://example.com/1", page(1).encode())])
    lines = tmp_path / "export"
    lines.write_text(json.dumps({"url": "http://example.com/2", "html": page(2)}) + "\n")
    out = tmp_path / "out.jsonl"
    run_batch([warc, lines], out, BatchOptions(extractor=METHOD), workers=0)
    got = {r["url"]: r["source"] for r in _lines(out)}
    assert got == {"http://example.com/1": str(warc), "http://example.com/2": str(lines)}


def test_an_input_that_cannot_be_read_is_refused_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputProblem):
        run_batch([tmp_path / "missing.warc.gz"], out, BatchOptions(extractor=METHOD))
    odd = tmp_path / "data.bin"
    odd.write_bytes(b"\0\1\2 binary")
    with pytest.raises(InputProblem):
        run_batch([odd], out, BatchOptions(extractor=METHOD))
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# Resume


def test_resume_after_a_kill_with_a_torn_last_line(tmp_path: Path) -> None:
    warc = tmp_path / "crawl.warc.gz"
    _mixed_warc(warc, n=8)
    full = tmp_path / "full.jsonl"
    run_batch([warc], full, BatchOptions(extractor=METHOD), workers=0)
    lines = full.read_bytes().splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"".join(lines[:4]) + lines[4][: len(lines[4]) // 2])  # killed mid-line
    with pytest.raises(FileExistsError):
        run_batch([warc], out, BatchOptions(extractor=METHOD), workers=0)
    summary = run_batch([warc], out, BatchOptions(extractor=METHOD), workers=0, resume=True)
    assert summary.already_done == 4
    assert _lines(out) == _lines(full)  # nothing twice, nothing lost, the torn line gone
    again = run_batch([warc], out, BatchOptions(extractor=METHOD), workers=0, resume=True)
    assert again.already_done == len(lines) and again.records == 2  # the two skipped
    assert len(_lines(out)) == len(lines)


def test_done_keys_cuts_a_torn_tail(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"source": "a", "id": "1"}\n{"source": "a", "id": "2"}\n{"sour')
    assert done_keys(out, "jsonl") == {("a", "1"), ("a", "2")}
    assert out.read_bytes().endswith(b'"2"}\n')


# ---------------------------------------------------------------------------------------------
# Parquet


def test_parquet_parts_hold_the_jsonl_records_and_resume(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    warc = tmp_path / "crawl.warc.gz"
    _mixed_warc(warc, n=5)
    jsonl = tmp_path / "out.jsonl"
    options = BatchOptions(extractor=METHOD, metadata=True)
    run_batch([warc], jsonl, options, workers=0)
    folder = tmp_path / "parts"
    popts = BatchOptions(extractor=METHOD, metadata=True, format="parquet")
    run_batch([warc], folder, popts, workers=0, part_rows=2)
    parts = sorted(p.name for p in folder.iterdir())
    assert parts == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    rows = pq.read_table(folder).to_pylist()
    want = {r["id"]: r for r in _lines(jsonl)}
    assert len(rows) == len(want)
    for row in rows:
        record = want[row["id"]]
        assert json.loads(row["blocks"]) == record["blocks"]
        assert json.loads(row["metadata"]) == record["metadata"]
        assert row["main_text"] == record["main_text"] and row["reason"] == record["reason"]
        assert row["skipped"] is False and row["markdown"] is None
    # a kill while a part was being written leaves a .tmp: resume removes it, adds nothing
    (folder / "part-00003.parquet.tmp").write_bytes(b"PAR1 torn")
    summary = run_batch([warc], folder, popts, workers=0, resume=True)
    assert summary.already_done == len(want) and not (folder / "part-00003.parquet.tmp").exists()
    assert len(pq.read_table(folder).to_pylist()) == len(want)


# ---------------------------------------------------------------------------------------------
# Command line


def test_cli_batch_runs_with_bad_records_and_reuses_parameter_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    warc = tmp_path / "crawl.warc.gz"
    pages = _mixed_warc(warc, n=3)
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(warc), "--out", str(out), "-e", METHOD, "--workers", "0",
            "--length-low", "10", "--no-headings", "--markdown", "--blocks", "none"]  # fmt: skip
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "6 records" in err and "skipped: http-status 1, not-html 1" in err
    got = {r["url"]: r for r in _lines(out)}
    url = next(iter(pages))
    result = extract(pages[url], METHOD, url=url, encoding="utf-8", length_low=10,
                     no_headings=True)  # fmt: skip
    assert got[url] == _expected(result, got[url]["id"], str(warc), url, blocks="none",
                                 markdown=True)  # fmt: skip
    assert got[url]["main_text"] != extract(pages[url], METHOD).main_text  # the options count
    # run again: refused without --resume, nothing to do with it
    assert cli.main(argv) == cli.EXIT_USAGE
    assert cli.main([*argv, "--resume", "--quiet"]) == 0
    assert capsys.readouterr().err.count("batch:") == 0
    assert len(_lines(out)) == 4


@pytest.mark.parametrize(
    "extra",
    [
        ["-e", "nosuchmethod"],
        ["-e", "cnr", "--length-low", "10"],  # a jusText parameter
        ["--blocks", "some"],
        ["--workers", "-1"],
        ["--chunk", "0"],
        ["--timeout", "-2"],
        ["--resume", "--overwrite"],
        ["--length-low", "-5"],
    ],
)
def test_cli_batch_usage_errors(tmp_path: Path, extra: list[str]) -> None:
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [warc_record("http://example.com/1", page(1).encode())])
    out = tmp_path / "out.jsonl"
    assert cli.main(["batch", str(warc), "--out", str(out), "-e", METHOD, *extra]) == 2
    assert not out.exists()


def test_cli_batch_missing_input_is_an_input_error(tmp_path: Path) -> None:
    code = cli.main(["batch", str(tmp_path / "nope.warc.gz"), "--out", str(tmp_path / "o")])
    assert code == cli.EXIT_INPUT
