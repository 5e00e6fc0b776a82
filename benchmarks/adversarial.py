#!/usr/bin/env python
"""Time and memory of every extractor on every hostile page of tests/adversarial.py.

    python benchmarks/adversarial.py [--methods justext cnr web2text vips auto entities]
                                     [--pages NAME ...] [--timeout 30]
    python benchmarks/adversarial.py --rendered [--timeout 30]   (VIPS's browser)

Each (page, method) runs in a fresh Python process: the page is generated there, then
``extract(page, method, timeout=T)`` (VIPS on its static layout; ``entities`` is
``extract_entities`` under the same deadline) is timed. Reported per run: the outcome
(``ok`` or the reason), seconds of the call, and memory: the process's peak resident
size (``ru_maxrss``) minus its resident size just before the call (the page itself, up
to 50 MB of bytes, is made before that point, so it is not counted), i.e. what the
extraction added at its peak. A run that does not end within ``--timeout`` + 60 s is
killed and reported as ``hung`` (none should be).

Output: a Markdown table printed; with ``--out DIR``, written to ``DIR/adversarial.md``
and every figure to ``DIR/adversarial.json``. No dataset is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from harness.output import add_out, write_reports

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
METHODS = ("justext", "cnr", "web2text", "vips", "auto", "entities")

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {tests!r})
import adversarial
from scrapy_boilerplate import extract
from scrapy_boilerplate.entities.extract import extract_entities, load_model
from scrapy_boilerplate.core.deadline import deadline, ExtractionTimeout

name, method, limit = {name!r}, {method!r}, {limit!r}
# Everything the method loads once per process (models, stoplists, the tagger) is loaded
# on a small page first, so what is measured is the page.
warm = adversarial.ARTICLE
if method == "entities":
    extract_entities(warm, "warm up")
else:
    extract(warm, method, **({{"layout": "static"}} if method == "vips" else {{}}))
page = adversarial.PAGES[name].make()


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


before = rss_kb()
peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
if method == "entities":
    try:
        with deadline(time.monotonic() + limit, limit):
            r = extract_entities(page, "names")
        outcome = r.reason or "ok"
        size = len(r.lists)
    except ExtractionTimeout:
        outcome, size = "timeout", 0
else:
    params = {{"layout": "static"}} if method == "vips" else {{}}
    r = extract(page, method, timeout=limit, **params)
    outcome = r.reason or "ok"
    size = len(r.main_text)
    json.dumps(r.to_dict(), allow_nan=False)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"outcome": outcome, "seconds": seconds, "size": size,
                  "rss_before_mb": before / 1024,
                  "added_mb": max(peak - max(before, 0), 0) / 1024,
                  "peak_mb": peak / 1024, "peak_before_mb": peak_before / 1024}}))
"""


def run_one(name: str, method: str, limit: float) -> dict:
    code = CHILD.format(tests=str(ROOT / "tests"), name=name, method=method, limit=limit)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=limit + 60,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "hung", "seconds": time.perf_counter() - start}
    if proc.returncode != 0:
        return {"outcome": "crash", "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- VIPS's rendered layout: hostile pages for the browser (docs/security/browser.md) --------
#
#     python benchmarks/adversarial.py --rendered [--timeout 30]
#
# Each page is written to a file of its own folder and extracted from its file: URL with
# VIPS, layout="rendered" and the page's JavaScript on (off, none of these scripts runs),
# under extract(timeout=T); the browser runs without its sandbox where it cannot have one
# (SCRAPY_BOILERPLATE_BROWSER_SANDBOX=allow-unsandboxed, set for the child). Reported: the
# outcome, the seconds, what the Python process added at its peak (the browser's own memory
# is not counted), and whether a listener on loopback was reached or a local file showed.

RENDERED_PAGES = {
    "js-loop": "<p>text of the page</p><script>while (true) {}</script>",
    "js-loop-after-load": "<p>text of the page</p><script>addEventListener('load', () =>"
    " setTimeout(() => { while (true) {} }))</script>",
    "websocket": "<p>text of the page</p><script>new WebSocket('ws://127.0.0.1:{port}/');"
    "fetch('http://127.0.0.1:{port}/').catch(() => 0)</script>",
    "file-iframe": "<p>text of the page</p><iframe src='file:///etc/passwd'></iframe>"
    "<iframe src='{secret}'></iframe>",
    "huge-dom-js": "<p>start</p><script>for (let i = 0; i < 300000; i++)"
    " document.body.appendChild(document.createElement('p')).textContent = 'p' + i;</script>",
}

RENDER_CHILD = r"""
import json, os, resource, socket, sys, tempfile, threading, time
from pathlib import Path
os.environ.setdefault("SCRAPY_BOILERPLATE_BROWSER_SANDBOX", "allow-unsandboxed")
from scrapy_boilerplate import extract

name, template, limit = {name!r}, {template!r}, {limit!r}
got = []
server = socket.create_server(("127.0.0.1", 0))

def serve():
    while True:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        got.append(conn.recv(100))
        conn.close()

threading.Thread(target=serve, daemon=True).start()
folder = Path(tempfile.mkdtemp())
secret = Path(tempfile.mkdtemp()) / "secret.txt"
secret.write_text("LOCAL-SECRET")
page = folder / "page.html"
page.write_text(template.replace("{{port}}", str(server.getsockname()[1]))
                .replace("{{secret}}", secret.as_uri()))
extract("<p>warm up</p>", "vips")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
r = extract(page.read_text(), "vips", url=page.as_uri(), timeout=limit, layout="rendered",
            javascript=True, render_timeout=600)
seconds = time.perf_counter() - t
shown = "LOCAL-SECRET" in r.main_text or "root:" in r.main_text
print(json.dumps({{"outcome": r.reason or "ok", "seconds": seconds,
                  "added_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024,
                  "reached": len(got), "file_shown": shown}}))
"""


def run_rendered(name: str, limit: float) -> dict:
    """One page of :data:`RENDERED_PAGES` in a fresh process (``hung`` past ``limit`` + 60 s)."""
    code = RENDER_CHILD.format(name=name, template=RENDERED_PAGES[name], limit=limit)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit + 60
        )
    except subprocess.TimeoutExpired:
        return {"page": name, "outcome": "hung", "seconds": time.perf_counter() - start}
    if proc.returncode != 0:
        return {"page": name, "outcome": "crash", "error": proc.stderr.strip().splitlines()[-1:]}
    return {"page": name, **json.loads(proc.stdout.strip().splitlines()[-1])}


