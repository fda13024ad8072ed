"""Live charts on the server side: the settled values a browser sends are validated like a link's, and what a live
chart is sent stays small enough to re-send on every release."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ui.limits import LIMITS


def _store_settled(raw):
    import streamlit as st

    from ui.shared import init_shared_state, set_shared_values

    init_shared_state()
    set_shared_values(raw)
    st.write({name: st.session_state[f"shared_{name}"] for name in ("base", "dim", "length")})


@pytest.mark.parametrize(
    "raw, expected",
    [
        ({"base": 500000.0, "dim": 48, "length": 300}, {"base": 500000.0, "dim": 48, "length": 300}),
        ({"base": 12345.0}, {"base": 15000.0, "dim": LIMITS.dim_default, "length": LIMITS.length_default}),
        ({"dim": 7, "length": 10**9}, {"base": LIMITS.base_default, "dim": 8, "length": 4096}),  # as a link: snapped
        ({"dim": "<script>", "base": -1}, {"base": LIMITS.base_default, "dim": LIMITS.dim_default, "length": 64}),
    ],
)
def test_settled_values_from_the_browser_are_validated_like_a_link(raw, expected):
    at = AppTest.from_function(_store_settled, args=(raw,)).run()
    assert not at.exception
    assert json.loads(at.json[0].value) == expected


def test_the_live_table_data_per_release_at_default_sizes_is_under_50_kB():
    from charts.sinusoidal import live_table

    data = live_table(LIMITS.length_default, LIMITS.dim_default, LIMITS.base_default, "interleaved", "en")
    assert len(json.dumps(data)) <= 50_000
    # every even dim, as the sidebar's: the chart holds any dim a commit brings
    assert data["controls"]["dim"] == {"min": 2, "max": LIMITS.dim_max, "step": 2}


@pytest.mark.parametrize("low, high, count", [(0, 5, 10), (0, 9, 10), (-4095, 0, 17), (3, 8191, 128), (0, 1, 2)])
def test_a_curve_is_drawn_at_every_whole_number_or_at_count_of_them_spread_evenly(low, high, count):
    from ui.live import spread_evenly

    drawn = spread_evenly(low, high, count)
    assert drawn[0] == low and drawn[-1] == high and len(drawn) <= count
    assert (np.diff(drawn) > 0).all()
    if high - low + 1 <= count:
        assert drawn.tolist() == list(range(low, high + 1))
    else:  # evenly: gaps differ by at most one
        gaps = np.diff(drawn)
        assert gaps.max() - gaps.min() <= 1 and len(drawn) == count


def test_the_browser_spreads_a_curves_points_as_the_server_does():
    """static/live.js spreadEvenly (a view following the shared length draws its curves there) picks the points
    ui.live.spread_evenly picks, ties rounded to even included, at every length of the page's charts."""
    from live_views import live_js

    from ui.live import spread_evenly

    cases = [[127, n - 1, 25] for n in range(129, 4097, 7)] + [[1 - n, 0, 17] for n in range(1, 4097, 5)]
    cases += [[0, n - 1, 64] for n in range(2, 4097, 11)] + [[low, low + 12, 25] for low in (-5, 0, 3)]
    for (low, high, count), got in zip(cases, live_js("spreadEvenly", cases), strict=True):
        np.testing.assert_array_equal(got, spread_evenly(low, high, count), err_msg=str((low, high, count)))
