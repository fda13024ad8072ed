"""The fonts the shipped nginx serves in place of Streamlit's (deploy/fonts.py, static/fonts/): every icon and every
character the lab shows comes out of the subset as the same glyph as out of Streamlit's full font, and nginx answers
Streamlit's font addresses with them.

Shaping is HarfBuzz's (uharfbuzz, the engine Chromium uses), not the subsetter's: an icon name is typed as text and
shaped with each font, and the glyphs it becomes are compared outline for outline (fontTools' pens). The names
themselves are found here by a scan of the repository and of Streamlit's bundle of its own.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import re
import threading
import urllib.error
import urllib.request
from functools import cache
from pathlib import Path

import pytest
import uharfbuzz  # test-only: requirements-dev.txt
from fontTools.pens.recordingPen import DecomposingRecordingPen  # test-only: requirements-dev.txt
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[1]
FONTS = ROOT / "static" / "fonts"
SKIPPED = {".git", ".venv", "venv", "tests", "artifacts", "node_modules", ".pytest_cache", ".hypothesis"}
NAMED_ICON = re.compile(r":material/(\w+):")
WEIGHTS = (400, 600, 700)  # Streamlit's normal, semibold and bold


def _streamlit_media() -> Path:
    import streamlit

    return Path(streamlit.__file__).parent / "static" / "static"


def _full(name: str) -> Path:
    (path,) = [p for p in (_streamlit_media() / "media").glob(f"{name}.*.woff2")]
    return path


def _repository_files(*suffixes: str) -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.suffix in suffixes and path.is_file() and not SKIPPED & set(path.relative_to(ROOT).parts)
    ]


def _lab_icons() -> set[str]:
    """Every ``:material/<name>:`` in the repository's code, catalogs and scripts (outside tests)."""
    return {name for path in _repository_files(".py", ".toml", ".js") for name in NAMED_ICON.findall(path.read_text())}


def _streamlit_icons() -> set[str]:
    """Every ``:material/<name>:`` in Streamlit's frontend bundle, and the names its data grid draws bare."""
    names = set()
    for script in (_streamlit_media() / "js").glob("*.js"):
        names |= set(NAMED_ICON.findall(script.read_text(errors="replace")))
    grid = next((_streamlit_media() / "js").glob("DataFrame.*.js")).read_text()
    bare = {"more_vert", "audio_file", "video_file"}  # fillText(`more_vert`…), {audio:`audio_file`,video:`video_file`}
    assert all(f"`{name}`" in grid for name in bare), "Streamlit's data grid draws other bare icon names now"
    return names | bare


@cache
def _font(path: Path) -> tuple[TTFont, uharfbuzz.Font]:
    font = TTFont(path)
    font.flavor = None  # HarfBuzz reads sfnt, not woff2
    data = io.BytesIO()
    font.save(data)
    return font, uharfbuzz.Font(uharfbuzz.Face(data.getvalue()))


def _shape(path: Path, text: str, weight: int | None = None, positions: list | None = None) -> list[str]:
    """The glyph names HarfBuzz turns ``text`` into with the font at ``path`` (default features: rlig, liga, kern…);
    each glyph's (x advance, x offset, y offset) is appended to ``positions`` if given."""
    font, shaper = _font(path)
    if weight is not None:
        shaper.set_variations({"wght": weight})
    buffer = uharfbuzz.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    uharfbuzz.shape(shaper, buffer)
    if positions is not None:
        positions += [(p.x_advance, p.x_offset, p.y_offset) for p in buffer.glyph_positions]
    order = font.getGlyphOrder()
    return [order[info.codepoint] for info in buffer.glyph_infos]


def _outline(path: Path, glyph: str, weight: int | None = None) -> tuple:
    """The glyph's drawing (at ``weight`` on a variable font) and its advance width."""
    font = _font(path)[0]
    glyphs = font.getGlyphSet(location={"wght": weight} if weight else None)
    pen = DecomposingRecordingPen(glyphs)
    glyphs[glyph].draw(pen)
    return tuple(pen.value), round(glyphs[glyph].width)


ICONS = sorted(_lab_icons() | _streamlit_icons())
SUBSET_ICONS = FONTS / "MaterialSymbols-Rounded.subset.woff2"


def test_the_scans_find_icons_where_they_are():
    assert {"home", "error", "groups", "arrow_forward"} <= _lab_icons()  # ui/menu.py, ui/classroom.py, ui/lesson.py
    assert {"keyboard_double_arrow_left", "expand_more", "check", "more_vert"} <= _streamlit_icons()


