"""A real ``streamlit run app.py`` on 127.0.0.1 and a free port, started and stopped by the load tester."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux /proc), or NaN where that is not available."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process ``pid`` has used so far, in seconds (Linux /proc), or NaN."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def tree_cpu_seconds(pid: int) -> float:
    """:func:`cpu_seconds` of process ``pid`` and of every process below it still running (nginx's workers)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return cpu_seconds(pid) + sum(tree_cpu_seconds(int(child)) for child in children)


def stop_process(process: subprocess.Popen | None, grace: float = 10.0) -> None:
    """Terminate ``process`` if it still runs, and kill it if it has not ended ``grace`` seconds later."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class StreamlitServer:
    """``with StreamlitServer() as server:`` — the app served headless on 127.0.0.1:``server.port``.

    One torch thread per server process (OMP_NUM_THREADS=1), so concurrency comes from sessions, not from
    threads fighting over the cores. Output goes to ``log_path`` so a failing start can be read afterwards.
    """

    def __init__(
        self, port: int | None = None, startup_timeout: float = 180.0, log_path: Path | None = None, root: Path = ROOT
    ):
        self.root = root  # the app's folder (a copy of it, to serve another release)
        self.port = port or free_port()
        self.startup_timeout = startup_timeout
        self.log_path = log_path or Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-streamlit-{self.port}.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> StreamlitServer:
        command = [
            sys.executable, "-m", "streamlit", "run", str(self.root / "app.py"),
            "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port", str(self.port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none", "--logger.level", "warning",
        ]  # fmt: skip
        env = {
            "MALLOC_ARENA_MAX": "2",
            "MALLOC_MMAP_THRESHOLD_": "1048576",
            **os.environ,
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
        }  # as the image (Dockerfile)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"streamlit did not answer within {self.startup_timeout:.0f} s; see {self.log_path}")

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid) if self.process else float("nan")

    def stop(self) -> None:
        """Terminate the server we started (and only it)."""
        stop_process(self.process)

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
