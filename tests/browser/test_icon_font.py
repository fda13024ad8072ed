"""Through the shipped nginx, Chromium draws the lab's icons and words with the fonts cut to them (static/fonts/,
deploy/fonts.py) exactly as with Streamlit's full fonts.

- An icon on the page is drawn as an icon: its text (the ligature's name) is one em wide, not the width of the name
  in letters, and the icon font the page downloaded is the subset.
- Every icon name, and every character the lab writes at Streamlit's weights, is drawn on a canvas with the full
  font and with the subset: the pixels are the same (ª º and the ff ligature: within a pixel, see below).
- A character outside the text subset (Cyrillic here) is drawn by the next font of Streamlit's stack, sans-serif,
  as Hangul and Chinese are: the same pixels as sans-serif alone.
"""

from __future__ import annotations

import base64
import json
import unicodedata

import pytest
from fontTools.ttLib import TTFont

from bench.proxy import NginxProxy
from deploy import fonts

pytestmark = pytest.mark.browser

ICON_SIZE_PX = 48
TEXT_SIZE_PX = 24
# Text comes out pixel for pixel the same, except that the ordinals ª º and the ff ligature may be hinted a pixel
# apart (FreeType's light autohinter, which Chromium applies to text, sorts glyphs into styles by what the font's
# layout features reach; deploy/fonts.py keeps those features, which makes the raised forms ᵀ ⁵ ᴷ … exact, but these
# few still land differently). They must keep their advance and ink box within a pixel.


@pytest.fixture(scope="module")
def proxy_url(server_url):
    """nginx (deploy/nginx.conf) in front of the browser tests' server."""
    from system_packages import require_system_packages

    from bench.proxy import nginx_binary

    require_system_packages(nginx=nginx_binary() is not None)
    with NginxProxy([int(server_url.rsplit(":", 1)[1])]) as nginx:
        yield f"http://127.0.0.1:{nginx.port}"


