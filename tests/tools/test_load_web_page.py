"""load_web_page: a page's text from a real HTTP server on 127.0.0.1, and the SSRF
protection that refuses that same server unless the developer allows it."""

from __future__ import annotations

import gzip
import importlib
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import load_web_page, make_load_web_page

ARTICLE = b"""<!doctype html>
<html><head><title>The tide tables for Brest</title>
<style>p { color: red }</style><script>var secret = "not text";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<h1>Tides</h1>
<p>High water today is at <b>06:42</b> and again at <a href="/pm">19:05</a>.</p>
<ul><li>Low</li><li>Low water is at 12:51 this afternoon.</li></ul>
<noscript>Please enable JavaScript to see this site.</noscript>
<!-- a comment with several words in it -->
<p>Coefficient&nbsp;92: a spring tide, &amp; strong currents.</p>
</body></html>"""
ARTICLE_TEXT = (
    "The tide tables for Brest\n"
    "High water today is at 06:42 and again at 19:05.\n"
    "Low water is at 12:51 this afternoon.\n"
    "Coefficient 92: a spring tide, & strong currents."
)
Route = Callable[[BaseHTTPRequestHandler], None]


def answer(status: int, body: bytes = b"", **headers: str) -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return handle


def chunked(chunks: list[bytes], pause: float = 0.0, **headers: str) -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for chunk in [*chunks, b""]:
            handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            handler.wfile.flush()
            time.sleep(pause)

    return handle


def late(delay: float, route: Route) -> Route:
    def handle(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(delay)
        route(handler)

    return handle


def redirect(location: str, status: int = 302) -> Route:
    return answer(status, Location=location)


LOAD_WEB_PAGE_MODULE = importlib.import_module("pyadk.tools.load_web_page")
WEB_PAGE_LOADER = importlib.import_module("pyadk.tools._web_page_loader")
HTML = "text/html; charset=utf-8"
ROUTES: dict[str, Route] = {
    "/article": answer(200, ARTICLE, Content_Type=HTML),
    "/plain": answer(200, b"ok\nshort lines are kept in text\n", Content_Type="text/plain"),
    "/json": answer(200, b'{"tide": "high"}', Content_Type="application/json"),
    "/latin1": answer(
        200,
        "<p>Un café au lait très chaud.</p>".encode("latin-1"),
        Content_Type="text/html; charset=iso-8859-1",
    ),
    "/untyped": answer(200, b"<!DOCTYPE html><p>A page without a content type.</p>"),
    "/image": answer(200, b"\x89PNG\r\n\x1a\n\x00\x00", Content_Type="image/png"),
    "/missing": answer(404, b"no such page", Content_Type="text/plain"),
    "/broken": answer(500, b"oops", Content_Type="text/plain"),
    "/big": chunked([b"<p>" + b"word " * 2000 + b"</p>"], Content_Type=HTML),
    "/big-declared": answer(200, b"x" * 5000, Content_Type="text/plain"),
    "/bomb": answer(
        200, gzip.compress(b"a" * 1_000_000), Content_Type="text/plain", Content_Encoding="gzip"
    ),
    "/slow": late(1.0, answer(200, ARTICLE, Content_Type=HTML)),
    "/drip": chunked([b"<p>a few more words</p>"] * 20, pause=0.05, Content_Type=HTML),
    "/to-article": redirect("/article"),
    "/to-metadata": redirect("http://169.254.169.254/computeMetadata/v1/"),
    "/to-private": redirect("http://10.0.0.7/admin", 301),
    "/to-file": redirect("file:///etc/passwd"),
    "/loop": redirect("/loop"),
}


class Site:
    """A real HTTP server on 127.0.0.1; it records each request's target and Host (and
    its Authorization header)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, str]] = []
        self.authorizations: list[str | None] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle(self) -> None:
                try:
                    super().handle()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a size or time limit): as intended

            def do_GET(self) -> None:
                site.requests.append((self.path, self.headers.get("Host", "")))
                site.authorizations.append(self.headers.get("Authorization"))
                ROUTES.get(urlsplit(self.path).path, answer(404))(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"

    def __enter__(self) -> Site:
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str) -> str:
        return self.base + path


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with Site() as server:
        yield server


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy settings from the environment; a connection anywhere but 127.0.0.1
    fails the test (whatever the tool's checks let through)."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    real = socket.create_connection

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        assert address[0] == "127.0.0.1", f"the test tried to connect to {address}"
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names resolved by the test (no DNS query leaves the machine); IP literals and
    other names go to the real resolver."""
    table: dict[str, list[str]] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in table:
            return real(host, port, *args, **kwargs)
        if not table[host]:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0))
            for ip in table[host]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


