"""The command line's trust rules: what a URL fetch follows and how long it may take, the
exit codes of bad model and layout files, and the files ``train`` may write."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scrapy_boilerplate.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, main
from scrapy_boilerplate.cli import fetch as fetching
from scrapy_boilerplate.extractors.vips.layout import Layout, LayoutError, from_snapshot
from scrapy_boilerplate.extractors.web2text import train as training

TEXT = "The river runs through the old town and past the mill, where people meet every day. "
PAGE = f"<html><body><h1>The river</h1><p>{TEXT * 4}</p></body></html>".encode()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str) -> None:
    assert err.startswith("scrapy-boilerplate: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# A local server: /page, /drip (one byte every 0.2 s), /to?URL (a 302 redirect to URL)


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            for _ in range(100000):  # the client gives up long before the end
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.2)
        elif self.path.startswith("/to?"):
            self.send_response(302)
            self.send_header("Location", self.path[len("/to?") :])
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)


@pytest.fixture
def server() -> Iterator[str]:
    """The base URL of a server on 127.0.0.1 (a free port)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------------------------------
# Fetch: time limit, redirects


def test_the_typed_url_is_fetched_even_on_loopback(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    code, out, err = run(capsys, "extract", f"{server}/page", "-f", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["url"] == f"{server}/page"


def test_a_dripping_response_stops_at_the_total_time_limit(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    # Every read gets a byte well within any per-read timeout: only a limit on the whole
    # fetch ends it (the response would take 20000 s).
    code, out, err = run(capsys, "extract", f"{server}/drip", "--fetch-timeout", "1")
    assert code == EXIT_INPUT and out == ""
    assert_one_line_error(err)
    assert "no complete response within 1 s" in err


def test_fetch_timeout_must_be_positive(capsys: pytest.CaptureFixture[str], server: str) -> None:
    code, _, err = run(capsys, "extract", f"{server}/page", "--fetch-timeout", "0")
    assert code == EXIT_USAGE and "--fetch-timeout" in err


def test_a_redirect_to_a_loopback_address_needs_allow_private(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    url = f"{server}/to?{server}/page"
    code, out, err = run(capsys, "extract", url)
    assert code == EXIT_INPUT and out == ""
    assert_one_line_error(err)
    assert f"redirect to {server}/page refused" in err and "--allow-private" in err
    code, out, err = run(capsys, "extract", url, "--allow-private", "-f", "json")
    assert code == EXIT_OK, err
    assert json.loads(out)["url"] == f"{server}/page"


def test_a_redirect_to_ftp_is_refused(capsys: pytest.CaptureFixture[str], server: str) -> None:
    code, _, err = run(
        capsys, "extract", f"{server}/to?ftp://example.org/page.html", "--allow-private"
    )
    assert code == EXIT_INPUT
    assert_one_line_error(err)
    assert "redirect to ftp://example.org/page.html refused" in err


@pytest.mark.parametrize("target", ["file:///etc/passwd", "data:text/html,<p>x</p>"])
def test_file_and_data_redirects_are_refused(
    capsys: pytest.CaptureFixture[str], server: str, target: str
) -> None:
    code, out, err = run(capsys, "extract", f"{server}/to?{target}", "--allow-private")
    assert code == EXIT_INPUT and out == ""
    assert_one_line_error(err)


def test_the_address_reached_is_checked_after_the_name_was(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A name that resolves to a public address for the check and to loopback for the
    # connection (DNS rebinding): the connected peer is checked too.
    monkeypatch.setattr(fetching, "resolve_host", lambda host, port: ["93.184.216.34"])
    code, _, err = run(capsys, "extract", f"{server}/to?{server}/page")
    assert code == EXIT_INPUT
    assert_one_line_error(err)
    assert "connected to the private address 127.0.0.1" in err


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "::1",
        "::",
        "fe80::1",
        "fe80::1%eth0",
        "fc00::1",
        "fd12:3456::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "not an address",
    ],
)
def test_non_public_addresses(address: str) -> None:
    assert not fetching.is_public_address(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111"])
def test_public_addresses(address: str) -> None:
    assert fetching.is_public_address(address)


@pytest.mark.parametrize(
    "addresses",
    [["127.0.0.1"], ["::ffff:127.0.0.1"], ["10.0.0.7"], ["93.184.216.34", "192.168.0.2"], []],
)
def test_a_public_looking_redirect_to_a_private_address_is_refused(
    monkeypatch: pytest.MonkeyPatch, addresses: list[str]
) -> None:
    monkeypatch.setattr(fetching, "resolve_host", lambda host, port: addresses)
    with pytest.raises(fetching.FetchError, match="refused"):
        fetching.check_redirect("https://www.example.com/next")
    fetching.check_redirect("https://www.example.com/next", allow_private=True)


def test_a_redirect_to_a_public_address_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, int | None]] = []

    def resolve(host: str, port: int | None) -> list[str]:
        seen.append((host, port))
        return ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]

    monkeypatch.setattr(fetching, "resolve_host", resolve)
    fetching.check_redirect("https://www.example.com:8443/next")
    assert seen == [("www.example.com", 8443)]


@pytest.mark.parametrize("url", ["ftp://example.org/x", "file:///etc/passwd", "gopher://h/"])
def test_redirect_schemes(url: str) -> None:
    for allow_private in (False, True):
        with pytest.raises(fetching.FetchError, match="only http:// and https://"):
            fetching.check_redirect(url, allow_private=allow_private)


# ---------------------------------------------------------------------------------------------
# Bad model and layout files: one line, the documented exit code


@pytest.fixture
def page(tmp_path: Path) -> Path:
    path = tmp_path / "page.html"
    path.write_bytes(PAGE)
    return path


def test_a_missing_web2text_model_exits_3(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "nonexistent.onnx"
    code, out, err = run(capsys, "extract", str(page), "-e", "web2text", "--model", str(missing))
    assert code == EXIT_INPUT and out == ""
    assert_one_line_error(err)
    assert "no such file" in err


def test_a_file_that_is_no_web2text_model_exits_2(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"this is no ONNX model")
    code, out, err = run(capsys, "extract", str(page), "-e", "web2text", "--model", str(junk))
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err)
    assert "not a readable ONNX model" in err


def _layout_rows() -> dict[str, Any]:
    return {
        "format": 1,
        "width": 800,
        "height": 600,
        "nodes": [
            [-1, "html", 0, 0, 800, 600, "block", 1, None, 16, 400, "", "/html[1]"],
            [0, "body", 0, 0, 800, 600, "block", 1, "#ffffff", 16, 400, "", "/html[1]/body[1]"],
        ],
    }


def _malformed_layouts() -> list[Any]:
    good = _layout_rows()
    return [
        [1, 2],  # a list
        "a string",
        {"format": 1},  # no nodes
        {**good, "nodes": [[-1, "html"]]},  # a short row
        {**good, "nodes": [[-1, "html", 0, 0, "800", 600, "block", 1, None, 16, 400, "", ""]]},
        {**good, "nodes": [good["nodes"][0], [5, *good["nodes"][1][1:]]]},  # parent after it
        {**good, "nodes": [[0, *good["nodes"][0][1:]]]},  # the root has a parent
        {**good, "nodes": [[-1, "html", 0, 0, 8, 6, "block", 1, "#zz", 16, 400, "", ""]]},
        {**good, "width": None},
        {**good, "nodes": "rows"},
        {"strings": [], "documents": [{"nodes": {}, "layout": {}}]},  # CDP, no arrays
        {"strings": "abc", "documents": []},
        {
            "strings": ["html"],
            "documents": [
                {
                    "nodes": {
                        "parentIndex": [-1],
                        "nodeType": [1],
                        "nodeName": [7],  # beyond strings
                        "nodeValue": [-1],
                    },
                    "layout": {"nodeIndex": [], "bounds": [], "styles": []},
                    "documentURL": -1,
                }
            ],
        },
        {
            "strings": ["HTML"],
            "documents": [
                {
                    "nodes": {
                        "parentIndex": [-1],
                        "nodeType": [1],
                        "nodeName": [0],
                        "nodeValue": [-1],
                    },
                    "layout": {"nodeIndex": [0], "bounds": [[0, 0, "w", 1]], "styles": [[]]},
                }
            ],
        },
    ]


@pytest.mark.parametrize("data", _malformed_layouts())
def test_a_malformed_layout_raises_layout_error(data: Any) -> None:
    with pytest.raises(LayoutError):
        Layout.from_json(data)


def test_a_well_formed_layout_and_snapshot_still_load() -> None:
    layout = Layout.from_json(_layout_rows())
    assert [n.tag for n in layout.nodes()] == ["html", "body"]
    assert Layout.from_json(layout.to_json()).to_json() == layout.to_json()
    snapshot = {
        "strings": ["HTML", "BODY", "block", "http://x/"],
        "documents": [
            {
                "nodes": {
                    "parentIndex": [-1, 0],
                    "nodeType": [1, 1],
                    "nodeName": [0, 1],
                    "nodeValue": [-1, -1],
                },
                "layout": {
                    "nodeIndex": [0, 1],
                    "bounds": [[0, 0, 800, 600], [0, 0, 800, 600]],
                    "styles": [[2], [2]],
                },
                "documentURL": 3,
            }
        ],
    }
    assert [n.tag for n in from_snapshot(snapshot).nodes()] == ["html", "body"]


@pytest.mark.parametrize("data", _malformed_layouts())
def test_a_malformed_layout_file_exits_2(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path, data: Any
) -> None:
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = run(capsys, "extract", str(page), "-e", "vips", "--layout", str(path))
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err)
    assert "is not a layout or CDP snapshot" in err


