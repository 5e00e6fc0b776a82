"""Fetching the page of a URL given on the command line, within limits.

The URL the user typed is trusted, whatever its host (``http://localhost:8000/page.html``
is a common, deliberate target). Where the page then sends the fetch is not:

- **redirects** are followed only to ``http://`` and ``https://`` URLs whose host resolves
  to public addresses only: loopback, private, link-local, multicast, reserved,
  unspecified and other non-global addresses (IPv4 and IPv6, an IPv4-mapped IPv6 address
  judged by its IPv4 address) are refused unless ``allow_private`` is set; the address a
  redirected connection reaches is checked again once connected (a host name that
  resolves to a public address for the check and to an internal one for the connection
  is refused as well), except through a proxy, where the proxy connects;
- **time**: the whole fetch (name resolution, connecting, the headers, the body and
  every redirect) gets ``timeout`` seconds in all, not per read: a server that sends one
  byte now and then cannot hold it longer;
- **size**: at most :data:`MAX_BYTES` of body are read (one more byte than the parser's
  page limit, so that an oversized page is reported as too large, not cut).

A refusal or failure raises :class:`FetchError`, whose message names the URL and why.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

#: Seconds a fetch may take in all (resolution, connection, headers, body, redirects).
TIMEOUT = 30.0
#: Bytes of body read at most (one more than the parser's default page limit).
MAX_BYTES = 64 * 1024 * 1024 + 1
#: Redirects followed at most (urllib's own limit).
MAX_REDIRECTS = 10
#: The schemes a redirect may go to.
REDIRECT_SCHEMES = ("http", "https")
_CHUNK = 64 * 1024


class FetchError(Exception):
    """A URL could not be fetched, or the fetch was refused (the message says why)."""


def is_public_address(address: str) -> bool:
    """Whether ``address`` (an IPv4 or IPv6 address) is a public, globally routed one.

    Loopback, private, link-local, multicast, reserved and unspecified addresses are not,
    nor any other address that is not global (shared address space, documentation
    ranges...). An IPv4-mapped IPv6 address (``::ffff:127.0.0.1``) is judged by its IPv4
    address; an IPv6 zone (``fe80::1%eth0``) is ignored. Anything unparsable is not public.
    """
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(
            address.split("%", 1)[0]
        )
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def resolve_host(host: str, port: int | None) -> list[str]:
    """The addresses ``host`` resolves to (every one a connection may reach)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


def check_redirect(url: str, allow_private: bool = False) -> None:
    """Refuse (:class:`FetchError`) a redirect to ``url`` unless it is an http(s) URL whose
    host resolves to public addresses only (any address with ``allow_private``)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in REDIRECT_SCHEMES:
        raise FetchError(f"redirect to {url} refused: only http:// and https:// are followed")
    if allow_private:
        return
    host = parts.hostname
    if not host:
        raise FetchError(f"redirect to {url} refused: no host")
    try:
        port = parts.port
        addresses = resolve_host(host, port)
    except (OSError, ValueError) as exc:
        raise FetchError(f"redirect to {url} refused: cannot resolve {host} ({exc})") from None
    private = [a for a in addresses if not is_public_address(a)]
    if private or not addresses:
        raise FetchError(
            f"redirect to {url} refused: {host} resolves to a non-public address "
            f"({', '.join(private) or 'none'}); use --allow-private to follow it"
        )


class _Fetch:
    """The state of one fetch: its options, its deadline and the sockets it opened (so
    that running out of time can close them under a blocked read)."""

    def __init__(self, url: str, timeout: float, allow_private: bool) -> None:
        self.url = url
        self.timeout = timeout
        self.allow_private = allow_private
        self.deadline = time.monotonic() + timeout
        self.first: urllib.request.Request | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._aborted = False

    def check_time(self) -> None:
        if self._aborted or time.monotonic() >= self.deadline:
            raise FetchError(self.timeout_message())

    def timeout_message(self) -> str:
        return f"cannot fetch {self.url}: no complete response within {self.timeout:g} s"

    def opened(self, conn: http.client.HTTPConnection, vet: bool) -> None:
        """Keep the socket of ``conn`` (just connected); with ``vet``, refuse a peer
        address that is not public (a redirect, not through a proxy)."""
        sock = conn.sock
        with self._lock:
            if sock is not None:
                self._sockets.append(sock)
            aborted = self._aborted
        if aborted:
            conn.close()
            raise FetchError(self.timeout_message())
        if vet and sock is not None and not self.allow_private:
            peer = str(sock.getpeername()[0])
            if not is_public_address(peer):
                conn.close()
                raise FetchError(
                    f"redirect to {conn.host} refused: it connected to the private address "
                    f"{peer}; use --allow-private to follow it"
                )

    def abort(self) -> None:
        """Out of time: close every socket, which ends a read blocked on one."""
        with self._lock:
            self._aborted = True
            sockets = list(self._sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def vets(self, req: urllib.request.Request) -> bool:
        """Whether the connection for ``req`` must reach a public address: it follows a
        redirect and goes straight to its host (a proxy connects on its own)."""
        netloc = urllib.parse.urlsplit(req.full_url).netloc.rpartition("@")[2]
        return req is not self.first and req.host.lower() == netloc.lower()


class _Watched:
    """A connection that hands its socket to its fetch once connected (see
    :meth:`_Fetch.opened`); mixed into http.client's two connection classes."""

    def __init__(self, host: str, *, fetch: _Fetch, vet: bool, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)  # type: ignore[call-arg]
        self._fetch, self._vet = fetch, vet

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self._fetch.opened(self, self._vet)  # type: ignore[arg-type]