@pytest.mark.parametrize("name", sorted(_lab_icons()))
def test_every_icon_the_lab_names_is_an_icon_of_streamlits_font(name):
    """A misspelled name would show as its letters with any font: the lab's names are the full font's ligatures."""
    assert len(_shape(_full("MaterialSymbols-Rounded"), name)) == 1, f"no icon called {name}"


@pytest.mark.parametrize("name", ICONS)
def test_every_icon_is_the_same_glyph_in_the_subset(name):
    full = _shape(_full("MaterialSymbols-Rounded"), name)
    subset = _shape(SUBSET_ICONS, name)
    if len(full) > 1:  # not an icon of Streamlit's font either (its star_filled is an image): letters in both
        assert len(subset) == len(full)
        return
    assert len(subset) == 1, f"{name} is spelled out in the subset: rebuild it (python -m deploy.fonts)"
    assert _outline(SUBSET_ICONS, subset[0]) == _outline(_full("MaterialSymbols-Rounded"), full[0])


def test_the_icon_subset_drops_the_icons_nobody_names():
    unnamed = [name for name in ("rocket_launch", "pets", "bedtime", "sailing") if name not in ICONS]
    assert unnamed and all(len(_shape(_full("MaterialSymbols-Rounded"), name)) == 1 for name in unnamed)
    assert all(len(_shape(SUBSET_ICONS, name)) == len(name) for name in unnamed)
    assert SUBSET_ICONS.stat().st_size < _full("MaterialSymbols-Rounded").stat().st_size / 10


def _lab_text() -> str:
    """Every character of the catalogs (every language), the code and the browser scripts, once."""
    return "".join(sorted({c for path in _repository_files(".py", ".toml", ".js") for c in path.read_text()}))


TEXT_FONTS = ["SourceSansVF-Upright", "SourceSansVF-Italic", "SourceCodeVF-Upright", "SourceCodeVF-Italic"]


@pytest.mark.parametrize("name", TEXT_FONTS)
def test_every_character_the_lab_writes_is_the_same_glyph_in_the_text_subsets(name):
    full, subset = _full(name), FONTS / f"{name}.subset.woff2"
    has = _font(full)[0].getBestCmap()
    text = [c for c in _lab_text() if ord(c) in has and c.isprintable()]
    assert {"θ", "≤", "√", "·", "–", "—", "…"} & set(map(chr, has)) <= set(text)  # the scan reads catalogs, formulas
    text += [c for c in "θ≤√·×∑–—…éüßπ→" if ord(c) in has]
    missing = [c for c in text if ord(c) not in _font(subset)[0].getBestCmap()]
    assert not missing, f"not in the subset: {''.join(missing)} (python -m deploy.fonts)"
    for weight in WEIGHTS:
        for char in text:
            (full_glyph,), (subset_glyph,) = _shape(full, char, weight), _shape(subset, char, weight)
            assert _outline(subset, subset_glyph, weight) == _outline(full, full_glyph, weight), (char, weight)
        words = "".join(c for c in "fi ffl AV Wa To 0.125 θ≤√x" if ord(c) in has)  # ligatures and kerning
        drawn = []
        for path in (full, subset):
            places: list = []
            glyphs = _shape(path, words, weight, places)
            drawn.append([(_outline(path, glyph, weight), place) for glyph, place in zip(glyphs, places, strict=True)])
        assert drawn[0] == drawn[1], weight
    assert subset.stat().st_size < full.stat().st_size / 2


def test_the_subsets_were_cut_from_the_installed_streamlit_and_carry_their_licences():
    manifest = json.loads((FONTS / "fonts.json").read_text())
    for name, entry in manifest["fonts"].items():
        source = _streamlit_media().parent.parent.parent / entry["source"]
        assert source.exists(), f"{entry['source']} is not in the installed Streamlit: python -m deploy.fonts"
        assert hashlib.sha256(source.read_bytes()).hexdigest() == entry["source_sha256"]
        assert (FONTS / name).stat().st_size == entry["subset_bytes"]
    for entry in manifest["fonts"].values():
        text = (FONTS / entry["licence_file"]).read_text()
        assert ("Apache License" if entry["licence"] == "Apache-2.0" else "SIL OPEN FONT LICENSE Version 1.1") in text
    for name in TEXT_FONTS:
        names = {r.nameID: r.toUnicode() for r in TTFont(FONTS / f"{name}.subset.woff2")["name"].names}
        assert not [i for i in (1, 3, 4, 6, 16, 25) if "Source" in names.get(i, "")]  # no Reserved Font Name
        assert "Adobe" in names[0] and "Open Font License" in names[13]


