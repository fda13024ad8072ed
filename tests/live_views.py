"""What a live chart draws, computed by the browser's own code in Node: a view of ``static/views/`` (with
``static/live.js`` and ``static/twins.js`` beside it) run on the data the server sent, at chosen control values.

Page tests hold these pictures to posenc, so a chart that computes in the browser is checked where it is computed,
not by what the server sent (which is only its words, settings and seeded vectors).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
from system_packages import require_system_packages

from ui.component_data import sent_data

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

SCRIPT = """
const release = "?v=node-test"; // one instance of live.js and twins.js for the view and this script
const live = await import(new URL(`live.js${release}`, STATIC).href);
const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);
const { data, values } = JSON.parse(Buffer.concat(chunks).toString());
const { view } = await import(new URL(`views/${data.view}.js${release}`, STATIC).href);
data.arrays = Object.fromEntries(Object.entries(data.arrays).map(([key, array]) => [key, live.decode(array)]));
const number = (v) => (typeof v === "boolean" ? Number(v) : Number.isFinite(v) ? v : v === undefined ? null
  : String(v)); // JSON has no ±Infinity or NaN
const plain = (x) => (ArrayBuffer.isView(x) || Array.isArray(x) ? Array.from(x, plain) : number(x));
const line = (s) => ({ name: s.name ?? null, x: plain(s.x), y: plain(s.y) });
const panel = (p) => (p.kind === "heatmap"
  ? { kind: "heatmap", rows: plain(p.rows), cols: plain(p.cols), values: plain(p.values), zmax: number(p.zmax) }
  : { kind: "lines", series: p.series.map(line), marks: (p.marks ?? []).map((m) => number(m.x)) });
console.log(JSON.stringify(values.map((at) => {
  const picture = view(data, { ...data.follows, ...data.server, ...at }); // as static/live.js starts a view
  if (!picture) return null;
  const picked = Object.fromEntries(Object.entries(picture.picked).map(([key, v]) => [key, plain(v)]));
  return { picked, panels: picture.panels.map(panel) };
})));
"""


def _numbers(x):
    """JSON back to numpy: lists of numbers (with "Infinity", "-Infinity", "NaN" and null as floats) as arrays."""
    if isinstance(x, dict):
        return {key: _numbers(value) for key, value in x.items()}
    if isinstance(x, list) and all(v is None or isinstance(v, int | float | str) for v in x):
        return np.asarray([np.nan if v is None else float(v) for v in x], dtype=np.float64)
    if isinstance(x, list):
        return [_numbers(v) for v in x]
    return x


def live_json(at, key: str) -> dict:
    """The data (JSON, arrays still encoded) that the live chart ``key`` of an AppTest run was sent."""
    for element in at.get("bidi_component"):
        if element.proto.id.endswith(key) or key in element.proto.id:
            return sent_data(element.proto)
    raise AssertionError(f"no live chart with key {key!r}")


def view_pictures(data: dict, values: list[dict]) -> list[dict | None]:
    """What the browser draws from ``data`` (a live chart's JSON) at each of ``values`` (control name, or a shared
    value the chart follows, -> value; the others where the server drew them): {"picked": name -> array,
    "panels": [{kind, series: [{name, x, y}], marks} or {kind, rows, cols, values, zmax}]}, or None where the view
    keeps its last picture."""
    require_system_packages(nodejs=NODE is not None)
    source = f"const STATIC = {json.dumps((ROOT / 'static').as_uri() + '/')};\n{SCRIPT}"
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", source],
        input=json.dumps({"data": data, "values": values}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [None if picture is None else _numbers(picture) for picture in json.loads(done.stdout)]


def view_picture(data: dict, **values) -> dict:
    """:func:`view_pictures` at one set of control values."""
    (picture,) = view_pictures(data, [values])
    assert picture is not None, f"the view drew nothing at {values}"
    return picture


def live_js(name: str, calls: list[list]) -> list[np.ndarray]:
    """Export ``name`` of static/live.js applied to each argument list of ``calls``, in Node (float64 arrays back)."""
    require_system_packages(nodejs=NODE is not None)
    source = (
        f"const live = await import({json.dumps((ROOT / 'static' / 'live.js').as_uri())});\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const calls = JSON.parse(Buffer.concat(chunks).toString());\n"
        f"console.log(JSON.stringify(calls.map((args) => Array.from(live.{name}(...args)))));"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(calls), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [np.asarray(result, dtype=np.float64) for result in json.loads(done.stdout)]
