"""The shipped multi-replica set-up: deploy/nginx.conf in front of two real ``streamlit run app.py`` processes, and
deploy/compose.yaml, which runs that same file.

A school class reaches the server from one address (NAT, one Wi-Fi), so every simulated browser here connects from
127.0.0.1 and keeps its own cookies. Which replica served a request comes from nginx's access log (``bench.proxy``).
Nothing here is timed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml
from system_packages import require_system_packages

from bench import proxy
from bench.protocol import XSRF_COOKIE, StreamlitClient, cookies_set_by, http_get
from bench.server import StreamlitServer, free_port
from ui.static_files import STATIC_VERSION

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "deploy" / "compose.yaml"
CLASS = 16  # browsers: all of them on one replica would happen once in 2**15 runs
PUBLIC_NAME = "lab.example"  # the name students type: Streamlit waves 127.0.0.1 through its Origin check, not this


def _nginx() -> str:
    """nginx (installed by .ci/system-packages)."""
    found = proxy.nginx_binary()
    require_system_packages(nginx=found is not None)
    return found


def _run(coroutine, timeout: float = 240.0):
    """Run ``coroutine`` on a fresh event loop in a thread of its own (the browser tests' Playwright keeps a loop
    running in the test thread)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=timeout)


@pytest.fixture(scope="module")
def replicas():
    """Two real servers and nginx in front of them, configured by the shipped deploy/nginx.conf."""
    _nginx()
    with StreamlitServer() as first, StreamlitServer() as second, proxy.NginxProxy([first.port, second.port]) as nginx:
        yield [first, second], nginx


def _by_browser(
    nginx: proxy.NginxProxy, prefix: str, sessions: int = 0, at_least: int = 0
) -> dict[str, list[proxy.LoggedRequest]]:
    """The logged requests of the browsers named ``prefix…``, by browser, once ``sessions`` of their websockets and
    ``at_least`` requests in all are logged (nginx writes a request's line a moment after its answer, a websocket's
    when it has closed)."""
    deadline = time.monotonic() + 30
    while True:
        requests = defaultdict(list)
        for request in nginx.requests():
            if request.user_agent.startswith(prefix):
                requests[request.user_agent].append(request)
        logged = sum(request.is_session for browser in requests.values() for request in browser)
        done = logged >= sessions and sum(map(len, requests.values())) >= at_least
        if done or time.monotonic() > deadline:
            return requests
        time.sleep(0.1)


