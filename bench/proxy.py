"""nginx in front of several app replicas, configured by ``deploy/nginx.conf`` itself (only ports and paths changed).

The load tester and the tests use it to check the set-up the README documents for a bigger class: two or more
``streamlit run`` processes behind nginx, sticky per browser by a route cookie that nginx issues itself
(``posenc_route``; see the comments in deploy/nginx.conf for why not ``ip_hash``). Simulated students all connect
from 127.0.0.1, as a class behind one school's NAT does; each keeps its own cookies, as its browser would.

nginx writes an access log here (``NginxProxy.requests()``): status, method, path, the replica that served the
request, the client's User-Agent (the simulated student's name) and its route cookie. The load tester counts the
websocket sessions each replica served from it; the tests check that a browser's requests all reach one replica.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.server import ROOT, free_port, stop_process

SITE = ROOT / "deploy" / "nginx.conf"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")
ROUTE_COOKIE = "posenc_route"  # the cookie deploy/nginx.conf issues and routes on
STREAM_PATH = "/_stcore/stream"  # Streamlit's websocket: one request there is one browser session (or a reconnect)
# the access log's fields (tab-separated), as LoggedRequest reads them
LOG_FIELDS = ("$status", "$request_method", "$uri", "$upstream_addr", "$remote_addr", "$http_user_agent")
LOG_FIELDS += (f"$cookie_{ROUTE_COOKIE}", "$bytes_sent")


def nginx_binary() -> str | None:
    """The nginx executable, or None (install it with ``apt-get install nginx``)."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def site_config(replica_ports: list[int], listen_port: int, site: str | None = None) -> str:
    """deploy/nginx.conf with its upstream servers replaced by ``replica_ports`` and listening on ``listen_port``."""
    site = SITE.read_text() if site is None else site
    found = re.search(r"^\s*server 127\.0\.0\.1:\d+( [^;\n]*)?;$", site, flags=re.M)
    options = found.group(1) or "" if found else ""  # the shipped servers' options (max_fails=0), kept
    servers = "".join(f"    server 127.0.0.1:{port}{options};\n" for port in replica_ports)
    site, replaced = re.subn(r"(?:^\s*server 127\.0\.0\.1:\d+(?: [^;\n]*)?;\n)+", servers, site, count=1, flags=re.M)
    site, listened = re.subn(r"^(\s*)listen \d+;", rf"\g<1>listen 127.0.0.1:{listen_port};", site, flags=re.M)
    if replaced != 1 or listened != 1:
        raise ValueError("deploy/nginx.conf no longer has one upstream server list and one `listen` line")
    return site


def main_config(site_path: Path, work: Path) -> str:
    """A whole nginx.conf that includes the site file in its ``http`` block, with every path under ``work``."""
    log_format = "\\t".join(LOG_FIELDS)  # tab-separated; nginx's own \t escape
    return f"""worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format bench "{log_format}";
    access_log {work}/access.log bench;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    include {site_path};
}}
"""


@dataclass(frozen=True)
class LoggedRequest:
    """One line of the proxy's access log."""

    status: int
    method: str
    path: str
    replica_port: int | None  # the replica that answered (the last one tried), None if no replica was asked
    client_address: str
    user_agent: str
    route_cookie: str  # the route cookie the request came with, "" if none
    bytes_sent: int = 0  # to the client, headers included, compressed as sent (a websocket: everything it carried)

    @classmethod
    def parse(cls, line: str) -> LoggedRequest:
        status, method, path, upstream, address, agent, cookie, sent = line.rstrip("\n").split("\t")
        last = upstream.split(",")[-1].strip()  # "127.0.0.1:8501, 127.0.0.1:8502" when the first refused
        port = int(last.rsplit(":", 1)[1]) if ":" in last else None
        agent, cookie = ("" if value == "-" else value for value in (agent, cookie))
        return cls(int(status), method, path, port, address, agent, cookie, int(sent))

    @property
    def is_session(self) -> bool:
        """A websocket that was opened (101 Switching Protocols) and has closed since: nginx logs it at the end."""
        return self.path == STREAM_PATH and self.status == 101


class NginxProxy:
    """``with NginxProxy([8501, 8502]) as proxy:`` — nginx on 127.0.0.1:``proxy.port`` in front of the replicas."""

    def __init__(self, replica_ports: list[int], port: int | None = None, startup_timeout: float = 15.0):
        self.binary = nginx_binary()
        if self.binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx); it is needed for --replicas > 1")
        self.replica_ports = list(replica_ports)
        self.port = port or free_port()
        self.startup_timeout = startup_timeout
        self.work = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
        self.work.chmod(0o755)  # run as root, nginx's workers are another user and keep their temp files in here
        self.process: subprocess.Popen | None = None

    def start(self) -> NginxProxy:
        site = self.work / "site.conf"
        site.write_text(site_config(self.replica_ports, self.port))
        config = self.work / "nginx.conf"
        config.write_text(main_config(site, self.work))
        command = [self.binary, "-c", str(config), "-p", str(self.work), "-g", "daemon off;"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = (self.work / "error.log").read_text() if (self.work / "error.log").exists() else ""
                raise RuntimeError(f"nginx exited with {self.process.returncode}: {log[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"nginx did not listen on {self.port} within {self.startup_timeout:.0f} s")

    def requests(self) -> list[LoggedRequest]:
        """Every request nginx has logged so far (a websocket is logged when it closes)."""
        log = self.work / "access.log"
        if not log.exists():
            return []
        return [LoggedRequest.parse(line) for line in log.read_text().splitlines() if line.strip()]

    def sessions_per_replica(self, expected: int = 0, wait: float = 15.0) -> dict[int, int]:
        """Websocket sessions each replica served, by port (every replica listed, 0 if it served none). Waits up
        to ``wait`` seconds for ``expected`` closed sessions to be logged: nginx writes a websocket's line only once
        both of its ends have closed."""
        deadline = time.monotonic() + wait
        while True:
            sessions = Counter(request.replica_port for request in self.requests() if request.is_session)
            if sum(sessions.values()) >= expected or time.monotonic() > deadline:
                return {port: sessions.get(port, 0) for port in self.replica_ports}
            time.sleep(0.1)

    def stop(self) -> None:
        stop_process(self.process)
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self) -> NginxProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