def local(**limits: Any) -> Callable[[str], str]:
    return make_load_web_page(allowed_hosts=["127.0.0.1"], **limits)


def refused(url: str, text: str) -> bool:
    return text.startswith(f"Failed to fetch url: {url} (") and text.endswith(")")


# --- what a page gives ---


def test_an_html_page_gives_its_sentences_without_menus_scripts_or_comments(site: Site):
    assert local()(site.url("/article")) == ARTICLE_TEXT


def test_text_pages_are_returned_as_they_are(site: Site):
    load = local()
    assert load(site.url("/plain")) == "ok\nshort lines are kept in text"
    assert load(site.url("/json")) == '{"tide": "high"}'
    assert load(site.url("/latin1")) == "Un café au lait très chaud."  # charset honoured
    assert load(site.url("/untyped")) == "A page without a content type."


def test_a_page_that_is_not_text_is_a_failure_naming_its_type(site: Site):
    url = site.url("/image")
    assert local()(url) == f"Failed to fetch url: {url} (the page is image/png, not text)"


def test_an_http_error_status_is_a_failure_naming_the_status(site: Site):
    load = local()
    missing, broken = site.url("/missing"), site.url("/broken")
    assert load(missing) == f"Failed to fetch url: {missing} (HTTP status 404 Not Found)"
    assert load(broken) == f"Failed to fetch url: {broken} (HTTP status 500 Internal Server Error)"


def test_a_server_that_is_not_listening_is_a_failure(site: Site):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/"
    text = local()(url)
    assert refused(url, text) and "the request failed" in text


# --- limits ---


def test_a_page_larger_than_the_cap_is_not_read(site: Site):
    load = local(max_response_bytes=1000)
    for path in ("/big", "/big-declared", "/bomb"):  # streamed, declared, compressed
        url = site.url(path)
        assert load(url) == f"Failed to fetch url: {url} (the page is larger than 1000 bytes)"
    assert local()(site.url("/big")).startswith("word word")  # the default cap is 10 MiB


def test_a_server_slower_than_the_timeout_is_a_failure(site: Site):
    url = site.url("/slow")
    started = time.monotonic()
    text = local(timeout=0.2)(url)
    assert text == f"Failed to fetch url: {url} (the server did not answer within 0.2 s)"
    assert time.monotonic() - started < 0.9


def test_a_page_that_trickles_in_is_cut_at_the_total_timeout(site: Site):
    url = site.url("/drip")  # each piece arrives quickly, the whole takes 1 s
    started = time.monotonic()
    text = local(timeout=1, total_timeout=0.3)(url)
    assert text == f"Failed to fetch url: {url} (the page did not arrive within 0.3 s)"
    assert time.monotonic() - started < 0.9
    assert "a few more words" in local(timeout=1)(url)


def test_limits_are_checked_when_the_tool_is_made():
    with pytest.raises(ValueError, match="timeout must be positive"):
        make_load_web_page(timeout=0)
    with pytest.raises(ValueError, match="max_redirects must be >= 0"):
        make_load_web_page(max_redirects=-1)
    with pytest.raises(ValueError, match=re.escape("'127.0.0.1:8000' is not a hostname")):
        make_load_web_page(allowed_hosts=["127.0.0.1:8000"])


# --- SSRF protection ---


