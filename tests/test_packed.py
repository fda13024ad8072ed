"""A figure's or live chart's data sent as one binary message (ui/component_data.py ``packed_data``), read back in
Python (``unpacked``, what the tests read) and in Node by ``static/packed.js`` (what the browser reads): the same
JSON, every typed array the same bytes as numpy's, and fewer bytes than the JSON with base64."""

from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from system_packages import require_system_packages

from ui.component_data import packed_data, sent_data, unpacked

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
DTYPES = {"f8": np.float64, "f4": np.float32, "i4": np.int32, "i2": np.int16, "u1": np.uint8, "i1": np.int8}


def typed(array: np.ndarray, dtype: str) -> dict:
    return {"dtype": dtype, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}


def payload(seed: int) -> tuple[dict, dict]:
    """A figure-like payload with arrays of every dtype and size (0, odd, large) at every depth, and the arrays."""
    rng = np.random.default_rng(seed)
    arrays = {}
    traces = []
    for index, (dtype, kind) in enumerate(random.Random(seed).sample(sorted(DTYPES.items()), len(DTYPES))):
        size = int(rng.choice([0, 1, 3, 7, 1000]))
        values = (rng.standard_normal(size) * 100).astype(kind)
        arrays[f"t{index}"] = values
        traces.append({"name": f"曲线 {index} — 곡선", "z": typed(values, dtype) | {"shape": f"{size}"}, "x": [1, 2.5]})
    return {"figure": {"data": traces, "layout": {"title": {"text": "PE·PEᵀ"}}}, "follow": None, "n": 3}, arrays


@pytest.mark.parametrize("seed", range(5))
def test_python_reads_back_exactly_what_was_packed(seed):
    sent, _ = payload(seed)
    assert unpacked(packed_data(sent)) == sent


def test_the_binary_message_is_smaller_than_the_json_with_base64():
    sent, _ = payload(0)
    assert len(packed_data(sent)) < 0.8 * len(json.dumps([sent]))


def test_an_element_reads_as_sent_packed_or_json():
    from streamlit.proto.BidiComponent_pb2 import BidiComponent

    sent, _ = payload(1)
    packed, listed = BidiComponent(), BidiComponent()
    packed.bytes = packed_data(sent)
    listed.json = json.dumps([sent])
    assert sent_data(packed) == sent_data(listed) == sent


@pytest.mark.parametrize("seed", range(3))
def test_the_browser_unpacks_every_array_to_numpys_values(seed):
    """packed.js in Node, on the bytes Python packed (as a Uint8Array inside a larger buffer at an odd offset, as a
    protobuf field arrives): the same JSON, and each array, made a typed array of its dtype, equals numpy's."""
    require_system_packages(nodejs=NODE is not None)
    sent, arrays = payload(seed)
    raw = packed_data(sent)
    source = f"""
const {{ unpack, arrayBytes }} = await import({json.dumps((ROOT / "static/packed.js").as_uri())});
const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);
const bytes = Buffer.concat(chunks);
const framed = new Uint8Array(bytes.length + 3); framed.set(bytes, 3);
const data = unpack(framed.subarray(3));
const TYPES = {{ f8: Float64Array, f4: Float32Array, i4: Int32Array, i2: Int16Array, u1: Uint8Array, i1: Int8Array }};
const out = data.figure.data.map((trace) => ({{ name: trace.name, shape: trace.z.shape, x: trace.x,
  values: Array.from(new TYPES[trace.z.dtype](arrayBytes(trace.z))) }}));
console.log(JSON.stringify({{ traces: out, title: data.figure.layout.title.text, n: data.n, follow: data.follow }}));
"""
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=raw, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    read = json.loads(done.stdout)
    assert read["title"] == "PE·PEᵀ" and read["n"] == 3 and read["follow"] is None
    for index, trace in enumerate(read["traces"]):
        expected = arrays[f"t{index}"]
        assert trace["name"] == sent["figure"]["data"][index]["name"] and trace["x"] == [1, 2.5]
        assert trace["shape"] == f"{expected.size}"
        assert np.array_equal(np.asarray(trace["values"], dtype=expected.dtype), expected)
