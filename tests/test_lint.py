"""ruff (lint and format) over the whole repository, so style problems fail CI like any other test."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff(args):
    ruff = shutil.which("ruff") or pytest.fail("ruff is not installed: pip install -r requirements-dev.txt")
    result = subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_package_never_imports_streamlit():
    """posenc is the math: it must import and run without Streamlit (the toy trainer uses it headless)."""
    code = "import sys, posenc, posenc.rope; assert 'streamlit' not in sys.modules, 'posenc imported streamlit'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
