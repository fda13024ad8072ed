"""The RoPE page's live charts in Chromium: while a slider is dragged, the arrows, angles, scores and curves the page
draws equal posenc at float32 precision, and nothing is sent to the server until the slider is let go.

Every chart computes in the browser with posenc's twins (static/views/rope.js, static/twins.js) from the page's
seeded q and k; the server sends no computed numbers. Here every drawn value is compared with posenc computed in the
test: rope_pair_points for the arrows, rope_pair_angles_at for the angle, rope_scores_at at (m, n), (m + t, n + t) and
(m + t, n) for the scores, charts.rope.rope_layout_mixup for the layout curves, rope_rotation_factors for every clock
hand.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from playwright.sync_api import Page, expect

from bench.live import LIVE_JS as DRAWN_JS
from charts.rope import rope_example_qk, rope_layout_mixup
from figures.rope import HAND_LENGTH
from posenc.rope import rope_inv_freq, rope_pair_angles_at, rope_pair_points, rope_rotation_factors, rope_scores_at
from tests.browser.test_browser import open_app, real_problems
from tests.browser.test_live import drag_step, drawn, live_input, requests_in
from ui.limits import LIMITS

PAIR, SHIFT, CLOCKS, LAYOUT = 0, 1, 2, 3  # the page's live charts, in page order
Q, K = rope_example_qk(128, 0)  # the page's q and k at its defaults (dim 128, seed 0)
BASES = list(LIMITS.base_options)


def scores(m, n, base: float = 10000.0, dim: int | None = None) -> np.ndarray:
    """⟨R_m q, R_n k⟩ from posenc for each (m, n), with the page's q and k (at ``dim``: the page's own, else)."""
    q, k = (Q, K) if dim is None else rope_example_qk(dim, 0)
    return rope_scores_at(q, k, torch.as_tensor(m).reshape(-1), torch.as_tensor(n).reshape(-1), base).numpy()


def same_angle(a: float, b: float) -> bool:
    return abs((a - b + np.pi) % (2 * np.pi) - np.pi) < 1e-6


def watch_sent(page: Page) -> list:
    sent: list = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    return sent


def test_the_live_pair_follows_every_slider_and_is_posencs_rotation(page, server_url):
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    expect(live_input(page, "m", PAIR)).to_be_visible()
    assert int(live_input(page, "base", PAIR).get_attribute("max")) + 1 == len(BASES)
    quiet = len(sent)
    home = BASES.index(10000.0)
    # base first, one slider away from the server's settings (pair 0, m 5, n 2); then pair, m and n, which may move
    # together at the server's base
    steps = [("base", 3), ("base", len(BASES) - 1), ("base", home), ("pair", 40), ("pair", 63), ("m", 300)]
    steps += [("m", 512), ("n", 0), ("n", 511), ("m", 0)]
    pictures = [drag_step(page, name, value, PAIR) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        at = picture["at"]
        pair, m, n, base = int(at["pair"]), int(at["m"]), int(at["n"]), float(at["base"])
        zq = rope_pair_points(Q, torch.tensor([m]), pair, base)[0].item()
        zk = rope_pair_points(K, torch.tensor([n]), pair, base)[0].item()
        q_arrow, k_arrow = picture["panels"][0]["series"][2:4]
        np.testing.assert_allclose([q_arrow["x"], q_arrow["y"]], [[0, zq.real], [0, zq.imag]], atol=1e-6)
        np.testing.assert_allclose([k_arrow["x"], k_arrow["y"]], [[0, zk.real], [0, zk.imag]], atol=1e-6)
        angle = rope_pair_angles_at(Q, K, torch.tensor([m]), torch.tensor([n]), pair, base)[0].item()
        assert same_angle(picture["picked"]["angle"][0], angle)
        expected = scores(m, n, base)[0]
        assert picture["picked"]["score"][0] == pytest.approx(expected, rel=2e-6, abs=1e-5)
        assert f"{picture['picked']['score'][0]:.4f}" in picture["readouts"]
    seen = {tuple(picture["at"].values()) for picture in pictures}
    assert len(seen) == len(pictures)  # every step drew a different picture
    assert real_problems(page) == []


def test_the_live_shift_is_posencs_score_at_the_shifted_positions(page, server_url):
    """Both positions moved by t: the drawn score is rope_scores_at(m + t, n + t), flat in t; only the query moved:
    rope_scores_at(m + t, n). Computed here directly, at every shift drawn: this is what proves the claim."""
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    expect(live_input(page, "shift", SHIFT)).to_be_visible()
    quiet = len(sent)
    steps = [("shift", 0), ("shift", 128), ("shift", 50), ("m", 512), ("m", 37), ("n", 512), ("n", 0), ("m", 400)]
    pictures = [drag_step(page, name, value, SHIFT) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        at = picture["at"]
        m, n, shift = int(at["m"]), int(at["n"]), int(at["shift"])
        both, query_only, marker = picture["panels"][0]["series"]
        t = np.asarray(both["x"], dtype=np.int64)
        np.testing.assert_array_equal(t, np.arange(0, 513, 4))
        np.testing.assert_allclose(both["y"], scores(m + t, n + t), rtol=2e-6, atol=1e-5)
        np.testing.assert_allclose(query_only["y"], scores(m + t, np.full_like(t, n)), rtol=2e-6, atol=1e-5)
        assert marker["x"] == [shift]
        picked = picture["picked"]
        assert picked["before"][0] == pytest.approx(scores(m, n)[0], rel=2e-6, abs=1e-5)
        assert picked["after"][0] == pytest.approx(scores(m + shift, n + shift)[0], rel=2e-6, abs=1e-5)
        assert picked["query_only"][0] == pytest.approx(scores(m + shift, n)[0], rel=2e-6, abs=1e-5)
        for name, (p, r) in (("angle_before", (m, n)), ("angle_after", (m + shift, n + shift))):
            angle = rope_pair_angles_at(Q, K, torch.tensor([p]), torch.tensor([r]), 0)[0].item()
            assert same_angle(picked[name][0], angle)
    assert len({tuple(picture["at"].values()) for picture in pictures}) == len(pictures)


def test_the_live_layout_curves_are_posencs_mixup_at_every_offset(page, server_url):
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    expect(live_input(page, "offset", LAYOUT)).to_be_visible()
    quiet = len(sent)
    pictures = [drag_step(page, "offset", value, LAYOUT) for value in (0, 16, 7, 12)]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        offset = int(picture["at"]["offset"])
        mix = rope_layout_mixup(128, offset, 48, 10000.0, "half")
        right, converted, wrong = picture["panels"][0]["series"]
        np.testing.assert_array_equal(right["x"], np.arange(48))
        for line, curve in ((right, mix.right_curve), (converted, mix.converted_curve), (wrong, mix.wrong_curve)):
            np.testing.assert_allclose(line["y"], curve.numpy(), rtol=2e-6, atol=1e-5)
        assert picture["picked"]["offset"] == [offset]
        assert int(np.argmax(right["y"])) == offset


def test_a_key_press_on_the_pair_slider_reaches_the_page(page, server_url):
    """ArrowRight on the pair slider: a step and its release; the caption and the shift chart's pair follow."""
    open_app(page, server_url, "rope")
    pair = live_input(page, "pair", PAIR)
    pair.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_text(re.compile(r"What to notice: pair 1 turns"))).to_be_visible()
    expect(page.locator(".live").nth(SHIFT).locator(".readouts")).to_contain_text("pair 1: angle at (m, n)")
    assert drawn(page, PAIR)["at"]["pair"] == 1
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_released_query_position_in_the_shift_chart_moves_the_pair_chart_too(page, server_url):
    open_app(page, server_url, "rope")
    m = live_input(page, "m", SHIFT)
    m.focus()
    page.keyboard.press("ArrowRight")  # m 5 -> 6
    page.wait_for_function(
        "input => input.closest('.live').querySelector('canvas').posencLive.drawn.at.m === 6",
        arg=live_input(page, "m", PAIR).element_handle(),
    )
    expect(live_input(page, "m", PAIR)).to_have_value("6")
    assert page.locator('[data-testid="stException"]').count() == 0