def test_the_local_server_is_refused_by_default_with_a_clear_message(site: Site):
    url = site.url("/article")
    assert load_web_page(url) == (
        f"Failed to fetch url: {url} (127.0.0.1 is a loopback address; a trusted host can "
        "be allowed with make_load_web_page(allowed_hosts=[...]))"
    )
    before = len(site.requests)
    load_web_page(site.url("/plain"))
    assert len(site.requests) == before  # nothing was sent


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://localhost/", "localhost names the local machine"),
        ("http://metadata.google.internal/", "names the local machine or internal"),
        ("http://printer.local/", "printer.local names the local machine"),
        ("http://169.254.169.254/latest/meta-data/", "is a link-local (cloud metadata) address"),
        ("http://10.1.2.3/", "10.1.2.3 is a private address"),
        ("http://192.168.0.1/", "is a private address"),
        ("http://[::1]:8080/", "::1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a"),
        ("http://[64:ff9b::a9fe:a9fe]/", "routed to 169.254.169.254"),
        ("http://0.0.0.0/", "is an unspecified address"),
        ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),  # is_global is True
        ("http://[ff02::1]/", "ff02::1 is a multicast address"),
        ("http://2130706433/", "2130706433 resolves to 127.0.0.1, a loopback address"),
    ],
)
def test_internal_hosts_are_refused_by_name_or_address(url: str, reason: str):
    text = load_web_page(url)
    assert refused(url, text) and reason in text, text


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "only http and https urls can be fetched, not file:"),
        ("ftp://example.com/x", "only http and https urls can be fetched, not ftp:"),
        ("javascript:alert(1)", "only http and https urls can be fetched, not javascript:"),
        ("example.com/page", "only http and https urls can be fetched, and the url has no scheme"),
        ("http:///nowhere", "the url has no host"),
        ("http://example.com:99999/", "the url's port is not valid"),
    ],
)
def test_other_schemes_and_malformed_urls_are_refused(url: str, reason: str):
    assert load_web_page(url) == f"Failed to fetch url: {url} ({reason})"


def test_a_name_that_resolves_to_a_private_address_is_refused(fake_dns):
    fake_dns["intranet.example"] = ["10.20.30.40"]
    fake_dns["mixed.example"] = ["93.184.215.14", "127.0.0.1"]  # one bad answer suffices
    fake_dns["gone.example"] = []
    for name, reason in [
        ("intranet.example", "intranet.example resolves to 10.20.30.40, a private address"),
        ("mixed.example", "mixed.example resolves to 127.0.0.1, a loopback address"),
        ("gone.example", "the host gone.example cannot be resolved"),
    ]:
        text = load_web_page(f"http://{name}/")
        assert refused(f"http://{name}/", text) and reason in text, text


def test_a_fetch_connects_to_the_vetted_address_and_keeps_the_host_name(site: Site, fake_dns):
    fake_dns["tides.example"] = ["127.0.0.1"]
    url = f"http://tides.example:{site.port}/article"
    assert "127.0.0.1" in load_web_page(url)  # refused: resolves to loopback
    assert local()(url) == ARTICLE_TEXT  # allowed network: the name is not resolved again
    assert site.requests[-1] == ("/article", f"tides.example:{site.port}")
    by_name = make_load_web_page(allowed_hosts=["tides.example"])
    assert by_name(url) == ARTICLE_TEXT
    assert "127.0.0.1 is a loopback" in by_name(site.url("/article"))  # the name only
    fake_dns["xn--mare-dpa.example"] = ["127.0.0.1"]  # an international name: its ASCII form
    assert local()(f"http://marée.example:{site.port}/json") == '{"tide": "high"}'
    assert site.requests[-1] == ("/json", f"xn--mare-dpa.example:{site.port}")


def test_allowed_networks_and_names(site: Site):
    assert make_load_web_page(allowed_hosts=["127.0.0.0/8"])(site.url("/json")) == (
        '{"tide": "high"}'
    )
    assert make_load_web_page(allowed_hosts="127.0.0.1")(site.url("/json")) == '{"tide": "high"}'
    localhost = f"http://localhost:{site.port}/json"
    assert "localhost names the local machine" in local()(localhost)  # 127.0.0.1 is not a name
    assert make_load_web_page(allowed_hosts=["localhost"])(localhost) == '{"tide": "high"}'


def certificate_for(hostname: str) -> tuple[bytes, bytes]:
    """A self-signed certificate for ``hostname`` and its key (PEM)."""
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(hours=1))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem


def test_https_to_a_vetted_address_checks_the_certificate_of_the_name(
    fake_dns, monkeypatch: pytest.MonkeyPatch, tmp_path
):
    cert, key = certificate_for("tides.example")
    (tmp_path / "cert.pem").write_bytes(cert)
    (tmp_path / "key.pem").write_bytes(key)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    trusting = ssl.create_default_context(cadata=cert.decode())
    monkeypatch.setattr(WEB_PAGE_LOADER, "_ssl_context", lambda: trusting)
    fake_dns["tides.example"] = ["127.0.0.1"]
    with Site(tls=server_tls) as secure:
        url = f"https://tides.example:{secure.port}/article"
        assert local()(url) == ARTICLE_TEXT  # connected to 127.0.0.1, verified as the name
        assert secure.requests[-1] == ("/article", f"tides.example:{secure.port}")
        by_address = local()(secure.url("/article"))  # the certificate does not name it
        assert refused(secure.url("/article"), by_address), by_address
        assert "certificate" in by_address.lower()


