"""Figures that follow the sidebar's thumbs in the browser (``ui.figure.figure_chart(..., follow=...)``): the view of
``static/views/`` run in Node on what the server sent with one figure, at other shared values, is the figure the
server builds at those values (trace arrays to float32 precision, names, axis ranges, lines and their labels), so
the picture does not jump when the server's figure replaces the browser's after the commit.

The arrays are computed by twins of posenc (static/twins.js, tests/test_twins.py); here the whole figure is held to
the server's own builder (charts/sinusoidal.py and charts/decay.py over posenc, figures/).
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import decode, element_data
from system_packages import require_system_packages

from charts import decay, relative
from charts import rope as rope_charts
from charts import sinusoidal as pictures
from posenc.absolute import SINUSOID_LAYOUTS
from ui.figure import figure_json as sent_json
from ui.limits import LIMITS

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

SCRIPT = """
const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString());
const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x) : Array.isArray(x) ? x.map(plain)
  : x !== null && typeof x === "object" ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)])) : x);
const out = [];
for (const { follow, values, figure } of cases) {
  const { view } = await import(new URL(`views/${follow.view}.js?v=node-test`, STATIC).href);
  out.push(plain(view(follow.data, { ...follow.follows, ...values }, figure)));
}
console.log(JSON.stringify(out));
"""


def figure_json(fig) -> dict:
    """The figure as sent, a copy: the tests take arrays out of it, and a built figure's own dict is shared by every
    session (charts cache it, ui.once.computed_once), never to be changed."""
    return copy.deepcopy(sent_json(fig))


def followed(cases: list[dict]) -> list[dict]:
    """Each case's figure as the browser's view redraws it at ``values`` (cases: follow, values, figure)."""
    require_system_packages(nodejs=NODE is not None)
    source = f"const STATIC = {json.dumps((ROOT / 'static').as_uri() + '/')};\n{SCRIPT}"
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def shared_values(rng: random.Random) -> dict:
    """Length, dim and base where a student can drag them: any length and even dim, a base of the sidebar's grid."""
    length = rng.randint(LIMITS.length_min, LIMITS.length_max)
    dim = rng.randrange(LIMITS.dim_min, LIMITS.dim_max + 1, 2)
    return {"length": length, "dim": dim, "base": rng.choice(LIMITS.base_options)}


def assert_same_traces(browser: dict, server: dict) -> None:
    assert len(browser["data"]) == len(server["data"])
    for mine, theirs in zip(browser["data"], server["data"], strict=True):
        assert {k: v for k, v in mine.items() if k != "y"} == {k: v for k, v in theirs.items() if k != "y"}
        np.testing.assert_allclose(np.asarray(mine["y"], dtype=np.float64), decode(theirs["y"]), rtol=1e-6, atol=2e-6)


@pytest.mark.parametrize("layout", SINUSOID_LAYOUTS)
def test_the_waves_follow_the_store_as_the_server_draws_them(layout):
    rng = random.Random(len(layout))
    drawn = {"length": 64, "dim": 128, "base": 10000.0}  # the page's defaults, where the server drew
    columns = (0, 1, 32, 64, 127)
    figure = figure_json(pictures.waves_figure(*drawn.values(), layout, columns, "en"))
    follow = pictures.waves_follow(*drawn.values(), layout, columns, "en")
    moves = [shared_values(rng) for _ in range(6)] + [{"dim": 64}, {"dim": 2, "length": 4096}]  # columns left out
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        kept = tuple(column for column in columns if column < at["dim"])
        server = figure_json(pictures.waves_figure(at["length"], at["dim"], at["base"], layout, kept, "en"))
        assert_same_traces(browser, server)
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_wavelengths_follow_the_store_as_the_server_draws_them(lang):
    rng = random.Random(7)
    drawn = {"length": 64, "dim": 128, "base": 10000.0}
    figure = figure_json(pictures.wavelength_figure(*drawn.values(), lang))
    follow = pictures.wavelength_follow(*drawn.values(), lang)
    moves = [shared_values(rng) for _ in range(8)] + [{"length": 2}, {"length": 4096, "dim": 2}]
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(pictures.wavelength_figure(at["length"], at["dim"], at["base"], lang))
        assert_same_traces(browser, server)
        mine, theirs = browser["layout"], server["layout"]
        np.testing.assert_allclose(mine["yaxis"].pop("range"), theirs["yaxis"].pop("range"), rtol=1e-9)
        np.testing.assert_allclose(mine["annotations"][0].pop("y"), theirs["annotations"][0].pop("y"), rtol=1e-12)
        assert mine == theirs  # the length's line and its label, the titles and everything else
        assert str(at["length"]) in mine["annotations"][0]["text"]