def hands(picture: dict) -> np.ndarray:
    """Each drawn clock hand as a complex number, tip minus centre (the hands series: centre, tip, gap per hand)."""
    x, y = picture["panels"][0]["series"][1]["x"], picture["panels"][0]["series"][1]["y"]
    return (np.array(x[1::3]) - np.array(x[0::3])) + 1j * (np.array(y[1::3]) - np.array(y[0::3]))


def test_the_live_clocks_follow_the_position_and_are_posencs_rotation(page, server_url):
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    expect(live_input(page, "position", CLOCKS)).to_be_visible()
    quiet = len(sent)
    thetas = rope_inv_freq(128, 10000.0, torch.float64)  # d = 128: all 64 pairs have a dial
    pictures = [drag_step(page, "position", index, CLOCKS) for index in (1, 57, 250, 460, 3)]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    # the grid: 0 … 99 by 1 (indices 0 … 99), 100 … 990 by 10, 1 000 … 9 900 by 100 (from index 190), …, 10⁶ (index 460)
    assert [picture["at"]["position"] for picture in pictures] == [1, 57, 1000 + 60 * 100, 1_000_000, 3]
    for picture in pictures:
        position = torch.tensor([picture["at"]["position"]])
        np.testing.assert_allclose(hands(picture), HAND_LENGTH * rope_rotation_factors(position, thetas)[0].numpy(),
                                   rtol=0, atol=1e-9)  # fmt: skip
    title = page.locator(".live").nth(CLOCKS).locator(".title").first.text_content()
    assert title.endswith("p = 3")  # the title follows the slider
    assert real_problems(page) == []