@pytest.mark.parametrize("text", ["not json", "[" * 100000 + "]" * 100000, "\udcff"])
def test_a_layout_file_that_is_no_json_exits_2(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "layout.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    code, _, err = run(capsys, "extract", str(page), "-e", "vips", "--layout", str(path))
    assert code == EXIT_USAGE
    assert_one_line_error(err)


def test_a_missing_layout_file_exits_3(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path
) -> None:
    for missing in (tmp_path / "none.json", tmp_path):
        code, _, err = run(capsys, "extract", str(page), "-e", "vips", "--layout", str(missing))
        assert code == EXIT_INPUT
        assert_one_line_error(err)


def test_a_bad_layout_is_found_before_the_page_is_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "layout.json"
    path.write_text("[]", encoding="utf-8")
    code, _, err = run(
        capsys, "extract", str(tmp_path / "no-page.html"), "-e", "vips", "--layout", str(path)
    )
    assert code == EXIT_USAGE and "not a layout" in err


@pytest.mark.parametrize(
    "text", ["not json", "[1, 2]", '{"format": 1}', '{"format": 1, "weights": 3}']
)
def test_a_file_that_is_no_entity_model_exits_2(
    capsys: pytest.CaptureFixture[str], page: Path, tmp_path: Path, text: str
) -> None:
    model = tmp_path / "model.json"
    model.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "entities", str(page), "-q", "rivers", "--model", str(model))
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err)
    assert "is not an entity model" in err