@pytest.mark.parametrize(("max_distance", "log_x"), [(300, False), (4096, True), (50_000, False)])
def test_the_decay_pages_bases_follow_the_store_as_the_server_draws_them(max_distance, log_x):
    rng = random.Random(max_distance)
    drawn = {"dim": 128, "base": 10000.0}
    figure = figure_json(decay.base_chart("en", *drawn.values(), max_distance, log_x))
    follow = decay.base_follow("en", *drawn.values(), max_distance, log_x)
    moves = [{"dim": shared_values(rng)["dim"], "base": shared_values(rng)["base"]} for _ in range(4)]
    moves += [{"base": 500000.0}, {"base": 10000.0, "dim": 2}]  # a compared base: two curves, not three
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(decay.base_chart("en", at["dim"], at["base"], max_distance, log_x))
        for mine, theirs in zip(browser["data"], server["data"], strict=True):
            np.testing.assert_array_equal(np.asarray(mine.pop("x")), decode(theirs.pop("x")))
        assert_same_traces(browser, server)
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize(("max_distance", "similarity", "log_x"), [(256, 0.0, False), (4096, 0.7, True),
                                                                  (50, 1.0, False)])  # fmt: skip
def test_the_decay_pages_scores_follow_the_store_as_the_server_draws_them(max_distance, similarity, log_x):
    rng = random.Random(max_distance)
    drawn = {"dim": 128, "base": 10000.0}
    settings = (max_distance, similarity, log_x)
    figure = figure_json(decay.score_chart("zh", *drawn.values(), *settings))
    follow = decay.score_follow(*drawn.values(), *settings)
    moves = [{"dim": shared_values(rng)["dim"], "base": shared_values(rng)["base"]} for _ in range(5)] + [{"dim": 2}]
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(decay.score_chart("zh", at["dim"], at["base"], *settings))
        scale = at["dim"]  # float32 of scores up to D
        for mine, theirs in zip(browser["data"], server["data"], strict=True):
            np.testing.assert_array_equal(np.asarray(mine.pop("x")), decode(theirs.pop("x")))
            for field in ("y", "customdata"):
                if field in theirs:
                    np.testing.assert_allclose(np.asarray(mine.pop(field), dtype=np.float64), decode(theirs.pop(field)),
                                               rtol=2e-6, atol=2e-6 * scale)  # fmt: skip
            assert mine == theirs
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize("train", [512, 4096, 131072])
def test_the_decay_pages_wavelengths_follow_the_store_as_the_server_draws_them(train):
    rng = random.Random(train)
    drawn = {"dim": 128, "base": 10000.0}
    figure = figure_json(decay.wavelength_chart("ko", *drawn.values(), train))
    follow = decay.wavelength_follow("ko", *drawn.values(), train)
    moves = [{"dim": shared_values(rng)["dim"], "base": shared_values(rng)["base"]} for _ in range(6)] + [{"dim": 2}]
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(decay.wavelength_chart("ko", at["dim"], at["base"], train))
        for mine, theirs in zip(browser["data"], server["data"], strict=True):  # which pairs turn: exactly the same
            np.testing.assert_array_equal(np.asarray(mine.pop("x"), dtype=np.int32), decode(theirs.pop("x")))
        assert_same_traces(browser, server)
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize("train", [512, 4096, 131072])
def test_the_yarn_ramp_follows_the_store_as_the_server_draws_it(train):
    rng = random.Random(train)
    drawn = {"dim": 128, "base": 10000.0}
    figure = figure_json(decay.yarn_ramp_chart("zh", *drawn.values(), train))
    follow = decay.ramp_follow(*drawn.values(), train)
    moves = [{"dim": shared_values(rng)["dim"], "base": shared_values(rng)["base"]} for _ in range(6)]
    moves += [{"dim": 2}, {"dim": 4, "base": 500.0}, {"dim": 6}]  # one and two pairs: the pairs sent as x
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(decay.yarn_ramp_chart("zh", at["dim"], at["base"], train))
        for mine, theirs in zip(browser["data"], server["data"], strict=True):
            if "x" in theirs:
                np.testing.assert_array_equal(np.asarray(mine.pop("x"), dtype=np.float32), decode(theirs.pop("x")))
        assert_same_traces(browser, server)
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize("row", [0, 31, 700])
def test_a_row_of_pe_dot_pe_follows_the_store_as_the_server_draws_it(row):
    rng = random.Random(row)
    drawn = {"length": max(64, row + 1), "dim": 128, "base": 10000.0}
    figure = figure_json(pictures.similarity_row_figure(row, *drawn.values(), "ko")[0])
    follow = pictures.similarity_row_follow(row, *drawn.values(), "ko")
    moves = [shared_values(rng) for _ in range(6)] + [{"dim": 2, "length": 2}]  # rows past the length too
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        shown = row if row < at["length"] else at["length"] // 2  # Streamlit's slider falls back to its default
        server = figure_json(pictures.similarity_row_figure(shown, at["length"], at["dim"], at["base"], "ko")[0])
        for mine, theirs in zip(browser["data"], server["data"], strict=True):  # the dots, then the closed form
            scale = max(1.0, at["dim"] / 2)  # float32 of values up to D/2 = PE(p)·PE(p)
            np.testing.assert_allclose(np.asarray(mine.pop("y"), dtype=np.float64), decode(theirs.pop("y")),
                                       rtol=2e-6, atol=2e-7 * scale)  # fmt: skip
            assert mine == theirs
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize(("lang", "drawn"), [("en", {"length": 64, "heads": 8}), ("zh", {"length": 300, "heads": 1})])
def test_the_alibi_matrices_follow_the_store_as_the_server_draws_them(lang, drawn):
    rng = random.Random(drawn["heads"])
    figure = figure_json(relative.alibi_matrices(*drawn.values(), lang))
    follow = relative.alibi_follow(*drawn.values(), lang)
    moves = [{"length": rng.randint(LIMITS.length_min, LIMITS.length_max), "heads": rng.randint(1, 16)}
             for _ in range(6)]  # fmt: skip
    moves += [{"heads": 1}, {"heads": 3, "length": 2}, {"heads": 12, "length": 4096}]  # one panel; 2 × 2; a window
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(relative.alibi_matrices(at["length"], at["heads"], lang))
        assert len(browser["data"]) == len(server["data"]) == (1 if at["heads"] == 1 else 2)
        for mine, theirs in zip(browser["data"], server["data"], strict=True):
            z = mine.pop("z")  # the view's typed array and its shape; NaN (the masked future) arrives as null
            mine_z = np.asarray(z["values"], dtype=np.float64).reshape(z["shape"])
            np.testing.assert_allclose(mine_z, decode(theirs.pop("z")).astype(np.float64), rtol=1e-6, atol=0)
            for bound in ("zmin", "zmax"):
                np.testing.assert_allclose(mine.pop(bound), theirs.pop(bound), rtol=1e-6)
            assert mine == theirs
        mine, theirs = browser["layout"], server["layout"]
        for axis in ("xaxis", "xaxis2"):
            if axis in theirs:
                np.testing.assert_allclose(mine[axis].pop("domain"), theirs[axis].pop("domain"), rtol=1e-12)
        for mine_note, their_note in zip(mine["annotations"], theirs["annotations"], strict=True):
            np.testing.assert_allclose(mine_note.pop("x"), their_note.pop("x"), rtol=1e-12)
        assert mine == theirs  # the panels' heads, the window note, the axes and everything else