def test_play_turns_the_hands_in_the_browser_and_pause_sends_once(page, server_url):
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    button = page.locator(".live").nth(CLOCKS).locator("button.play")
    expect(button).to_have_text("▶ Play")
    quiet = len(sent)
    button.click()
    expect(button).to_have_text("❚❚ Pause")
    page.wait_for_timeout(1000)  # about eight steps of the grid
    playing = drawn(page, CLOCKS)
    assert playing["at"]["position"] >= 3
    assert requests_in(sent[quiet:]) == 0, "playing sent a message to the server"
    button.click()  # pause: the position it stopped at goes to the server once, as a release
    expect(button).to_have_text("▶ Play")
    for _ in range(50):  # the release's one message, then nothing more
        if requests_in(sent[quiet:]):
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(500)
    assert requests_in(sent[quiet:]) == 1
    stopped = drawn(page, CLOCKS)["at"]["position"]
    thetas = rope_inv_freq(128, 10000.0, torch.float64)
    expected = HAND_LENGTH * rope_rotation_factors(torch.tensor([stopped]), thetas)[0].numpy()
    np.testing.assert_allclose(hands(drawn(page, CLOCKS)), expected, rtol=0, atol=1e-9)
    assert real_problems(page) == []


def hold_sidebar_at(page: Page, name: str, slider_value: int) -> None:
    """The sidebar's shared slider ``name`` held and moved to ``slider_value`` (an index of the grid for base), as a
    drag does: the tab's store moves, nothing is committed while it is held."""
    page.locator(f"#shared-{name}").evaluate(
        "(input, value) => { input.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));"
        " input.value = value; input.dispatchEvent(new Event('input', {bubbles: true})); }",
        slider_value,
    )


def wait_drawn_at(page: Page, chart: int, **at) -> dict:
    """What live chart ``chart`` painted, once it painted at the values ``at``. The chart is scrolled into view
    first, as a student's eyes would reach it: a chart far off screen redraws for a moved shared value only when it
    comes near the viewport (static/live.js ``scheduleFollowed``)."""
    page.locator(".live").nth(chart).scroll_into_view_if_needed()
    handle = page.locator(".live").nth(chart).locator("input").first.element_handle()
    page.wait_for_function(
        f"([input, at]) => Object.entries(at).every(([k, v]) => ({DRAWN_JS})(input).drawn?.at[k] === v)",
        arg=[handle, at],
    )
    return drawn(page, chart)


