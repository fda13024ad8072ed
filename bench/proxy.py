"""nginx in front of several app replicas, configured by ``deploy/nginx.conf`` itself (only ports and paths changed).

The load tester uses it to check the set-up the README documents for a bigger class: two or more ``streamlit run``
processes behind nginx with sticky sessions (``ip_hash``). nginx hashes the first three octets of a client's IPv4
address, so simulated students connect from their own loopback addresses 127.0.<n>.1 (all of 127.0.0.0/8 is this
machine on Linux), and the same student always reaches the same replica, as a real classroom's browsers would.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from bench.server import ROOT, free_port, stop_process

SITE = ROOT / "deploy" / "nginx.conf"
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")


def nginx_binary() -> str | None:
    """The nginx executable, or None (install it with ``apt-get install nginx``)."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def student_address(number: int) -> str:
    """The loopback address student ``number`` connects from: a different third octet for every student."""
    return f"127.0.{1 + number % 250}.1"


def site_config(replica_ports: list[int], listen_port: int, site: str | None = None) -> str:
    """deploy/nginx.conf with its upstream servers replaced by ``replica_ports`` and listening on ``listen_port``."""
    site = SITE.read_text() if site is None else site
    servers = "".join(f"    server 127.0.0.1:{port};\n" for port in replica_ports)
    site, replaced = re.subn(r"(?:^\s*server 127\.0\.0\.1:\d+;\n)+", servers, site, count=1, flags=re.M)
    site, listened = re.subn(r"^(\s*)listen \d+;", rf"\g<1>listen 127.0.0.1:{listen_port};", site, flags=re.M)
    if replaced != 1 or listened != 1:
        raise ValueError("deploy/nginx.conf no longer has one upstream server list and one `listen` line")
    return site


def main_config(site_path: Path, work: Path) -> str:
    """A whole nginx.conf that includes the site file in its ``http`` block, with every path under ``work``."""
    return f"""worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    include {site_path};
}}
"""


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

    def stop(self) -> None:
        stop_process(self.process)
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self) -> NginxProxy:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