@pytest.mark.parametrize(("trained", "offset"), [("half", 3), ("interleaved", 0), ("half", 47)])
def test_the_rope_layout_attention_follows_the_store_as_the_server_draws_it(trained, offset):
    rng = random.Random(offset)
    drawn = {"dim": 128, "base": 10000.0}
    figure = figure_json(rope_charts.layout_attention_chart("ko", *drawn.values(), offset, trained))
    follow = rope_charts.layout_attention_follow(*drawn.values(), offset, trained)
    moves = [{k: v for k, v in shared_values(rng).items() if k in drawn} for _ in range(6)]
    moves += [{"dim": 2, "base": 10.0}, {"dim": 1024, "base": 1_000_000.0}, {}]  # one pair; the most; where drawn
    got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
    for values, browser in zip(moves, got, strict=True):
        at = drawn | values
        server = figure_json(rope_charts.layout_attention_chart("ko", at["dim"], at["base"], offset, trained))
        for mine, theirs in zip(browser["data"], server["data"], strict=True):  # run right, then run wrong
            z = mine.pop("z")
            mine_z = np.asarray(z["values"], dtype=np.float64).reshape(z["shape"])
            np.testing.assert_allclose(mine_z, decode(theirs.pop("z")).astype(np.float64), rtol=1e-5, atol=1e-7)
            assert mine == theirs
        assert browser["layout"] == server["layout"]


