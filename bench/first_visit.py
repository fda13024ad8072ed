"""``python -m bench.first_visit [--class-size N]``: a class's first minute on one Wi-Fi, through the shipped proxy.

Two replicas behind ``deploy/nginx.conf`` (``bench.proxy``), Debian's Chromium, as ``bench.browser`` launches it:

- **first visit**: a browser with an empty cache opens a page; everything it transferred until the page is drawn
  (``bench.browser.wait_page_drawn``) and settled: HTTP responses as they came over the wire (Chromium's
  ``encodedDataLength``: compressed bodies and headers) plus the websocket, as nginx counted it (``$bytes_sent``);
- **second visit**: the same browser, its cache kept, opens the page again;
- **uncompressed**: the first visit of a browser that asks for no compression (``Accept-Encoding: identity``), which
  is what every browser got before the proxy compressed (the figure the budget is measured against);
- **fast 3G**: the first visit on Chromium's emulated "Fast 3G" (DevTools' preset: 1.44 Mbit/s down, 675 kbit/s
  up, 562.5 ms latency), from the request to the page drawn; and the same on issue 35's fast 3G (1.6 Mbit/s down,
  750 kbit/s up, 150 ms round trip), home and the heaviest topic page (decay);
- **a class arrives**: ``--class-size`` first visits (the home page's measured first visit times the class).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass

from bench.budgets import FAST_3G_150_MS_FIRST_PAGE_S, FAST_3G_FIRST_PAGE_S, FIRST_VISIT_MB, SECOND_VISIT_KB, Row
from bench.proxy import STREAM_PATH, NginxProxy
from bench.report import markdown_table, text_table
from bench.server import StreamlitServer

FAST_3G = {"offline": False, "latency": 562.5, "downloadThroughput": 180_000, "uploadThroughput": 84_375}
# Issue 35's fast 3G: 1.6 Mbit/s down and a 150 ms round trip (CDP's latency is the request's round trip); up as
# the 3G of WebPageTest's "3G Fast" profile, 750 kbit/s
FAST_3G_150_MS = {"offline": False, "latency": 150.0, "downloadThroughput": 200_000, "uploadThroughput": 93_750}
SLOW_PAGES = (("", "home"), ("decay", "decay"))  # on issue 35's fast 3G: home, and the topic page that moves the most
VIEWPORT = {"width": 1280, "height": 800}
PAGE_TIMEOUT_MS = 180_000  # a first visit on emulated 3G to a server on a busy machine
PAGES = ("", "rope", "decay")  # home, and two topic pages with the most charts


@dataclass(frozen=True)
class Visit:
    """What one page load transferred and how long it took to draw."""

    seconds: float
    http_bytes: int
    socket_bytes: int
    requests: int

    @property
    def total_bytes(self) -> int:
        return self.http_bytes + self.socket_bytes


def load_page(context, url: str, name: str, nginx: NginxProxy, throttle: dict | None = None) -> Visit:
    """Open ``url`` in a new tab of ``context`` (whose cache decides first or second visit), wait until drawn, close
    the tab and count its bytes. ``name`` is the tab's User-Agent, which finds its websocket in nginx's log."""
    from bench.browser import wait_page_drawn

    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setUserAgentOverride", {"userAgent": name})
    if throttle:
        cdp.send("Network.emulateNetworkConditions", throttle)
    sizes: dict[str, int] = {}
    cdp.on("Network.loadingFinished", lambda event: sizes.__setitem__(event["requestId"], event["encodedDataLength"]))
    started = time.perf_counter()
    page.goto(url, timeout=PAGE_TIMEOUT_MS)
    drawn = wait_page_drawn(page, PAGE_TIMEOUT_MS)[1]
    page.close()
    socket_bytes = _socket_bytes(nginx, name)
    return Visit(drawn - started, sum(sizes.values()), socket_bytes, len(sizes))


def _socket_bytes(nginx: NginxProxy, name: str, wait: float = 15.0) -> int:
    """Bytes nginx sent down ``name``'s websocket (logged once it has closed)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        sent = [r.bytes_sent for r in nginx.requests() if r.user_agent == name and r.path.endswith(STREAM_PATH)]
        if sent:
            return sum(sent)
        time.sleep(0.2)
    return 0