def _b64(path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


VISIBLE_ICONS = """() => [...document.querySelectorAll('[data-testid="stIconMaterial"]')]
    .filter(el => el.getClientRects().length && el.checkVisibility())"""
# An icon's box is square whatever it holds (Streamlit sets its width and height): measure the text inside it, the
# ligature's name, which is one em wide as an icon and several as letters.
ICON_TEXT_WIDTHS = (
    "() => ("
    + VISIBLE_ICONS
    + """)().map(el => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return {name: el.textContent, width: range.getBoundingClientRect().width,
                em: parseFloat(getComputedStyle(el).fontSize)};
    })"""
)


def test_the_pages_icons_are_drawn_as_icons_from_the_subset(page, proxy_url):
    page.goto(f"{proxy_url}/")
    page.wait_for_function(f"({VISIBLE_ICONS})().length >= 13", timeout=120_000)  # the sidebar's pages, home's links
    page.evaluate("document.fonts.ready")
    icons = page.evaluate(ICON_TEXT_WIDTHS)
    assert len(icons) >= 13, icons  # one per page in the sidebar, and the home page's links
    wide = [icon for icon in icons if icon["width"] > 1.2 * icon["em"]]
    assert not wide, f"drawn as letters, not icons: {wide}"
    downloaded = page.evaluate(
        """() => performance.getEntriesByType('resource').filter(e => e.name.includes('/static/media/'))
            .map(e => ({name: e.name.split('/').pop(), size: e.decodedBodySize}))"""
    )
    sizes = {entry["name"].split(".")[0]: entry["size"] for entry in downloaded}
    assert sizes.get("MaterialSymbols-Rounded") == (fonts.OUT / "MaterialSymbols-Rounded.subset.woff2").stat().st_size
    assert sizes.get("SourceSansVF-Upright") == (fonts.OUT / "SourceSansVF-Upright.subset.woff2").stat().st_size
    assert not page.problems, page.problems


DRAW_JS = """async ({full, subset, descriptors, strings, font, size}) => {
    const bytes = b64 => Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    for (const [family, data] of [['Full', full], ['Subset', subset]]) {
        const face = new FontFace(family, bytes(data), descriptors);
        document.fonts.add(await face.load());
    }
    const canvas = document.createElement('canvas');
    canvas.width = size * Math.max(...strings.map(text => text.length + 2)); canvas.height = size * 2;
    const ctx = canvas.getContext('2d', {willReadFrequently: true});
    const draw = (text, family) => {
        ctx.clearRect(0, 0, canvas.width, canvas.height);
        ctx.font = font.replace('FAMILY', family);
        ctx.fillText(text, 2, size * 1.4);
        return {pixels: ctx.getImageData(0, 0, canvas.width, canvas.height).data, width: ctx.measureText(text).width};
    };
    // the ink's bounding box: [left, top, right, bottom] in pixels
    const box = pixels => {
        const found = [Infinity, Infinity, -1, -1];
        for (let y = 0; y < canvas.height; y++) for (let x = 0; x < canvas.width; x++) {
            if (pixels[(y * canvas.width + x) * 4 + 3]) {
                found[0] = Math.min(found[0], x); found[1] = Math.min(found[1], y);
                found[2] = Math.max(found[2], x); found[3] = Math.max(found[3], y);
            }
        }
        return found;
    };
    return strings.map(text => {
        const full = draw(text, 'Full'), subset = draw(text, 'Subset'), plain = draw(text, 'sans-serif');
        return {text, same: full.pixels.join() === subset.pixels.join(), inked: subset.pixels.some(v => v),
                box_full: box(full.pixels), box_subset: box(subset.pixels),
                width_full: full.width, width_subset: subset.width,
                like_sans_serif: subset.pixels.join() === plain.pixels.join(),
                full_like_sans_serif: full.pixels.join() === plain.pixels.join()};
    });
}"""


def _draw(page, name: str, strings: list[str], font: str, size: int, descriptors: dict | None = None) -> list[dict]:
    arguments = {
        "full": _b64(fonts.streamlit_font(name)),
        "subset": _b64(fonts.OUT / f"{name}.subset.woff2"),
        "descriptors": descriptors or {},
        "strings": strings,
        "font": font,
        "size": size,
    }
    return page.evaluate(DRAW_JS, arguments)


def test_every_icon_looks_the_same_with_the_subset(page, proxy_url):
    page.goto(f"{proxy_url}/_stcore/health")  # a page of the proxy's origin; no app needed to draw on a canvas
    names = json.loads((fonts.MANIFEST).read_text())["fonts"]["MaterialSymbols-Rounded.subset.woff2"]["icons"]
    drawn = _draw(page, "MaterialSymbols-Rounded", names, f"{ICON_SIZE_PX}px FAMILY", ICON_SIZE_PX)
    assert len(drawn) >= 100
    assert [d["text"] for d in drawn if not d["same"]] == []
    assert [d["text"] for d in drawn if not d["inked"] or abs(d["width_subset"] - ICON_SIZE_PX) > 1] == []


def _raised_or_lowered(char: str) -> bool:
    """ª, º, ², ᵀ, ₀, …: a small raised or lowered form of another character (Unicode's <super> and <sub>)."""
    return unicodedata.decomposition(char).startswith(("<super>", "<sub>"))


@pytest.mark.parametrize(
    "name", ["SourceSansVF-Upright", "SourceSansVF-Italic", "SourceCodeVF-Upright", "SourceCodeVF-Italic"]
)
def test_the_labs_words_look_the_same_with_the_text_subset(page, proxy_url, name):
    page.goto(f"{proxy_url}/_stcore/health")
    style = name.split("-")[1]
    codes = fonts.text_codepoints(fonts.streamlit_font(name), fonts.app_characters())
    text = [chr(code) for code in codes if chr(code).isprintable() and not chr(code).isspace() and code != 0x034F]
    # (U+034F, the combining grapheme joiner, has no ink by design)
    formula, words = "θ ≤ √d · qᵀk × y ∑ – — … 0.125 → ∞", "The fine office, AV Wa To"  # kerning, ligatures
    descriptors = {"weight": "100 900", "style": "italic" if style == "Italic" else "normal"}
    for weight in (400, 600, 700):
        font = f"{'italic ' if style == 'Italic' else ''}{weight} {TEXT_SIZE_PX}px FAMILY"
        drawn = _draw(page, name, [*text, formula, words], font, TEXT_SIZE_PX, descriptors)
        assert [d["text"] for d in drawn if not d["inked"]] == []
        exact = [d for d in drawn if d["text"] not in (formula, words) and not _raised_or_lowered(d["text"])]
        assert len(exact) > 150 and [d["text"] for d in exact if not d["same"]] == [], weight
        for d in (d for d in drawn if not d["same"] and d not in exact):  # hinted apart: within a pixel
            assert d["width_subset"] == d["width_full"], (d["text"], weight)
            boxes = zip(d["box_full"], d["box_subset"], strict=True)
            assert all(abs(a - b) <= 1 for a, b in boxes), (d["text"], d, weight)
    cyrillic = _draw(page, name, ["Жизнь"], f"{TEXT_SIZE_PX}px FAMILY, sans-serif", TEXT_SIZE_PX, descriptors)[0]
    assert cyrillic["inked"] and cyrillic["like_sans_serif"]
    full_has_cyrillic = all(ord(c) in TTFont(fonts.streamlit_font(name)).getBestCmap() for c in "Жизнь")
    assert cyrillic["full_like_sans_serif"] != full_has_cyrillic  # the full font draws it, the subset leaves it