@pytest.mark.parametrize("fraction", rope_charts.PARTIAL_FRACTIONS)
def test_rope_practices_sign_and_partial_charts_follow_the_store_as_the_server_draws_them(fraction):
    """The page's q and k reach the browser at the largest dim; the views draw from their first D features."""
    rng = random.Random(int(fraction * 100))
    drawn = {"dim": 128, "base": 10000.0}
    moves = [{k: v for k, v in shared_values(rng).items() if k in drawn} for _ in range(5)]
    moves += [{"dim": 2, "base": 10.0}, {"dim": 1024, "base": 1_000_000.0}, {"dim": 6}, {}]  # a 0.25 of 6: 2
    built = {
        "signs": (lambda at: rope_charts.sign_chart("zh", at["dim"], at["base"]), rope_charts.sign_follow),
        "partial": (lambda at: rope_charts.partial_chart("zh", at["dim"], at["base"], fraction),
                    lambda dim, base: rope_charts.partial_follow(dim, base, fraction)),
    }  # fmt: skip
    for chart, follow_of in built.values():
        figure, follow = figure_json(chart(drawn)), follow_of(*drawn.values())
        got = followed([{"follow": follow, "values": values, "figure": figure} for values in moves])
        for values, browser in zip(moves, got, strict=True):
            server = figure_json(chart(drawn | values))
            for mine, theirs in zip(browser["data"], server["data"], strict=True):
                expected = decode(theirs.pop("y")).astype(np.float64)
                scale = float(np.abs(expected).max()) + 1.0
                np.testing.assert_allclose(np.asarray(mine.pop("y"), dtype=np.float64), expected, rtol=2e-6,
                                           atol=1e-6 * scale)  # fmt: skip
                assert mine == theirs
            assert browser["layout"] == server["layout"]


def test_the_page_sends_what_its_figures_follow(open_page):
    at = open_page("pages/sinusoidal.py", query={"dim": "64", "length": "300", "base": "500"})
    sent = {element.proto.id.rsplit("-", 1)[-1]: element_data(element) for element in at.get("bidi_component")}
    for key, view in (("sin_waves_chart", "sinusoid_waves"), ("sin_wavelength_chart", "sinusoid_wavelengths")):
        follow = sent[key]["follow"]
        assert follow["view"] == view and (ROOT / "static" / "views" / f"{view}.js").is_file()
        assert follow["follows"] == {"length": 300, "dim": 64, "base": 500.0}  # where the server drew
    assert sent["sin_waves_chart"]["follow"]["data"]["columns"] == [0, 1, 16, 32]  # the page's defaults at dim 64
    at = open_page("pages/decay.py", query={"dim": "32", "base": "500"})
    sent = {element.proto.id.rsplit("-", 1)[-1]: element_data(element) for element in at.get("bidi_component")}
    for key, view in (("decay_base_chart", "decay_bases"), ("decay_wavelength_chart", "decay_wavelengths")):
        follow = sent[key]["follow"]
        assert follow["view"] == view and (ROOT / "static" / "views" / f"{view}.js").is_file()
        assert follow["follows"] == {"dim": 32, "base": 500.0}
