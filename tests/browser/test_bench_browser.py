"""The browser benchmark (`python -m bench.browser`) runs and measures. Nothing here asserts on speed."""

from __future__ import annotations

import math

import pytest

from bench import browser as bench_browser
from bench.page_cases import CASES as PAGE_CASES


def test_every_benchmarked_slider_is_one_the_rerun_benchmark_moves():
    moved = {move.key for case in PAGE_CASES for move in case.moves}
    assert {case.slider for case in bench_browser.CASES} <= moved


def test_slider_targets_are_distinct_values_on_the_step_grid():
    values = bench_browser.targets(160, 352, 16, 9)
    assert len(values) == len(set(values)) == 9
    assert all(160 <= v <= 352 and (v - 160) % 16 == 0 for v in values)


def test_without_chromium_the_benchmark_prints_a_skipped_row(monkeypatch):
    monkeypatch.setattr(bench_browser, "CHROMIUM", "/nonexistent/chromium")
    [row] = bench_browser.browser_rows(moves=1)
    assert math.isnan(row.value) and row.note.startswith("skipped:") and row.verdict == "info"


def test_the_smallest_browser_benchmark_gives_a_finite_positive_figure_per_row(browser):
    """A server's start, its first page, one warm-up and one timed move on the sinusoidal page, and its live drags
    (about 40 s)."""
    rows = bench_browser.browser_rows(moves=1, only="sinusoidal", browser=browser)
    assert [row.what for row in rows[:3]] == [
        bench_browser.START_WHAT,
        bench_browser.FIRST_PAGE_WHAT,
        f"{bench_browser.SLIDER_WHAT}, sinusoidal",
    ], rows
    for row in rows[:3]:
        assert math.isfinite(row.value) and row.value > 0, row
    assert [row.limit is not None for row in rows[:3]] == [False, True, True]  # the start is information
    live = {row.what: row for row in rows[3:]}
    for case in (case for case in bench_browser.LIVE_CASES if case.path == "sinusoidal"):
        what = f"browser: live {case.path} {case.chart} {case.control}"
        assert live[f"{what}, server messages per drag step"].value == 0, live  # the browser drew every step alone
        assert live[f"{what}, ms per update while dragging"].value > 0
        assert live[f"{what}, bytes per release"].value > 0  # the release did reach the server, once
    assert live["browser: live.js, downloaded once"].value > 1  # kB


def test_the_first_visit_benchmark_measures_a_compressed_first_visit_and_a_cached_second(browser):
    """Two replicas behind the shipped nginx, the home page once with an empty cache, once with it kept, once with
    no compression asked for (about 60 s)."""
    from bench.first_visit import first_visit_rows

    rows = {row.what: row for row in first_visit_rows(browser, pages=("",), class_size=3, throttled=False)}
    first = rows["first visit through the proxy, home"]
    second = rows["second visit, home"]
    plain = rows["first visit, no compression asked (before), home"]
    assert all(math.isfinite(row.value) and row.value > 0 for row in rows.values()), rows
    assert second.value / 1e3 < first.value / 10  # kB against MB: the cache kept Streamlit's hashed assets
    assert plain.value > 2 * first.value  # the proxy compressed what it sent
    assert rows["a class arrives: 3 first visits, home"].value * 1e3 == pytest.approx(3 * first.value, rel=0.01)


def test_the_phone_benchmark_drags_every_sidebar_control_with_nothing_sent(browser, server_url):
    """`python -m bench.phone` on one page: a row per sidebar control (its work per drag frame under a 4× CPU
    throttle, a finite positive figure) and 0 websocket frames while the thumb is held (nothing is timed here)."""
    from bench.phone import phone_rows

    rows = phone_rows(("decay",), steps=4, browser=browser, url=server_url)
    work = [row for row in rows if row.what.endswith("work per drag frame (median)")]
    held = [row for row in rows if row.what.endswith("websocket frames while held")]
    assert [row.what.split(", ")[1] for row in work] == ["sidebar base", "sidebar dim"], rows
    assert all(math.isfinite(row.value) and row.value > 0 for row in work), rows
    assert [row.value for row in held] == [0, 0], rows


def test_the_renderer_comparison_draws_the_same_dims_in_both(browser):
    """`python -m bench.renderers`, a short drag at full speed: both renderers drew PE·PEᵀ (a finite positive figure
    each), the lab's chart a picture per step, Plot its raster (nothing is timed here)."""
    from bench.renderers import renderer_rows

    rows = renderer_rows(browser=browser, steps=5, throttles=(1,))
    frames = [row for row in rows if "drag frame" in row.what]
    assert [("live.js" in row.what, "Plot" in row.what) for row in frames] == [(True, False), (False, True)], rows
    assert all(math.isfinite(row.value) and row.value > 0 for row in frames), rows
    assert "median of 4 steps" in frames[0].note and int(frames[0].note.split("; ")[-1].split()[0]) >= 5, rows
    assert "raster image" in frames[1].note and not frames[1].note.endswith("; 0 raster image in its SVG"), rows
