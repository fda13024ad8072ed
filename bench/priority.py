"""The simulated browsers ahead of the servers they measure, on the cores they share.

A load test's simulated class is one Python process beside the replicas and nginx on the same machine. In a burst
(a hundred students' reruns at once) it waited for a core behind the replicas, and the time it noted a page as shown
came late by that wait: a class's browsers each have a device of their own. :func:`browsers_first`, entered once
the servers are started (a process started before keeps its own priority), raises this process's priority, so its
clocks read when the page arrived; the CPU it uses still comes out of the servers' share, as before.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

BROWSERS_NICE = -10  # this process's nice while it measures; the servers keep theirs (0)


@contextlib.contextmanager
def browsers_first() -> Iterator[str]:
    """While inside, run this process at nice :data:`BROWSERS_NICE`; yields the line a report prints about it (a
    process that may not raise its priority runs as before, and says so)."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, BROWSERS_NICE)
    except OSError:
        yield "the simulated class ran at the servers' priority (raising it needs root): its clocks may read late"
        return
    try:
        yield f"the simulated class ran at nice {BROWSERS_NICE}, the servers at {before}: its clocks wait for no one"
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, before)