def test_the_charts_follow_the_sidebars_dim_and_base_while_its_thumb_moves(page, server_url):
    """The clocks, the layout curves and the shift curves have no dim or base slider: they follow the sidebar's (the
    tab's store) while its thumb is held, computed in the browser (q and k at the dim held: the first features of
    those sent); the pair chart's base slider follows it, and its picture the dim. Nothing is sent while the thumb is
    held."""
    sent = watch_sent(page)
    open_app(page, server_url, "rope")
    expect(live_input(page, "position", CLOCKS)).to_be_visible()
    drag_step(page, "position", 57, CLOCKS)  # p = 57: the hands stand apart
    quiet = len(sent)
    hold_sidebar_at(page, "dim", 16)
    hold_sidebar_at(page, "base", BASES.index(500000.0))
    clocks = wait_drawn_at(page, CLOCKS, dim=16, base=500000.0, position=57)
    thetas = rope_inv_freq(16, 500000.0, torch.float64)
    expected = HAND_LENGTH * rope_rotation_factors(torch.tensor([57]), thetas)[0].numpy()
    np.testing.assert_allclose(hands(clocks), expected, rtol=0, atol=1e-9)  # 8 dials, at the new base
    layout = wait_drawn_at(page, LAYOUT, dim=16, base=500000.0)
    mix = rope_layout_mixup(16, 3, 48, 500000.0, "half")
    for line, curve in zip(layout["panels"][0]["series"], mix[:3], strict=True):
        np.testing.assert_allclose(line["y"], curve.numpy(), rtol=1e-9, atol=1e-9)
    shift = wait_drawn_at(page, SHIFT, base=500000.0, dim=16)
    t = np.arange(0, 513, 4)
    np.testing.assert_allclose(shift["panels"][0]["series"][1]["y"], scores(5 + t, np.full_like(t, 2), 500000.0, 16),
                               rtol=1e-9, atol=1e-9)  # fmt: skip
    pair = wait_drawn_at(page, PAIR, base=500000.0, dim=16)
    assert pair["picked"]["score"][0] == pytest.approx(scores(5, 2, 500000.0, 16)[0], rel=1e-9, abs=1e-9)
    assert requests_in(sent[quiet:]) == 0, "a held sidebar thumb sent a message to the server"
    assert real_problems(page) == []


def test_a_sidebar_commit_leaves_the_pair_chart_to_the_browser(page, server_url):
    """Letting go of the sidebar's base commits it. The pair's section is drawn in parts (ui/sections.py): the server
    computes only what quotes the base there, not the pair chart, which keeps q and k (sent at the largest dim) and
    draws at the new base as posenc computes; the commit is the only request (over HTTP: ui/commit_http.py, nothing
    else reruns), none asking for the rest."""
    sent = watch_sent(page)
    posted = []
    page.on("request", lambda request: posted.append(request.url) if request.url.endswith("/shared/commit") else None)
    open_app(page, server_url, "rope")
    expect(live_input(page, "m", PAIR)).to_be_visible()
    handle = live_input(page, "m", PAIR).element_handle()
    updates = handle.evaluate(f"input => ({DRAWN_JS})(input).updates")
    quiet = len(sent)
    hold_sidebar_at(page, "base", BASES.index(500000.0))
    page.locator("#shared-base").evaluate(
        "input => { input.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));"
        " input.dispatchEvent(new Event('change', {bubbles: true})); }"
    )
    expect(page).to_have_url(re.compile(r"[?&]base=500000"))  # committed: mirrored in the URL
    page.wait_for_timeout(500)  # a request for the arrays, were one sent, would follow at once
    pair = wait_drawn_at(page, PAIR, base=500000.0)
    assert pair["picked"]["score"][0] == pytest.approx(scores(5, 2, 500000.0)[0], rel=1e-9, abs=1e-9)
    assert handle.evaluate(f"input => ({DRAWN_JS})(input).updates") == updates, "the server redrew the pair chart"
    assert requests_in(sent[quiet:]) + len(posted) == 1, "the commit was not the only request"
    assert real_problems(page) == []
