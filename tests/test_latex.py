"""Every formula a page sends with ``st.latex``, in every language, parses with the KaTeX that Streamlit ships (the
renderer the browser uses), with ``throwOnError``: an undefined control word (``\\quadw`` from two joined strings)
or an unbalanced brace fails here instead of drawing red source text on the page."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import streamlit
from conftest import PAGE_FILES
from system_packages import require_system_packages

from ui.i18n import LANGUAGES

NODE = shutil.which("node")
KATEX = sorted((Path(streamlit.__file__).parent / "static" / "static" / "js").glob("katex.*.js"))


def katex_errors(formulas: list[tuple[str, str]], tmp_path: Path) -> list[str]:
    """``[(where, source)]`` parsed by Streamlit's KaTeX in Node; returns "where: message" for each that fails."""
    require_system_packages(nodejs=NODE is not None)
    assert KATEX, "Streamlit's KaTeX bundle (static/js/katex.*.js) was not found"
    module = tmp_path / "katex.mjs"  # an ES module: Node reads a .js file outside a "type": "module" package as CJS
    module.write_text(KATEX[0].read_text(encoding="utf-8"), encoding="utf-8")
    script = (
        f"const katex = (await import({json.dumps(module.as_uri())})).default;\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const errors = [];\n"
        "for (const [where, source] of JSON.parse(Buffer.concat(chunks).toString())) {\n"
        "  try { katex.renderToString(source, {throwOnError: true, displayMode: true}); }\n"
        "  catch (error) { errors.push(`${where}: ${error.message}`); }\n"
        "}\n"
        "console.log(JSON.stringify(errors));\n"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(formulas),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_katex_rejects_a_joined_control_word(tmp_path):
    """The check itself: KaTeX refuses ``\\quadw`` (two strings joined without a space) and accepts ``\\quad w``."""
    errors = katex_errors([("joined", r"a,\quadw_i=1"), ("spaced", r"a,\quad w_i=1")], tmp_path)
    assert len(errors) == 1 and errors[0].startswith("joined:") and "quadw" in errors[0]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_formula_parses_with_katex(open_page, lang, tmp_path):
    formulas = []
    for page in PAGE_FILES:
        at = open_page(page, query={"lang": lang})
        assert not at.exception, (page, at.exception)
        formulas += [(f"{page} ({lang})", element.value.strip().strip("$").strip()) for element in at.latex]
    assert len(formulas) >= 40  # the decay, inference, rope, relative … pages' formulas, not an empty run
    assert katex_errors(formulas, tmp_path) == []