class _HTTPConnection(_Watched, http.client.HTTPConnection):
    pass


class _HTTPSConnection(_Watched, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, fetch: _Fetch) -> None:
        super().__init__()
        self._fetch = fetch

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        fetch, vet = self._fetch, self._fetch.vets(req)

        def connection(host: str, **kwargs: Any) -> _HTTPConnection:
            return _HTTPConnection(host, fetch=fetch, vet=vet, **kwargs)

        return self.do_open(connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, fetch: _Fetch) -> None:
        super().__init__()
        self._fetch = fetch
        self._tls = ssl.create_default_context()

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        fetch, vet, tls = self._fetch, self._fetch.vets(req), self._tls

        def connection(host: str, **kwargs: Any) -> _HTTPSConnection:
            return _HTTPSConnection(host, fetch=fetch, vet=vet, context=tls, **kwargs)

        return self.do_open(connection, req)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS

    def __init__(self, fetch: _Fetch) -> None:
        super().__init__()
        self._fetch = fetch

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        self._fetch.check_time()
        check_redirect(newurl, self._fetch.allow_private)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _get(fetch: _Fetch, request: urllib.request.Request) -> tuple[bytes, str, str | None]:
    """The fetch itself (in a worker thread): the body, the final URL, the charset."""
    opener = urllib.request.build_opener(
        _HTTPHandler(fetch), _HTTPSHandler(fetch), _RedirectHandler(fetch)
    )
    url = request.full_url
    try:
        with opener.open(request, timeout=fetch.timeout) as response:
            chunks: list[bytes] = []
            size = 0
            while size < MAX_BYTES:
                fetch.check_time()
                chunk = response.read1(min(_CHUNK, MAX_BYTES - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            fetch.check_time()
            charset = response.headers.get_content_charset()
            final = response.geturl() or url
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchError(f"cannot fetch {url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, FetchError):
            raise exc.reason from None
        raise FetchError(f"cannot fetch {url}: {exc.reason}") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # resets, bad URLs...
        fetch.check_time()
        raise FetchError(f"cannot fetch {url}: {exc or type(exc).__name__}") from None
    return b"".join(chunks), final, charset


def fetch(
    url: str,
    headers: dict[str, str] | None = None,
    timeout: float = TIMEOUT,
    allow_private: bool = False,
) -> tuple[bytes, str, str | None]:
    """GET ``url`` within ``timeout`` seconds in all: the body (at most :data:`MAX_BYTES`),
    the final URL (after redirects) and the charset of its ``Content-Type``.

    Raises :class:`FetchError` on any failure or refusal (see the module docstring).
    """
    state = _Fetch(url, timeout, allow_private)
    try:
        request = urllib.request.Request(url, headers=headers or {})
    except ValueError as exc:
        raise FetchError(f"cannot fetch {url}: {exc}") from None
    state.first = request
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = _get(state, request)
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="scrapy-boilerplate-fetch", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():  # a slow name resolution, server or body: give up, free the worker
        state.abort()
        raise FetchError(state.timeout_message())
    if "error" in outcome:
        error = outcome["error"]
        if isinstance(error, FetchError):
            raise FetchError(str(error)) from None
        raise FetchError(f"cannot fetch {url}: {error or type(error).__name__}") from None
    value: tuple[bytes, str, str | None] = outcome["value"]
    return value
