"""Fixtures for the browser tests of the built book.

The book is built by ``make book`` into ``_build/html``. A local HTTP server
serves it, and Debian's Chromium, driven by Playwright, opens its pages with
every request that would leave the machine blocked and recorded.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# $BOOK_HTML points the tests at another build (for example a partial one in a scratch folder).
SITE = Path(os.environ.get("BOOK_HTML") or Path(__file__).resolve().parent.parent / "_build" / "html")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Debian's Chromium (installed by ``make browser``), or $CHROMIUM."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Chromium is missing: run `make browser` (apt-get install chromium) or set CHROMIUM")
    return path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The built HTML root, ``_build/html``."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    return SITE


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """Base URL of a local server over the built site."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(built_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def open_page(browser, site_url: str) -> Iterator[Callable[[str], object]]:
    """``open_page("notebooks/05_explorer.html")`` -> a loaded Playwright page.

    The page carries ``external_requests`` (URLs that tried to leave the machine,
    all blocked) and ``console_errors`` (console messages of type error, and
    uncaught page errors).
    """
    context = browser.new_context()
    pages = []

    def opener(path: str):
        page = context.new_page()
        page.external_requests, page.console_errors = [], []

        def route(request_route, request):
            url = request.url
            if url.startswith(site_url) or url.startswith(("data:", "blob:", "about:")):
                request_route.continue_()
            else:
                page.external_requests.append(url)
                request_route.abort()

        page.route("**/*", route)
        page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
        page.on("pageerror", lambda error: page.console_errors.append(f"uncaught: {error}"))
        page.set_default_timeout(60_000)
        page.goto(site_url + path, wait_until="load")
        pages.append(page)
        return page

    yield opener
    context.close()