def _nginx_font_location() -> re.Pattern:
    """The regular expression of deploy/nginx.conf's fonts location, in Python's spelling of named groups."""
    pattern = re.search(r"location ~ (\S*posenc_font\S*) \{", (ROOT / "deploy" / "nginx.conf").read_text())
    assert pattern, "deploy/nginx.conf has no fonts location"
    return re.compile(pattern.group(1).replace("(?<", "(?P<"))


def test_nginx_answers_every_font_of_streamlits_css_that_has_a_subset_and_no_other():
    css = "".join(p.read_text() for p in (_streamlit_media() / "css").glob("*.css"))
    addresses = set(re.findall(r"url\(\.\./media/([\w.-]+\.woff2)\)", css))
    assert len(addresses) > 20  # KaTeX's, Source Serif's, …
    location = _nginx_font_location()
    for address in addresses:
        served = location.match(f"/static/media/{address}")
        assert bool(served) == (FONTS / f"{address.split('.')[0]}.subset.woff2").exists(), address
        assert served is None or served["posenc_font"] == address.split(".")[0]
    assert location.match("/lab/static/media/MaterialSymbols-Rounded.nEdyypZU.woff2")["posenc_prefix"] == "lab/"


# nginx in front of a replica ---------------------------------------------------------------------------------------


def _get(url: str, headers: dict | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


@pytest.fixture(scope="module")
def proxied():
    from system_packages import require_system_packages

    from bench import proxy
    from bench.server import StreamlitServer

    require_system_packages(nginx=proxy.nginx_binary() is not None)
    with StreamlitServer(startup_timeout=240) as server, proxy.NginxProxy([server.port]) as nginx:
        yield server, nginx


@pytest.mark.browser  # a real server behind nginx
@pytest.mark.parametrize("name", ["MaterialSymbols-Rounded", *TEXT_FONTS])
def test_nginx_serves_the_subset_at_streamlits_address(proxied, name):
    server, nginx = proxied
    address = f"/static/media/{_full(name).name}"
    status, headers, body = _get(f"http://127.0.0.1:{nginx.port}{address}")
    assert status == 200 and body == (FONTS / f"{name}.subset.woff2").read_bytes()
    assert headers["content-type"] == "font/woff2" and headers["cache-control"] == "public, max-age=86400"
    status, _, direct = _get(f"http://127.0.0.1:{server.port}{address}")  # the laptop case: Streamlit's own font
    assert status == 200 and direct == _full(name).read_bytes()


@pytest.mark.browser  # a real server behind nginx
def test_the_other_fonts_pass_through(proxied):
    nginx = proxied[1]
    for pattern in ("KaTeX_Main-Regular.*.woff2", "SourceSerifVariable-Roman.*.woff2"):
        font = next((_streamlit_media() / "media").glob(pattern))
        status, _, body = _get(f"http://127.0.0.1:{nginx.port}/static/media/{font.name}")
        assert status == 200 and body == font.read_bytes()


class _OldReplica(http.server.BaseHTTPRequestHandler):
    """A replica from before static/fonts: Streamlit's own fonts only."""

    def do_GET(self):
        if self.path.startswith("/static/media/"):
            self.send_response(200)
            self.send_header("Content-Type", "font/woff2")
            self.end_headers()
            self.wfile.write(b"full font " + self.path.encode())
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.mark.browser  # runs nginx
def test_a_replica_without_the_subsets_still_gets_its_browsers_the_full_icons():
    from system_packages import require_system_packages

    from bench import proxy

    require_system_packages(nginx=proxy.nginx_binary() is not None)
    old = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OldReplica)
    threading.Thread(target=old.serve_forever, daemon=True).start()
    try:
        with proxy.NginxProxy([old.server_address[1]]) as nginx:
            address = "/static/media/MaterialSymbols-Rounded.abc123.woff2"
            status, _, body = _get(f"http://127.0.0.1:{nginx.port}{address}")
            assert status == 200 and body == b"full font " + address.encode()
    finally:
        old.shutdown()
