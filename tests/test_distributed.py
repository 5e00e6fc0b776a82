"""Two Scrapy processes share one Redis queue (scrapy-redis) over the example site.

The test starts its own ``redis-server`` on 127.0.0.1 (a free port, no persistence, in a
temporary folder) and serves examples/site/ over HTTP on 127.0.0.1, then runs two workers
of examples/distributed/ (tests/distributed_worker.py) at once and checks that every page
was crawled once, by one of them, and that every item has main text and is plain JSON.

Without ``redis-server`` (Debian: ``apt-get install redis-server``) the test is skipped,
unless ``BOILERPLATE_REQUIRE_REDIS=1`` (set by .ci/run), where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "examples" / "site"
WORKER = Path(__file__).resolve().parent / "distributed_worker.py"
PAGES = sorted(p.name for p in SITE.glob("*.html"))  # index.html and the articles
N_WORKERS = 2
# One request at a time per worker, one second apart: the crawl lasts longer than the
# engine's 5-second heartbeat, so the worker that did not get the start URL finds pages
# in the shared queue (an idle worker looks at the queue on each heartbeat).
WORKER_SETTINGS = {
    "CONCURRENT_REQUESTS": "1",
    "DOWNLOAD_DELAY": "1",
    "RANDOMIZE_DOWNLOAD_DELAY": "False",
    "MAX_IDLE_TIME_BEFORE_CLOSE": "3",
    "BOILERPLATE_WORKERS": "1",
    "REMOTE_CONTROL_ENABLED": "False",
    "LOG_LEVEL": "INFO",
}
READY_TIMEOUT = 60.0  # seconds for both workers to open their spider
CRAWL_TIMEOUT = 60.0  # seconds from the seed to both workers' exit


def _missing(what: str) -> None:
    message = f"{what}; the distributed test needs it (see tests/test_distributed.py)"
    if os.environ.get("BOILERPLATE_REQUIRE_REDIS") == "1":
        pytest.fail(f"{message}, and BOILERPLATE_REQUIRE_REDIS=1 requires it")
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_redis(server: str, workdir: Path) -> tuple[subprocess.Popen, int, Any]:
    """redis-server on 127.0.0.1 (a free port), no RDB or AOF files; waits for PING."""
    import redis

    last_log = ""
    for attempt in range(3):  # a free port can be taken before redis-server binds it
        port = _free_port()
        log_path = workdir / f"redis-{attempt}.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [
                    server,
                    "--bind", "127.0.0.1",
                    "--port", str(port),
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", str(workdir),
                    "--daemonize", "no",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=workdir,
            )  # fmt: skip
        client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
        deadline = time.monotonic() + 15
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                client.ping()
                return proc, port, client
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        _stop(proc)
        client.close()
        last_log = log_path.read_text(errors="replace")
    pytest.fail(f"redis-server did not start:\n{last_log[-2000:]}")


def _stop(proc: subprocess.Popen, timeout: float = 10) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _serve(directory: Path) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/"


def _tail(path: Path, chars: int = 4000) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no output)"
    return f"--- {path.name} ---\n{text[-chars:]}"


def test_two_workers_share_one_redis_queue_and_crawl_every_page_once(tmp_path):
    server_path = shutil.which("redis-server")
    if server_path is None:
        _missing("redis-server is not installed (Debian: apt-get install redis-server)")
    for module in ("redis", "scrapy_redis"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"the Python package {module!r} is not installed (pip install -e '.[test]')")

    logs = [tmp_path / f"worker-{i}.log" for i in range(N_WORKERS)]
    items_files = [tmp_path / f"items-{i}.jsonl" for i in range(N_WORKERS)]
    stats_files = [tmp_path / f"stats-{i}.json" for i in range(N_WORKERS)]
    workers: list[subprocess.Popen] = []
    http_server = None
    redis_proc, port, client = _start_redis(server_path, tmp_path)
    started = time.monotonic()
    try:
        http_server, base_url = _serve(SITE)
        settings = {**WORKER_SETTINGS, "REDIS_URL": f"redis://127.0.0.1:{port}/0"}
        args = [arg for name, value in settings.items() for arg in ("-s", f"{name}={value}")]
        for items, stats_file, log_path in zip(items_files, stats_files, logs, strict=True):
            with log_path.open("wb") as log:
                command = [sys.executable, str(WORKER), str(items), str(stats_file), *args]
                workers.append(
                    subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path)
                )
        # Seed once both spiders are open, so both wait on the same queue.
        deadline = time.monotonic() + READY_TIMEOUT
        while not all("Spider opened" in log.read_text(errors="replace") for log in logs):
            exited = [w.returncode for w in workers if w.poll() is not None]
            if exited or time.monotonic() > deadline:
                pytest.fail(
                    "the workers did not open their spider (exit codes "
                    f"{[w.poll() for w in workers]}):\n" + "\n".join(map(_tail, logs))
                )
            time.sleep(0.1)
        # The start page through Redis, with a per-request method in plain-JSON meta.
        seed = {"url": base_url + "index.html", "meta": {"boilerplate": {"extractor": "cnr"}}}
        client.lpush("atlas:start_urls", json.dumps(seed))

        deadline = time.monotonic() + CRAWL_TIMEOUT
        for worker in workers:
            try:
                worker.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pytest.fail(
                    f"the workers did not stop {CRAWL_TIMEOUT:.0f} s after the seed:\n"
                    + "\n".join(map(_tail, logs))
                )
        elapsed = time.monotonic() - started
        codes = [w.returncode for w in workers]
        assert codes == [0] * N_WORKERS, f"exit codes {codes}\n" + "\n".join(
            _tail(p) for p in logs + stats_files
        )

        stats = [json.loads(p.read_text(encoding="utf-8")) for p in stats_files]
        per_worker: list[list[dict[str, Any]]] = []
        for path in items_files:
            items = []
            for line in path.read_text(encoding="utf-8").splitlines():
                item = json.loads(line)
                assert json.loads(json.dumps(item)) == item
                items.append(item)
            per_worker.append(items)
        every = [item for items in per_worker for item in items]
        urls = Counter(item["url"] for item in every)

        # Every page once, across both processes.
        assert set(urls) == {base_url + page for page in PAGES}
        assert [u for u, n in urls.items() if n > 1] == []
        assert sum(s.get("response_received_count", 0) for s in stats) == len(PAGES)
        assert sum(s.get("boilerplate/pages", 0) for s in stats) == len(PAGES)
        assert [s.get("log_count/ERROR", 0) for s in stats] == [0] * N_WORKERS
        # Both processes did some of the work.
        done = [s.get("response_received_count", 0) for s in stats]
        assert all(done), f"pages per worker: {done}\n" + "\n".join(map(_tail, logs))

        # Every item has main text; only plain JSON types (no numpy scalars) anywhere.
        assert all(isinstance(it["main_text"], str) and it["main_text"].strip() for it in every)
        assert all(it["boilerplate_reason"] is None and it["blocks"] for it in every)
        assert [p for s in stats for p in s["plain_json_problems"]] == []
        # The seed's meta crossed Redis: the start page got its own method.
        extractors = {it["url"].rsplit("/", 1)[-1]: it["extractor"] for it in every}
        assert extractors.pop("index.html") == "cnr"
        assert set(extractors.values()) == {"justext"}

        # Redis: one fingerprint per page, nothing left queued, the items list complete.
        assert client.scard("atlas:dupefilter") == len(PAGES)
        assert client.zcard("atlas:requests") == 0
        assert client.llen("atlas:start_urls") == 0
        shared = [json.loads(raw) for raw in client.lrange("atlas:items", 0, -1)]
        assert Counter(item["url"] for item in shared) == urls
        assert elapsed < 90, f"the distributed crawl took {elapsed:.0f} s"
    finally:
        for worker in workers:
            _stop(worker)
        if http_server is not None:
            http_server.shutdown()
            http_server.server_close()
        client.close()
        _stop(redis_proc)
