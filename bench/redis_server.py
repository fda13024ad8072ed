"""A throwaway ``redis-server`` on a free loopback port, for class mode's tests and load scenario (no mock).

``with RedisServer() as server: open_store(server.url)``. Nothing is saved to disk (no RDB, no AOF) and the server
is stopped at the end, also when a test failed. ``redis-server`` comes from Debian (``.ci/system-packages``).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time

from bench.server import free_port, stop_process

CANDIDATES = ("redis-server", "/usr/bin/redis-server")


def redis_binary() -> str | None:
    for candidate in CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


class RedisServer:
    def __init__(self, startup_timeout: float = 15.0):
        self.binary = redis_binary()
        if self.binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        self.startup_timeout = startup_timeout
        self.work = tempfile.mkdtemp(prefix="bench-redis-")
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                   "--dir", self.work, "--daemonize", "no"]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not answer on {self.port} within {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        stop_process(self.process)
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
