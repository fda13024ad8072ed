"""A new release's live-chart script reaches a browser that cached the last one.

Streamlit serves the app's own ``static/`` files with no Cache-Control, so a browser caches them by guesswork
(10 % of the file's age since it was last modified): a live.js last changed a year before a release could be kept
for weeks, run against a server that now sends other data. The app loads it as ``live.js?v=<release>``
(``ui.static_files``). Here one browser, with its cache, visits a release whose static files are old, then the next
release (live.js changed) at the same address, and must run the new script.
"""

from __future__ import annotations

import os
import time

import pytest

from bench.server import StreamlitServer, free_port
from tests.browser.test_browser import open_app
from tests.docker_context import copy_context

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
A_YEAR_AGO = time.time() - 365 * 24 * 3600
MARK = "\nglobalThis.posencLabRelease = 'next';\n"


def _open_live_page(context, url: str):
    tab = context.new_page()
    tab.set_default_timeout(120_000)  # two fresh servers on a shared machine
    open_app(tab, url, "sinusoidal")
    tab.locator(".live canvas").first.wait_for(state="visible", timeout=60_000)
    return tab


@pytest.mark.browser
def test_a_new_live_js_reaches_a_browser_that_cached_the_old_one(browser, tmp_path):
    app = tmp_path / "app"
    copy_context(ROOT, app)
    for path in (app / "static").rglob("*"):
        os.utime(path, (A_YEAR_AGO, A_YEAR_AGO))  # an old release: a browser's guess would keep it for weeks
    port = free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 800})  # one cache for both visits
    try:
        with StreamlitServer(port=port, root=app, startup_timeout=120):
            first = _open_live_page(context, f"http://127.0.0.1:{port}")
            assert first.evaluate("globalThis.posencLabRelease") is None
            first.close()
        with open(app / "static" / "live.js", "a") as script:  # the next release changes live.js
            script.write(MARK)
        with StreamlitServer(port=port, root=app, startup_timeout=120):
            second = _open_live_page(context, f"http://127.0.0.1:{port}")
            second.wait_for_function("globalThis.posencLabRelease === 'next'", timeout=30_000)
            loaded = second.evaluate(
                "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/app/static/'))"
            )
            assert loaded and all("?v=" in name for name in loaded), loaded  # views come from the same release
    finally:
        context.close()
