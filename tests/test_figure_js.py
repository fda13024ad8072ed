"""static/figure.js, the browser's drawing of the server's Plotly-format figures, run in Node against Python.

- numbers in a hovertemplate (``%{y:.3f}``, d3-format's specs) read as Python's ``format`` writes them;
- a hovertemplate is filled with a point's fields as Plotly fills it (``<extra>`` dropped, customdata by index);
- on a phone, every page's figures with side-by-side panels stack them: each panel the full width, in reading
  order, none over another, and every panel title over the panel it names; at 1024 px nothing moves.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import figures
from system_packages import require_system_packages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")


def run_node(script: str, payload) -> object:
    """Run an ES module ``script`` in Node with ``payload`` (JSON) as ``input``; returns what it prints (JSON)."""
    require_system_packages(nodejs=NODE is not None)
    source = f"const figure = await import({json.dumps((ROOT / 'static/figure.js').as_uri())});\n"
    source += "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
    source += f"const input = JSON.parse(Buffer.concat(chunks).toString());\n{script}"
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", source],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# No exact ties (2.5, 0.125): d3 rounds them away from zero, as Plotly shows them; Python rounds them to even.
VALUES = [0.0, 1.0, -2.6, 0.123456, 123456.789, 1e-5, 3.14159e7, -0.000987654, 42.0]
SPECS = [".3f", ".2f", ".4f", ".0f", ",.0f", ",.2f", ".1%", ".2e", ".3g", ".4g", ".2g"]


def test_hovertemplate_numbers_read_as_python_formats_them():
    cases = [[value, spec] for value in VALUES for spec in SPECS]
    shown = run_node("console.log(JSON.stringify(input.map(([v, s]) => figure.formatSpec(v, s))));", cases)
    for (value, spec), text in zip(cases, shown, strict=True):
        expected = format(value, spec)
        if spec.endswith(("e", "g")):  # d3 writes 1.2e-5 where Python writes 1.2e-05: the same number
            assert math.isclose(float(text), float(expected), rel_tol=1e-12), (value, spec, text, expected)
        else:
            assert text == expected, (value, spec, text, expected)


def test_every_form_of_array_a_figure_or_a_view_hands_over_decodes_to_its_values_and_shape():
    """Plotly's base64 typed array (as plotly.io writes it), a list of lists (null for a gap), and a view's computed
    {values, shape}, a typed array or a list: each gives the numbers in row-major order and the shape."""
    import base64

    import numpy as np

    grid = np.arange(6, dtype=np.float32).reshape(2, 3) / 3
    plotly = {"dtype": "f4", "bdata": base64.b64encode(grid.tobytes()).decode(), "shape": "2, 3"}
    script = """
const out = [input.plotly, input.rows, { values: Float32Array.from(input.flat), shape: [2, 3] },
  { values: input.flat, shape: [2, 3] }].map((array) => {
  const { values, shape } = figure.decodeArray(array);
  return { values: Array.from(values, (v) => (Number.isNaN(v) ? "NaN" : v)), shape: shape.map(Number) };
});
console.log(JSON.stringify(out));
"""
    rows = [[0.0, None, 2.0], [3.0, 4.0, 5.0]]
    got = run_node(script, {"plotly": plotly, "rows": rows, "flat": grid.ravel().tolist()})
    assert got[0] == {"values": grid.ravel().tolist(), "shape": [2, 3]}
    assert got[1] == {"values": [0.0, "NaN", 2.0, 3.0, 4.0, 5.0], "shape": [2, 3]}
    for decoded in got[2:]:
        assert decoded["shape"] == [2, 3]
        np.testing.assert_allclose(decoded["values"], grid.ravel(), rtol=1e-7)


def test_a_hovertemplate_is_filled_with_the_points_fields():
    template = "row %{y}<br>column %{x}<br>M_k %{z:.4f} ± %{customdata[1]:.2f}<extra>dropped</extra>"
    point = {"x": "d2 sin, pair 1", "y": 3, "z": -0.70710678, "customdata": [9, 0.126]}
    [text] = run_node(
        "console.log(JSON.stringify([figure.fillTemplate(input.t, input.p)]));", {"t": template, "p": point}
    )
    assert text == f"row 3<br>column d2 sin, pair 1<br>M_k {-0.70710678:.4f} ± {0.126:.2f}"


def every_figure(open_page) -> list[dict]:
    pages = ["pages/home.py", "pages/relative_scores.py", "pages/toy_model.py", "pages/extrapolation.py"]
    found = []
    for page in pages:
        at = open_page(page)
        found += figures(at)
    return found


@pytest.mark.parametrize("width", [374, 1024])
def test_side_by_side_panels_stack_on_a_phone(open_page, width):
    shown = every_figure(open_page)
    for figure in shown:
        figure["layout"].pop("template", None)  # Streamlit's theme: not read by the browser's drawing
    script = "console.log(JSON.stringify(input.figs.map((f) => figure.stacked(f, input.width).layout)));"
    layouts = run_node(script, {"figs": shown, "width": width})
    stacked_any = False
    for before, after in zip(shown, layouts, strict=True):
        old = before["layout"]
        used = {f"xaxis{(trace.get('xaxis') or 'x')[1:]}" for trace in before["data"]}
        side_by_side = len({round(old[key]["domain"][0], 3) for key in used if "domain" in old.get(key, {})}) > 1
        if width >= 480 or not side_by_side:
            assert after == old  # unchanged
            continue
        stacked_any = True
        rows = []
        for key in sorted(used):
            assert after[key]["domain"] == [0, 1]  # the full width
            anchor = after[key].get("anchor", "y")
            rows.append(after[f"yaxis{anchor[1:]}"]["domain"])
        rows.sort(reverse=True)
        assert all(0 <= low < high <= 1 for low, high in rows)
        assert all(below[1] < above[0] for above, below in itertools.pairwise(rows))  # none over another
        assert after["height"] > old["height"]
        titles = [note for note in after.get("annotations", []) if note.get("xref") == "paper" and note.get("x") == 0.5]
        for note in titles:  # a panel title sits on top of one panel
            assert any(abs(note["y"] - high) < 1e-9 for _, high in rows), note["text"]
    assert stacked_any or width >= 480
