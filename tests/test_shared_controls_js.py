"""static/shared_controls.js in Node: after a reconnect the tab sends its last commit again only when the server holds
other values than it (a fresh session on a restarted replica starts from the address, which already holds them; a
teacher's values a following tab took since must not be overwritten by an older commit of its own). The browser
test is tests/browser/test_follow_nginx.py's reconnect; the references here are written out by hand."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from system_packages import require_system_packages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")


def differs(mine, server) -> bool:
    require_system_packages(nodejs=NODE is not None)
    module = json.dumps((ROOT / "static/shared_controls.js").as_uri() + "?v=test")
    script = f"const m = await import({module}); console.log(JSON.stringify(m.differs({json.dumps(mine)}, "
    script += f"{json.dumps(server)})))"
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


SERVER = {"base": 10000, "dim": 128, "length": 64, "heads": 8}  # every shared value, as the sidebar's data has them


@pytest.mark.parametrize(
    ("mine", "expected"),
    [
        ({"base": 10000, "dim": 128, "length": 64}, False),  # the page's controls, all as the server holds them
        ({"length": 4096}, True),  # an older commit of the tab's own: sent again
        ({"dim": 128, "heads": 12}, True),  # one value of several differs
        ({"dim": 128.0}, False),  # 128 and 128.0 are one number in JSON and in JavaScript
        ({}, False),
        (None, False),  # no commit yet (a fresh tab)
    ],
)
def test_a_commit_is_sent_again_only_when_the_server_holds_other_values(mine, expected):
    assert differs(mine, SERVER) is expected


def reruns_fragment(held, values, near, rerun_for) -> bool:
    require_system_packages(nodejs=NODE is not None)
    module = json.dumps((ROOT / "static/shared_controls.js").as_uri() + "?v=test")
    arguments = ", ".join(json.dumps(value) for value in (held, values, near, rerun_for))
    script = f"const m = await import({module}); console.log(JSON.stringify(m.rerunsFragment({arguments})))"
    done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


RERUN_FOR = {"sin_waves": ["dim"], "sin_naive": ["dim", "length"]}  # as the server's answers name them


@pytest.mark.parametrize(
    ("values", "near", "expected"),
    [
        (SERVER | {"dim": 256}, ["sin_table", "sin_waves"], True),  # a near section reruns for the dim: the sidebar
        (SERVER | {"dim": 256}, ["sin_table", "sin_shift"], False),  # none of the near ones does: over HTTP
        (SERVER | {"length": 512}, ["sin_waves"], False),  # sin_waves reruns for the dim, not the length
        (SERVER | {"length": 512}, None, True),  # no section named: every one is near, sin_naive among them
        (SERVER, ["sin_waves", "sin_naive"], False),  # nothing changed
    ],
)
def test_the_tab_commits_through_the_sidebar_only_when_a_near_section_reruns_for_what_changed(values, near, expected):
    assert reruns_fragment(SERVER, values, near, RERUN_FOR) is expected
