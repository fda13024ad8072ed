"""The shipped class set-up for browser tests: nginx (deploy/nginx.conf) in front of two replicas that share one
SQLite class store, and a browser of its own pinned to either replica by nginx's route cookie. Shared by
test_classroom.py and test_follow_nginx.py (the ``lab`` fixture in conftest.py, one per test module).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from system_packages import require_system_packages

from bench import proxy
from bench.server import StreamlitServer

STARTUP_SECONDS = 240  # a cold replica imports torch and plotly; the machine is shared


@dataclass
class ClassLab:
    url: str  # the proxy's
    routes: dict[int, str]  # a route cookie value that nginx sends to each replica, by the replica's port
    replicas: dict[int, StreamlitServer]  # by port
    store: Path  # the SQLite file both replicas use

    def restart(self, port: int) -> None:
        """Stop the replica on ``port`` (SIGTERM: every session on it is gone) and start it again on the same port
        over the same store, as a deploy or a crash and restart does."""
        replica = self.replicas[port]
        replica.stop()
        replica.start()

    def rows(self, sql: str, *args) -> list[tuple]:
        """What the class store holds (read-only, beside the replicas)."""
        with contextlib.closing(sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=30)) as db:
            return db.execute(sql, args).fetchall()


@contextlib.contextmanager
def class_lab(folder: Path) -> Iterator[ClassLab]:
    """nginx and two replicas over one class store in ``folder``, stopped however the tests end."""
    require_system_packages(nginx=proxy.nginx_binary() is not None)
    store = folder / "classes.sqlite3"
    before = os.environ.get("POSENC_CLASS_STORE")
    os.environ["POSENC_CLASS_STORE"] = f"sqlite:///{store}"  # the replicas inherit it (a restart too)
    try:
        with (
            StreamlitServer(startup_timeout=STARTUP_SECONDS) as one,
            StreamlitServer(startup_timeout=STARTUP_SECONDS) as two,
            proxy.NginxProxy([one.port, two.port]) as nginx,
        ):
            url = f"http://127.0.0.1:{nginx.port}"
            yield ClassLab(url, routes_to_each_replica(nginx), {one.port: one, two.port: two}, store)
    finally:
        if before is None:
            os.environ.pop("POSENC_CLASS_STORE", None)
        else:
            os.environ["POSENC_CLASS_STORE"] = before


def routes_to_each_replica(nginx: proxy.NginxProxy) -> dict[int, str]:
    """A route cookie value that nginx sends to each replica, found by asking and reading its access log."""

    def probe(key: str) -> None:
        headers = {"User-Agent": f"route-probe-{key}", "Cookie": f"{proxy.ROUTE_COOKIE}={key}"}
        request = urllib.request.Request(f"http://127.0.0.1:{nginx.port}/_stcore/health", headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()

    found: dict[int, str] = {}
    for n in range(64):
        key = f"{n:032x}"
        probe(key)
        for request in nginx.requests():
            if request.user_agent == f"route-probe-{key}" and request.replica_port:
                found.setdefault(request.replica_port, key)
        if len(found) == len(nginx.replica_ports):
            return found
    pytest.fail(f"no route cookie reached every replica: {found}")


def browser_on(browser, url: str, route: str, width: int = 1024, height: int = 768):
    """A browser of its own (cookies, localStorage) that nginx sends to the replica of ``route``."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": proxy.ROUTE_COOKIE, "value": route, "url": url}])
    return context


def tab(context):
    page = context.new_page()
    page.set_default_timeout(90_000)
    return page


def open_sidebar(page) -> None:
    """Presenter mode and phones open with the sidebar collapsed: open it as a person does."""
    for test_id in ("stExpandSidebarButton", "stSidebarCollapsedControl"):
        control = page.get_by_test_id(test_id)
        if control.count() and control.first.is_visible():
            control.first.click()
            return


def move_slider(page, name: str, key: str) -> None:
    """Move a shared slider of the sidebar by keyboard (its release commits the value)."""
    slider = page.locator(f"#shared-{name}")
    if not slider.is_visible():
        open_sidebar(page)
    slider.focus()
    slider.press(key)