# ---------------------------------------------------------------------------------------------
# train: the files it writes (checked before training, so without PyTorch)


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.html").write_bytes(PAGE)
        (folder / f"{name}.txt").write_text(TEXT, encoding="utf-8")
    return folder


def test_train_refuses_an_out_that_is_no_onnx_file(
    capsys: pytest.CaptureFixture[str], pairs: Path, tmp_path: Path
) -> None:
    model = tmp_path / "m.json"
    model.write_text('{"mine": true}', encoding="utf-8")
    for out in (model, tmp_path / "model", tmp_path):
        code, _, err = run(capsys, "train", str(pairs), "--out", str(out))
        assert code == EXIT_USAGE
        assert_one_line_error(err)
        assert "must end in .onnx" in err
    assert model.read_text(encoding="utf-8") == '{"mine": true}'


def test_train_refuses_an_out_folder_it_cannot_write(
    capsys: pytest.CaptureFixture[str], pairs: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "train", str(pairs), "--out", str(tmp_path / "no" / "m.onnx"))
    assert code == EXIT_INPUT
    assert_one_line_error(err)
    assert "no such folder" in err


def test_train_never_overwrites_a_report_it_did_not_write(
    capsys: pytest.CaptureFixture[str], pairs: Path, tmp_path: Path
) -> None:
    theirs = tmp_path / "model.json"
    theirs.write_text('{"somebody": "else"}', encoding="utf-8")
    code, _, err = run(capsys, "train", str(pairs), "--out", str(tmp_path / "model.onnx"))
    assert code == EXIT_INPUT
    assert_one_line_error(err)
    assert f"{theirs} exists" in err and "--force" in err
    assert theirs.read_text(encoding="utf-8") == '{"somebody": "else"}'


def test_output_names(tmp_path: Path) -> None:
    out = tmp_path / "my.onnx"
    assert training.check_outputs(out) == (out, tmp_path / "my.json")
    # A report written by training this same model name may be replaced; another may not,
    # unless forced.
    report = tmp_path / "my.json"
    report.write_text(json.dumps({training.REPORT_MODEL_KEY: "my.onnx"}), encoding="utf-8")
    assert training.check_outputs(out) == (out, report)
    report.write_text(json.dumps({training.REPORT_MODEL_KEY: "other.onnx"}), encoding="utf-8")
    with pytest.raises(FileExistsError):
        training.check_outputs(out)
    report.write_text("[1, 2, 3]", encoding="utf-8")
    with pytest.raises(FileExistsError):
        training.check_outputs(out)
    assert training.check_outputs(out, force=True) == (out, report)
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(IsADirectoryError):
        training.check_outputs(tmp_path / "dir.onnx", force=True)
    with pytest.raises(ValueError, match=r"\.onnx"):
        training.check_outputs(tmp_path / "my.json")
    with pytest.raises(FileNotFoundError):
        training.check_outputs(tmp_path / "missing" / "my.onnx")
    assert training.report_path(Path("a/b.onnx")) == Path("a/b.json")


def test_train_function_refuses_a_model_name_its_report_would_replace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.onnx"):
        training.train([], [], tmp_path / "m.json")
