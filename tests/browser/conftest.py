"""Real-browser fixtures: a `streamlit run app.py` server on a free loopback port, and Debian's Chromium via Playwright.

The server is stopped when the session ends, also when a test failed. Chromium comes from Debian's package
(`playwright install` cannot download browsers here), installed with the font by `.ci/system-packages`. Every test
here is marked `browser` (tests/conftest.py): `python -m pytest -m "not browser"` leaves them out.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect
from system_packages import require_system_packages

from bench.browser import CHROMIUM, CHROMIUM_ARGS  # one launch for the tests and the benchmark
from bench.server import free_port, stop_process

# A cold server imports torch and plotly on its first run, and CI machines are shared: wait generously.
expect.set_options(timeout=60_000)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
STARTUP_SECONDS = 120  # a cold start imports torch and plotly; a loaded CI machine is slow


CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"  # Chinese and Hangul glyphs for the ko/zh screenshots


def _chromium() -> str:
    """Debian's Chromium, and a small CJK font so Korean and Chinese pages render as text, not boxes (both installed
    by .ci/system-packages)."""
    require_system_packages(chromium=Path(CHROMIUM).exists(), **{"fonts-wqy-microhei": Path(CJK_FONT).exists()})
    return CHROMIUM


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """Start `streamlit run app.py` on a free loopback port; yield its URL; stop it however the tests ended."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    command += ["--client.showErrorDetails", "full"]  # the hosted config hides exceptions; the tests must see them
    with open(ARTIFACTS.parent / "streamlit-browser-tests.log", "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_healthy(process, url)
            yield url
        finally:
            stop_process(process, grace=15)


def _wait_until_healthy(process: subprocess.Popen, url: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"streamlit exited with code {process.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                healthy = response.status == 200
        except OSError:
            healthy = False
        if healthy:  # app.py warms the server up (and runs navigation.py once) before health answers
            return
        if time.monotonic() > deadline:
            pytest.fail(f"streamlit was not healthy within {STARTUP_SECONDS} s")
        time.sleep(0.25)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    """A fresh browser tab (1280×800) that records console errors and failed requests in ``page.problems``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    problems: list[str] = []
    tab.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    tab.on("requestfailed", lambda request: problems.append(f"request failed: {request.url}"))
    tab.problems = problems
    yield tab
    context.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """nginx and two replicas over one class store (tests/browser/class_lab.py), one set-up per test module."""
    from tests.browser.class_lab import class_lab

    with class_lab(tmp_path_factory.mktemp("class-store")) as started:
        yield started
