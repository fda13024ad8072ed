"""static/draw.js's heatmap colours, run in Node: every cell takes the colour Plotly's linear interpolation along the
colour scale gives its value, computed here in Python; values outside zmin … zmax take the end colours, and a missing
cell (NaN, ±inf, or past the end of the values) is transparent."""

from __future__ import annotations

import itertools
import json
import math
import random
import shutil
import subprocess
from pathlib import Path

from system_packages import require_system_packages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

SCALES = [
    [[0, "#440154"], [0.5, "#21918c"], [1, "#fde725"]],  # viridis' three stops, as the lab's default
    [
        [0, "rgb(5,48,97)"],
        [0.25, "rgb(67,147,195)"],
        [0.5, "rgb(247,247,247)"],
        [0.8, "rgb(214,96,77)"],
        [1, "rgb(103,0,31)"],
    ],  # uneven stops, rgb() colours
]


def hex_or_rgb(color: str) -> tuple[int, int, int]:
    if color.startswith("#"):
        return tuple(int(color[k : k + 2], 16) for k in (1, 3, 5))
    return tuple(int(part) for part in color[color.index("(") + 1 : -1].split(","))


def expected_rgba(value: float | None, zmin: float, zmax: float, scale) -> tuple[int, int, int, int]:
    """The colour of one cell: its level t = round(255·(v − zmin)/(zmax − zmin)) in 0 … 255, then the scale's colour
    at t/255 by linear interpolation between the two stops around it, each channel rounded to an integer."""
    if value is None or not math.isfinite(value):
        return (0, 0, 0, 0)
    level = min(255, max(0, round((value - zmin) / (zmax - zmin) * 255)))
    x = level / 255
    for (a, color_a), (b, color_b) in itertools.pairwise(scale):
        if x <= b:
            f = (x - a) / (b - a)
            channels = [ca + f * (cb - ca) for ca, cb in zip(hex_or_rgb(color_a), hex_or_rgb(color_b), strict=True)]
            return (*(round(c) for c in channels), 255)
    raise AssertionError("unreachable")


def drawn_rgba(values: list, zmin: float, zmax: float, scale, cells: int) -> list[list[int]]:
    require_system_packages(nodejs=NODE is not None)
    source = (
        f"const draw = await import({json.dumps((ROOT / 'static/draw.js').as_uri())});\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const { values, zmin, zmax, scale, cells } = JSON.parse(Buffer.concat(chunks).toString());\n"
        "const numbers = values.map((v) => v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v ?? NaN);\n"
        "const pixels = draw.cellPixels(Float64Array.from(numbers), zmin, zmax, scale, new Uint32Array(cells));\n"
        "const bytes = new Uint8Array(pixels.buffer);\n"
        "const rgba = Array.from({ length: cells }, (_, i) => Array.from(bytes.subarray(4 * i, 4 * i + 4)));\n"
        "console.log(JSON.stringify(rgba));\n"
    )
    payload = {"values": values, "zmin": zmin, "zmax": zmax, "scale": scale, "cells": cells}
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_cell_takes_the_colour_of_its_value_on_the_scale():
    rng = random.Random(35)
    for scale in SCALES:
        zmin, zmax = -3.0, 5.0
        values = [rng.uniform(-4.0, 6.0) for _ in range(400)] + [zmin, zmax, 1.0, -100.0, 100.0]
        drawn = drawn_rgba(values, zmin, zmax, scale, len(values))
        for value, rgba in zip(values, drawn, strict=True):
            assert tuple(rgba) == expected_rgba(value, zmin, zmax, scale), (value, rgba)


def test_a_missing_cell_is_transparent_and_the_rest_keep_their_colours():
    scale = SCALES[0]
    values = [0.0, None, "inf", "-inf", 1.0]
    drawn = drawn_rgba(values, 0.0, 1.0, scale, len(values) + 2)  # two cells past the end of the values
    assert drawn[1:4] == [[0, 0, 0, 0]] * 3
    assert drawn[5:] == [[0, 0, 0, 0]] * 2
    assert tuple(drawn[0]) == expected_rgba(0.0, 0.0, 1.0, scale) == (0x44, 0x01, 0x54, 255)
    assert tuple(drawn[4]) == expected_rgba(1.0, 0.0, 1.0, scale) == (0xFD, 0xE7, 0x25, 255)