@pytest.mark.browser  # runs nginx
def test_the_shipped_config_loads_as_it_is_in_an_http_block(tmp_path):
    """The non-Docker way: a host's nginx includes deploy/nginx.conf unchanged in its http block."""
    main = tmp_path / "nginx.conf"
    main.write_text(proxy.main_config(proxy.SITE, tmp_path))
    result = subprocess.run([_nginx(), "-t", "-c", str(main), "-p", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.browser  # two real servers behind nginx
def test_the_route_cookie_is_set_once(replicas):
    _, nginx = replicas

    async def visit():
        first = await http_get(nginx.port, "/", {"User-Agent": "cookie-check"}, host_name=PUBLIC_NAME)
        [issued] = [value for value in first.header_values("set-cookie") if value.startswith(proxy.ROUTE_COOKIE)]
        route = cookies_set_by(first)[proxy.ROUTE_COOKIE]
        headers = {"User-Agent": "cookie-check", "Cookie": f"{proxy.ROUTE_COOKIE}={route}"}
        again = await http_get(nginx.port, "/", headers, host_name=PUBLIC_NAME)
        health = await http_get(nginx.port, "/_stcore/health", headers, host_name=PUBLIC_NAME)
        metrics = await http_get(nginx.port, "/_stcore/metrics", headers, host_name=PUBLIC_NAME)
        return first, issued, route, again, health, metrics

    first, issued, route, again, health, metrics = _run(visit())
    assert first.status == again.status == health.status == 200
    assert re.fullmatch(r"[0-9a-f]{32}", route), route  # nginx's $request_id: random per browser
    assert {part.strip() for part in issued.split(";")[1:]} == {"Path=/", "HttpOnly", "SameSite=Lax"}
    assert proxy.ROUTE_COOKIE not in cookies_set_by(again) and proxy.ROUTE_COOKIE not in cookies_set_by(health)
    assert XSRF_COOKIE in cookies_set_by(health)  # Streamlit's own cookie still comes through
    assert metrics.status == 404
    replicas_asked = {
        request.replica_port for request in _by_browser(nginx, "cookie-check", at_least=4)["cookie-check"]
    }
    assert len(replicas_asked - {None}) == 1  # the first request (no cookie yet) went where its cookie sends the rest


@pytest.mark.browser  # two real servers behind nginx
def test_a_class_from_one_address_is_spread_over_both_replicas(replicas):
    servers, nginx = replicas

    async def student(number: int):
        client = StreamlitClient(nginx.port, timeout=90, name=f"class-{number}", host_name=PUBLIC_NAME)
        await client.open_page()
        await client.connect()
        try:
            return await client.rerun()  # the home page, over the websocket through nginx
        finally:
            await client.close()

    async def lesson():
        return await asyncio.gather(*(student(n) for n in range(CLASS)))

    runs = _run(lesson())
    assert all(not run.errors and run.session_id for run in runs), [run.errors for run in runs]
    assert all(run.pages for run in runs)  # the app's navigation arrived: the page really ran
    browsers = _by_browser(nginx, "class-", sessions=CLASS)
    assert len(browsers) == CLASS
    sessions = Counter(request.replica_port for log in browsers.values() for request in log if request.is_session)
    assert sum(sessions.values()) == CLASS
    assert set(sessions) == {server.port for server in servers}, sessions  # both replicas serve the class
    for name, requests in browsers.items():
        assert {request.client_address for request in requests} == {"127.0.0.1"}  # one address for the class
        assert {request.path for request in requests} >= {"/", "/_stcore/health", proxy.STREAM_PATH}
        assert len({request.replica_port for request in requests}) == 1, (name, requests)  # sticky from the start
        assert all(request.route_cookie for request in requests if request.path != "/")  # cookie kept after page


@pytest.mark.browser  # two real servers behind nginx
def test_a_browser_keeps_its_replica_and_session_across_reconnects(replicas):
    _, nginx = replicas
    reconnects = 3

    async def browser(number: int):
        client = StreamlitClient(nginx.port, timeout=90, name=f"reconnect-{number}", host_name=PUBLIC_NAME)
        await client.open_page()
        await client.connect()
        xsrf = [client.cookies[XSRF_COOKIE]]
        runs = [await client.rerun()]
        for _ in range(reconnects):
            await client.reconnect()  # drop the websocket, ping health again, resume the session by its id
            xsrf.append(client.cookies[XSRF_COOKIE])
            runs.append(await client.rerun())
        await client.close()
        return xsrf, runs

    async def all_browsers():
        return await asyncio.gather(*(browser(n) for n in range(4)))

    for xsrf, runs in _run(all_browsers()):
        assert all(not run.errors for run in runs), [run.errors for run in runs]
        assert len({run.session_id for run in runs}) == 1  # the same replica resumed the same session every time
        assert len(set(xsrf)) == len(xsrf)  # why nginx cannot hash Streamlit's cookie: health re-masks it each time
    browsers = _by_browser(nginx, "reconnect-", sessions=4 * (1 + reconnects))
    assert len(browsers) == 4
    for name, requests in browsers.items():
        assert sum(request.is_session for request in requests) == 1 + reconnects
        assert len({request.replica_port for request in requests}) == 1, (name, requests)


@pytest.mark.browser  # two real servers behind nginx
def test_browsers_of_a_dead_replica_get_a_session_on_the_live_one(replicas):
    servers, _ = replicas
    live, dead = servers[0].port, free_port()  # nothing listens on `dead`: a crashed or still warming replica

    async def student(port: int, number: int):
        client = StreamlitClient(port, timeout=90, name=f"survivor-{number}", host_name=PUBLIC_NAME)
        await client.open_page()
        await client.connect()
        try:
            return await client.rerun()
        finally:
            await client.close()

    with proxy.NginxProxy([live, dead]) as nginx:

        async def lesson():
            return await asyncio.gather(*(student(nginx.port, n) for n in range(6)))

        runs = _run(lesson())
        assert all(not run.errors and run.session_id for run in runs), [run.errors for run in runs]
        assert nginx.sessions_per_replica(expected=6) == {live: 6, dead: 0}


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One GET to 127.0.0.1:``port`` as a browser of the class sends it: status, headers (lower-case names), body
    as it came over the wire (not decompressed)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": f"{PUBLIC_NAME}:{port}"})
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


@pytest.mark.browser  # two real servers behind nginx
def test_the_proxy_compresses_what_compresses_and_keeps_hashed_assets_cacheable(replicas):
    """A first visit's JavaScript comes gzipped through nginx, byte for byte what the replica sends uncompressed, and
    keeps the Cache-Control Streamlit gives its hashed assets (a second visit fetches none of them)."""
    servers, nginx = replicas
    _, _, index = _get(nginx.port, "/")
    scripts = re.findall(rb'src="\.?/?(static/js/[\w.-]+\.js)"', index)
    assert scripts, index[:300]
    path = "/" + scripts[0].decode()
    _, direct_headers, direct = _get(servers[0].port, path)  # the replica itself, no compression asked for
    status, headers, body = _get(nginx.port, path, {"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and headers.get("content-encoding") == "gzip"
    assert gzip.decompress(body) == direct and len(body) < len(direct) / 2
    assert "accept-encoding" in headers.get("vary", "").lower()
    assert headers.get("cache-control") == direct_headers.get("cache-control")
    assert "immutable" in headers["cache-control"] or "max-age" in headers["cache-control"]
    _, plain_headers, plain = _get(nginx.port, path)  # a client that asks for no compression gets none
    assert "content-encoding" not in plain_headers and plain == direct
    live = f"/app/static/live.js?v={STATIC_VERSION}"  # the live charts' script, at this release's address
    status, headers, body = _get(nginx.port, live, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("content-encoding") == "gzip" and "immutable" in headers["cache-control"]
    assert gzip.decompress(body) == (ROOT / "static" / "live.js").read_bytes()
    _, headers, _ = _get(nginx.port, "/app/static/live.js")  # an address without this release's version: revalidated
    assert headers.get("cache-control") == "no-cache"


@pytest.mark.browser  # two real servers behind nginx
def test_the_script_health_check_answers_only_on_the_replicas_own_host(replicas):
    """It runs the whole app on every call: through the proxy it is refused before a replica sees it; a replica
    answers it only to a request from its own host that no proxy forwarded (the container's health check)."""
    servers, nginx = replicas
    for path in ("/_stcore/script-health-check", "/rope/_stcore/script-health-check"):
        status, _, _ = _get(nginx.port, path, {"User-Agent": "health-probe"})
        assert status == 404, path
    logged = _by_browser(nginx, "health-probe", at_least=2)["health-probe"]
    assert len(logged) == 2 and {request.replica_port for request in logged} == {None}  # no replica was asked
    assert _get(servers[0].port, "/_stcore/script-health-check")[0] == 200
    forwarded = {"X-Forwarded-For": "10.0.0.7"}  # what nginx adds: the request came from elsewhere
    assert _get(servers[0].port, "/_stcore/script-health-check", forwarded)[0] == 404


@pytest.mark.browser  # two real servers behind nginx
def test_one_browser_flooding_the_proxy_is_limited_and_a_new_student_is_not(replicas):
    """A script with one browser's cookie asks for pages and websockets in a loop: most are refused (429) before
    any replica sees them, while another student still gets in."""
    _, nginx = replicas
    _, headers, _ = _get(nginx.port, "/", {"User-Agent": "flood"})
    route = headers["set-cookie"].split(";", 1)[0]
    flood = {"User-Agent": "flood", "Cookie": route}
    tries = 60
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        pages = list(pool.map(lambda _: _get(nginx.port, "/", flood)[0], range(tries)))
        sockets = list(pool.map(lambda _: _get(nginx.port, "/_stcore/stream", flood)[0], range(tries)))
    assert pages.count(429) >= tries / 2 and sockets.count(429) >= tries / 2, (Counter(pages), Counter(sockets))
    reached = [r for r in _by_browser(nginx, "flood")["flood"] if r.replica_port is not None]
    assert len(reached) < tries, len(reached)  # the refused ones never reached a replica
    assert _get(nginx.port, "/", {"User-Agent": "newcomer"})[0] == 200


@pytest.mark.browser  # two real servers behind nginx
def test_a_class_poll_reaches_the_browsers_replica_and_a_loop_of_them_is_limited(replicas):
    """class/state (ui/class_http.py) goes through the proxy to the replica the browser's cookie picks and answers
    its own short JSON; one browser's script polling in a loop gets 429 beyond a few tabs' pace (1 poll a second
    each), before a replica sees it."""
    _, nginx = replicas
    _, headers, _ = _get(nginx.port, "/", {"User-Agent": "class-poll"})
    poll = {"User-Agent": "class-poll", "Cookie": headers["set-cookie"].split(";", 1)[0]}
    status, _, body = _get(nginx.port, "/class/state?code=OOOOOO", poll)  # O is in no class code
    assert (status, json.loads(body)) == (400, {"error": "bad code"})
    status, _, body = _get(nginx.port, "/class/state?code=K7QF3M", poll)  # a code of no class
    assert (status, json.loads(body)) == (200, {"over": True})
    logged = _by_browser(nginx, "class-poll", at_least=3)["class-poll"]
    assert len({request.replica_port for request in logged} - {None}) == 1  # the page and its polls: one replica
    tries = 80
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: _get(nginx.port, "/class/state?code=K7QF3M", poll)[0], range(tries)))
    assert statuses.count(429) >= tries / 4 and statuses.count(200) >= 10, Counter(statuses)


# deploy/compose.yaml: `docker compose up` runs deploy/nginx.conf itself in front of the app replicas. There is no
# Docker here, so the file is checked for what makes the set-up work: each upstream server has a replica there.


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _upstream_ports() -> list[int]:
    site = proxy.SITE.read_text()
    upstream = re.search(r"upstream \w+ \{(.*?)\}", site, re.S).group(1)
    return [int(port) for port in re.findall(r"^\s*server 127\.0\.0\.1:(\d+)[ ;]", upstream, re.M)]


def test_compose_runs_a_replica_on_every_upstream_server_of_the_shipped_config():
    services = _compose()["services"]
    proxies = [name for name, service in services.items() if str(service.get("image", "")).startswith("nginx:")]
    assert len(proxies) == 1
    apps = {name: service for name, service in services.items() if name not in proxies}
    listening = {}
    for name, service in apps.items():
        command = service["command"]
        assert command[:3] == ["streamlit", "run", "app.py"], name
        assert "--server.address=127.0.0.1" in command, name  # reachable only through nginx
        assert service["network_mode"] == f"service:{proxies[0]}", name  # the proxy's 127.0.0.1 is the replica's
        assert proxies[0] in service["depends_on"], name
        [port] = [int(flag.split("=")[1]) for flag in command if flag.startswith("--server.port=")]
        listening[port] = name
        health = " ".join(service["healthcheck"]["test"])
        assert f"http://127.0.0.1:{port}/_stcore/" in health, name  # checks its own port, not the image's 8501
    upstream = _upstream_ports()
    assert len(upstream) >= 2 and sorted(upstream) == sorted(listening), (upstream, listening)


def test_compose_mounts_the_shipped_config_and_builds_the_repository():
    compose = _compose()
    services = compose["services"]
    [nginx] = [service for service in services.values() if str(service.get("image", "")).startswith("nginx:")]
    mounts = [volume.split(":") for volume in nginx["volumes"]]
    assert [
        (source, target, mode) for source, target, mode in mounts if (COMPOSE.parent / source).resolve() == proxy.SITE
    ] == [("./nginx.conf", "/etc/nginx/conf.d/default.conf", "ro")]  # the official image includes conf.d in http
    listen = re.search(r"^\s*listen (\d+);", proxy.SITE.read_text(), re.M).group(1)
    assert [port.rsplit(":", 1)[1] for port in nginx["ports"]] == [listen]
    builds = [service["build"] for service in services.values() if "build" in service]
    assert len(builds) == len(services) - 1
    for build in builds:
        context = (COMPOSE.parent / build["context"]).resolve()
        assert context == ROOT and (context / build.get("dockerfile", "Dockerfile")).is_file()
