"""No replica imports pandas or pyarrow (issue 35): together they take about 70 MB of each replica's memory, and the
app has no dataframe. Streamlit imports them for ``st.table`` (pages draw ``ui.table`` instead) and to scan a
browser element's dict data for dataframes (``ui.component_data`` sends a list).

In a fresh interpreter: every module of the app imported (as app.py's warm-up does), every page run once in AppTest
as a visitor opens it, then neither package is in ``sys.modules``. Where one is, the first import's stack says who.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import PAGE_FILES, ROOT

SCRIPT = """
import importlib.abc, json, sys, traceback

first = {}

class Watch(importlib.abc.MetaPathFinder):  # notes the stack of the first import of each package, imports nothing
    def find_spec(self, name, path=None, target=None):
        if name in ("pandas", "pyarrow") and name not in first:
            first[name] = "".join(traceback.format_stack(limit=40))
        return None

sys.meta_path.insert(0, Watch())
from bench.reruns import open_page
from ui.startup import import_app_modules

import_app_modules()
for path in sys.argv[1:]:
    open_page(path)  # raises if the page does not render
loaded = {name: first.get(name, "") for name in ("pandas", "pyarrow") if name in sys.modules}
print(json.dumps(loaded))
"""


def test_the_app_and_every_page_run_without_pandas_or_pyarrow():
    done = subprocess.run([sys.executable, "-c", SCRIPT, *PAGE_FILES], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert not loaded, "\n\n".join(f"{name} imported from:\n{stack}" for name, stack in loaded.items())