def measure(browser, pages: tuple[str, ...] = PAGES, class_size: int = 100, throttled: bool = True) -> list[Row]:
    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(StreamlitServer(startup_timeout=120)) for _ in range(2)]
        nginx = stack.enter_context(NginxProxy([server.port for server in servers]))
        base = f"http://127.0.0.1:{nginx.port}"
        home: Visit | None = None
        for path in pages:
            title = path or "home"
            context = browser.new_context(viewport=VIEWPORT)
            try:
                first = load_page(context, f"{base}/{path}", f"first-{title}", nginx)
                second = load_page(context, f"{base}/{path}", f"second-{title}", nginx)
            finally:
                context.close()
            home = home or first
            note = (f"{first.requests} requests, {first.http_bytes / 1e6:.2f} MB HTTP + "
                    f"{first.socket_bytes / 1e3:.0f} kB websocket, drawn in {first.seconds:.1f} s")  # fmt: skip
            rows.append(Row(f"first visit through the proxy, {title}", first.total_bytes / 1e6, "MB", FIRST_VISIT_MB,
                            note))  # fmt: skip
            note = f"{second.http_bytes / 1e3:.1f} kB HTTP + {second.socket_bytes / 1e3:.0f} kB websocket"
            rows.append(Row(f"second visit, {title}", second.total_bytes / 1e3, "kB", SECOND_VISIT_KB, note))
        context = browser.new_context(viewport=VIEWPORT, extra_http_headers={"Accept-Encoding": "identity"})
        try:
            plain = load_page(context, f"{base}/", "uncompressed-home", nginx)
        finally:
            context.close()
        note = f"{plain.http_bytes / 1e6:.2f} MB HTTP + {plain.socket_bytes / 1e3:.0f} kB websocket"
        rows.append(Row("first visit, no compression asked (before), home", plain.total_bytes / 1e6, "MB", None, note))
        context = browser.new_context(viewport=VIEWPORT)
        try:
            slow = load_page(context, f"{base}/", "fast3g-home", nginx, throttle=FAST_3G) if throttled else None
        finally:
            context.close()
        if slow is not None:
            rows.append(Row("first page drawn on emulated fast 3G, home", slow.seconds, "s", FAST_3G_FIRST_PAGE_S,
                            f"{slow.total_bytes / 1e6:.2f} MB at 1.44 Mbit/s, 562.5 ms latency"))  # fmt: skip
        for path, title in SLOW_PAGES if throttled else ():
            context = browser.new_context(viewport=VIEWPORT)  # an empty cache for each
            try:
                slow = load_page(context, f"{base}/{path}", f"fast3g-150-{title}", nginx, throttle=FAST_3G_150_MS)
            finally:
                context.close()
            rows.append(Row(f"first page drawn on fast 3G at 150 ms, {title}", slow.seconds, "s",
                            FAST_3G_150_MS_FIRST_PAGE_S,
                            f"{slow.total_bytes / 1e6:.2f} MB at 1.6 Mbit/s, 150 ms round trip"))  # fmt: skip
        if home is not None:
            rows.append(Row(f"a class arrives: {class_size} first visits, home", class_size * home.total_bytes / 1e9,
                            "GB", None, f"before: {class_size * plain.total_bytes / 1e9:.2f} GB"))  # fmt: skip
    return rows


def first_visit_rows(
    browser=None, pages: tuple[str, ...] = PAGES, class_size: int = 100, throttled: bool = True
) -> list[Row]:
    """The figures as report rows; one "skipped" row when they cannot be measured (no nginx or Chromium)."""
    from bench.browser import in_chromium

    return in_chromium(lambda chromium: measure(chromium, pages, class_size, throttled), browser,
                       "first visit through the proxy", "MB")  # fmt: skip


def page_paths(names: list[str]) -> tuple[str, ...]:
    """Url paths of the pages named ("home" is the home page's ""; "all": every page of the menu that draws a figure,
    in its order: a page counts as drawn once its figures are, and the glossary has none)."""
    if "all" in names:
        from ui import menu

        return tuple("" if page == menu.HOME else page.path.removeprefix("pages/").removesuffix(".py")
                     for page in menu.PAGES if page.name != "glossary")  # fmt: skip
    return tuple("" if name == "home" else name for name in names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_visit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-size", type=int, default=100, help="first visits in 'a class arrives' (100)")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--pages", nargs="+", metavar="PATH", default=list(PAGES),
                        help="url paths to visit (home, rope, …; all: every page with a figure); default: home, "
                             "rope, decay")  # fmt: skip
    args = parser.parse_args(argv)
    rows = first_visit_rows(pages=page_paths(args.pages), class_size=args.class_size)
    print(markdown_table(rows) if args.markdown else text_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