def main_rendered(limit: float) -> int:
    """``--rendered``: every page of :data:`RENDERED_PAGES`, a Markdown table printed."""
    print("| page | outcome | seconds | +MB (Python) | listener reached | local file shown |")
    print("|---|---|---|---|---|---|")
    bad = 0
    for name in RENDERED_PAGES:
        r = run_rendered(name, limit)
        bad += (
            r["outcome"] in ("hung", "crash") or bool(r.get("reached")) or bool(r.get("file_shown"))
        )
        print(f"| {name} | {r['outcome']} | {r.get('seconds', 0):.2f} | "
              f"{r.get('added_mb', 0):.0f} | {r.get('reached', '-')} | "
              f"{r.get('file_shown', '-')} |", flush=True)  # fmt: skip
    return 1 if bad else 0


def main() -> int:
    sys.path.insert(0, str(ROOT / "tests"))
    import adversarial

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--pages", nargs="+", default=list(adversarial.PAGES))
    parser.add_argument("--timeout", type=float, default=30.0, help="per-page limit, seconds")
    parser.add_argument("--rendered", action="store_true", help="VIPS's browser pages only")
    add_out(parser, "adversarial.md, adversarial.json")
    args = parser.parse_args()
    if args.rendered:
        return main_rendered(args.timeout)

    rows = []
    for name in args.pages:
        for method in args.methods:
            result = run_one(name, method, args.timeout)
            result.update(page=name, method=method)
            rows.append(result)
            print(
                f"{name:<24} {method:<9} {result['outcome']:<15} "
                f"{result.get('seconds', 0):7.2f} s  +{result.get('added_mb', 0):7.1f} MB",
                flush=True,
            )
    bad = [r for r in rows if r["outcome"] in ("hung", "crash")]
    lines = [
        "# Hostile pages: outcome, seconds, memory added at peak (MB)",
        "",
        f"`python benchmarks/adversarial.py --timeout {args.timeout:g}` on {platform.node()} "
        f"({os.cpu_count()} CPUs), Python {platform.python_version()}.",
        "",
        "| page | " + " | ".join(args.methods) + " |",
        "|---|" + "---|" * len(args.methods),
    ]
    for name in args.pages:
        cells = []
        for method in args.methods:
            r = next(x for x in rows if x["page"] == name and x["method"] == method)
            cells.append(
                f"{r['outcome']} {r.get('seconds', 0):.2f} s +{r.get('added_mb', 0):.0f} MB"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    longest = max(rows, key=lambda r: r.get("seconds", 0))
    biggest = max(rows, key=lambda r: r.get("added_mb", 0))
    lines += [
        "",
        f"Longest: {longest['page']} / {longest['method']} {longest.get('seconds', 0):.2f} s; "
        f"most memory: {biggest['page']} / {biggest['method']} "
        f"+{biggest.get('added_mb', 0):.0f} MB; hung or crashed: {len(bad)}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    write_reports(
        args.out, {"adversarial.md": text, "adversarial.json": json.dumps(rows, indent=1)}
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