# --- redirects ---


def test_a_redirect_is_followed_after_being_checked(site: Site):
    assert local()(site.url("/to-article")) == ARTICLE_TEXT
    assert local(max_redirects=0)(site.url("/to-article")) == (
        f"Failed to fetch url: {site.url('/to-article')} (more than 0 redirects)"
    )
    loop = site.url("/loop")
    assert local()(loop) == f"Failed to fetch url: {loop} (more than 5 redirects)"


def test_a_redirect_to_a_refused_address_is_not_followed(site: Site):
    before = len(site.requests)
    for path, reason in [
        (
            "/to-metadata",
            "redirected to http://169.254.169.254/computeMetadata/v1/, which is refused: "
            "169.254.169.254 is a link-local (cloud metadata) address",
        ),
        ("/to-private", "redirected to http://10.0.0.7/admin, which is refused: 10.0.0.7 is"),
        ("/to-file", "redirected to file:///etc/passwd, which is refused: only http and https"),
    ]:
        url = site.url(path)
        text = local()(url)
        assert refused(url, text) and reason in text, text
    assert [p for p, _ in site.requests[before:]] == ["/to-metadata", "/to-private", "/to-file"]


# --- proxies from the environment ---


def test_a_proxy_from_the_environment_is_used_after_screening_the_name(
    site: Site, fake_dns, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("HTTP_PROXY", site.base)  # the local server plays the proxy
    fake_dns["tides.example"] = ["93.184.215.14"]
    fake_dns["split.example"] = []  # only the proxy can resolve it
    fake_dns["sneaky.example"] = ["169.254.169.254"]
    assert load_web_page("http://tides.example/article") == ARTICLE_TEXT
    assert site.requests[-1][0] == "http://tides.example/article"  # a proxy request
    assert load_web_page("http://split.example/plain").startswith("ok")
    for url in ("http://sneaky.example/article", "http://metadata.google.internal/"):
        text = load_web_page(url)
        assert refused(url, text) and "make_load_web_page(allowed_hosts=" in text, text
    # Credentials in a url never leave the machine, directly or through a proxy.
    assert load_web_page("http://ann:s3cret@tides.example/article") == ARTICLE_TEXT
    assert site.requests[-1][0] == "http://tides.example/article"
    assert site.authorizations[-1] is None
    monkeypatch.setenv("NO_PROXY", "split.example")  # now fetched directly: not resolvable
    text = load_web_page("http://split.example/plain")
    assert "the host split.example cannot be resolved" in text


# --- as a tool ---


async def test_an_agent_reads_a_page_through_the_tool(site: Site):
    model = ScriptedModel(
        [function_call("load_web_page", {"url": site.url("/article")}), "High water at 06:42."]
    )
    agent = LlmAgent(name="reader", model=model, tools=[local()])
    events = await TestRunner(agent).run("When is high water?")

    declaration = model.requests[0].config.tools[0].function_declarations[0]
    assert declaration.name == "load_web_page"
    assert declaration.description == (
        "Fetches the web page at a url and returns the text it contains."
    )
    assert list(declaration.parameters.properties) == ["url"]
    assert declaration.parameters.required == ["url"]
    [response] = [r for e in events for r in e.get_function_responses()]
    assert response.response == {"result": ARTICLE_TEXT}
    assert events[-1].text == "High water at 06:42."


async def test_the_default_tool_gives_the_model_the_refusal(site: Site):
    url = site.url("/article")
    model = ScriptedModel([function_call("load_web_page", {"url": url}), "I cannot."])
    agent = LlmAgent(name="reader", model=model, tools=[load_web_page])
    events = await TestRunner(agent).run("Read it.")
    [response] = [r for e in events for r in e.get_function_responses()]
    assert response.response["result"].startswith(f"Failed to fetch url: {url} (127.0.0.1 is a")


def test_the_module_and_the_package_export_the_same_tool():
    import pyadk.tools
    import pyadk.tools.load_web_page  # the submodule import leaves the package's tool

    assert LOAD_WEB_PAGE_MODULE.load_web_page is load_web_page is pyadk.tools.load_web_page
    assert LOAD_WEB_PAGE_MODULE.make_load_web_page is make_load_web_page
