"""``python -m deploy.fonts [--check]``: the fonts the shipped nginx serves in place of Streamlit's, cut to what the lab
shows (a subset keeps a glyph iff the lab can draw it: its icon names, its characters).

Streamlit's frontend loads its whole Material Symbols icon font (375 kB, every one of ~4,300 icons) on every page, and
its Source Sans variable fonts (170 kB upright, 138 kB italic) and, on a page with code, Source Code (90 and 75 kB),
each for Latin, Greek, Cyrillic and Vietnamese. The lab draws a few dozen icons and Latin, Greek and math characters.
This builds from the installed Streamlit's own files:

- ``MaterialSymbols-Rounded.subset.woff2``: the glyphs of the icons that the lab's code and catalogs name
  (``:material/<name>:``) and that Streamlit's bundle names (``:material/<name>:`` in ``static/js``, plus the few its
  data grid draws by bare name), with the required ligatures (``rlig``) that spell them from letters, digits and ``_``.
  Every other ligature is dropped with its glyph (fontTools' subsetter without layout closure). The font is static
  (no variation axes), so there is nothing to pin;
- ``SourceSansVF-{Upright,Italic}.subset.woff2``, ``SourceCodeVF-{Upright,Italic}.subset.woff2``: Basic Latin,
  Latin-1, Greek, punctuation, arrows and math operators, and every character of the lab's code and catalogs that the
  full font has; the default layout features, ``tnum`` (the lab's read-outs ask for tabular figures) and the features
  FreeType's autohinter reads. Characters outside fall back to the next font of Streamlit's stack (sans-serif,
  monospace), as Hangul and Chinese do already. The weight axis stays whole: Streamlit's CSS asks for 100–900, and
  limiting it to the weights in use (400–700) made the file larger, not smaller.

The files go to ``static/fonts/`` (served by each replica at ``app/static/fonts/``; deploy/nginx.conf answers
Streamlit's font URLs with them) beside their licences and ``fonts.json``, which records what each was cut from.
Run this again after upgrading Streamlit or adding an icon; ``--check`` only says whether the shipped files are
current (tests/test_fonts.py checks the same and more).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "static" / "fonts"
MANIFEST = OUT / "fonts.json"
# Where the lab's words and icons live: what the Docker image holds (.dockerignore), without tests and benchmarks.
APP_SOURCES = ("app.py", "navigation.py", "pages", "ui", "charts", "figures", "posenc", "classroom", "locales")
APP_SOURCES += ("static",)
SOURCE_SUFFIXES = (".py", ".toml", ".js")
ICON = re.compile(r":material/([a-z0-9_]+):")
# Names Streamlit's data grid (DataFrame.*.js, used by st.dataframe) draws on its canvas in the icon font without the
# ":material/…:" wrapper: the row menu (`more_vert`) and its media cells ({audio: `audio_file`, video: `video_file`}).
GRID_ICONS = ("more_vert", "audio_file", "video_file")
LIGATURE_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ "
# Unicode blocks every subset of Source Sans keeps, whatever the sources hold today.
TEXT_BLOCKS = (
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x00FF),  # Latin-1 Supplement
    (0x0131, 0x0131), (0x0152, 0x0153), (0x02C6, 0x02C6), (0x02DA, 0x02DA), (0x02DC, 0x02DC),  # ı Œ œ ˆ ˚ ˜
    (0x0300, 0x036F),  # combining marks (x̃, x̄)
    (0x0370, 0x03FF),  # Greek
    (0x2000, 0x206F),  # general punctuation (– — ‖ ‘ ’ “ ” … ′); super- and subscripts: those the lab writes
    (0x20AC, 0x20AC), (0x2122, 0x2122),  # € ™
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators (− √ ∞ ≈ ≤ ≥ ∑)
    (0x25A0, 0x25FF),  # geometric shapes (▶)
)  # fmt: skip
# On top of fontTools' default features (those a browser applies: kern, liga, mark, locl, …): `tnum`, which the lab's
# read-outs ask for, and the features FreeType's light autohinter reads to sort glyphs into styles with their own
# alignment zones (FreeType's afcover.h). Without them Chromium hints the raised forms (ᵀ ⁵ ᴷ, which the lab's
# formulas use) as ordinary glyphs and draws them up to 2 px shorter; with them the subset draws every character
# like the full font (tests/browser/test_icon_font.py), for 18 kB more a font.
AUTOHINTER_FEATURES = ("c2cp", "c2sc", "ordn", "pcap", "ruby", "sinf", "smcp", "subs", "sups", "titl")
TEXT_FEATURES = ("tnum", *AUTOHINTER_FEATURES)
# The OFL reserves the name "Source" for Adobe's unmodified fonts: a subset is a Modified Version, so its own names
# (family, full and PostScript names) say "PosencLab…"; copyright, trademark and licence records stay as they are.
RENAMED = (("SourceSans3", "PosencLabSans"), ("SourceCode", "PosencLabCode"))
KEPT_NAME_IDS = (0, 7, 13, 14)  # copyright, trademark, licence, licence URL


@dataclass(frozen=True)
class Subset:
    """One font the proxy serves cut down: ``name`` is Streamlit's file name up to its hash (and ours, + .subset)."""

    name: str
    kind: str  # "icons" or "text"
    licence: str  # the SPDX id of the upstream licence
    licence_file: str  # its text, beside the subset

    @property
    def path(self) -> Path:
        return OUT / f"{self.name}.subset.woff2"


SUBSETS = (
    Subset("MaterialSymbols-Rounded", "icons", "Apache-2.0", "LICENSE-MaterialSymbols.txt"),
    Subset("SourceSansVF-Upright", "text", "OFL-1.1", "OFL-SourceSans.txt"),
    Subset("SourceSansVF-Italic", "text", "OFL-1.1", "OFL-SourceSans.txt"),
    Subset("SourceCodeVF-Upright", "text", "OFL-1.1", "OFL-SourceCode.txt"),  # code: the lab's sources and formulas
    Subset("SourceCodeVF-Italic", "text", "OFL-1.1", "OFL-SourceCode.txt"),
)


def streamlit_static() -> Path:
    """The installed Streamlit's frontend build (``streamlit/static/static``: js/, css/, media/)."""
    import streamlit

    return Path(streamlit.__file__).parent / "static" / "static"


def streamlit_font(name: str) -> Path:
    """The installed Streamlit's font file called ``name`` (plus ``.ttf`` for some) and a content hash."""
    found = sorted(p for p in (streamlit_static() / "media").glob("*.woff2") if p.name.split(".")[0] == name)
    if len(found) != 1:
        raise FileNotFoundError(f"expected one {name}.*.woff2 in Streamlit's static/media, found {len(found)}")
    return found[0]


def source_files(root: Path = ROOT) -> list[Path]:
    """The lab's own code and catalogs (``APP_SOURCES``)."""
    files = []
    for entry in APP_SOURCES:
        path = root / entry
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        files += [p for p in candidates if p.is_file() and p.suffix in SOURCE_SUFFIXES]
    return files


def app_icons(root: Path = ROOT) -> set[str]:
    """Every icon name the lab's code and catalogs write as ``:material/<name>:``."""
    return {name for path in source_files(root) for name in ICON.findall(path.read_text(encoding="utf-8"))}


def streamlit_icons() -> set[str]:
    """Every icon name Streamlit's frontend bundle may draw in the icon font."""
    names = set(GRID_ICONS)
    for script in (streamlit_static() / "js").glob("*.js"):
        names |= set(ICON.findall(script.read_text(encoding="utf-8", errors="replace")))
    return names


def app_characters(root: Path = ROOT) -> set[str]:
    """Every character of the lab's code and catalogs."""
    return {char for path in source_files(root) for char in path.read_text(encoding="utf-8")}


def ligature_glyphs(font) -> dict[str, str]:
    """The icon font's ligatures: lower-case name → glyph, read from its GSUB ligature lookups."""
    reverse = {glyph: chr(code) for code, glyph in font.getBestCmap().items()}  # "a" and "A" map to one glyph
    names: dict[str, str] = {}
    for lookup in font["GSUB"].table.LookupList.Lookup:
        for table in lookup.SubTable:
            table = getattr(table, "ExtSubTable", table)
            for first, ligatures in getattr(table, "ligatures", {}).items():
                for ligature in ligatures:
                    spelled = [reverse.get(glyph) for glyph in (first, *ligature.Component)]
                    if None not in spelled:
                        names.setdefault("".join(spelled).lower(), ligature.LigGlyph)
    return names


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _font_version(font) -> str:
    return font["name"].getDebugName(5) or "?"


def build_icons(source: Path, names: set[str]) -> tuple[bytes, list[str], list[str]]:
    """The icon subset's bytes, the names it draws, and the names the full font has no icon for (drawn as text by
    Streamlit with the full font too)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    ligatures = ligature_glyphs(TTFont(source))
    kept = sorted(name for name in names if name in ligatures)
    options = subset.Options(layout_closure=False, layout_features=["rlig", "liga"], flavor="woff2")
    options.name_IDs = ["*"]  # copyright, version and licence stay in the file
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=LIGATURE_LETTERS, glyphs=[ligatures[name] for name in kept])
    font = TTFont(source, recalcTimestamp=False)  # the same bytes from the same source
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue(), kept, sorted(names - set(kept))


def text_codepoints(source: Path, characters: set[str]) -> list[int]:
    """The code points a text subset keeps: ``TEXT_BLOCKS`` and ``characters``, where the full font has them."""
    from fontTools.ttLib import TTFont

    has = TTFont(source).getBestCmap()
    wanted = {code for low, high in TEXT_BLOCKS for code in range(low, high + 1)} | {ord(c) for c in characters}
    return sorted(code for code in wanted if code in has)


def build_text(source: Path, codepoints: list[int]) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options(flavor="woff2")
    options.layout_features = [*options.layout_features, *TEXT_FEATURES]
    options.name_IDs = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=codepoints)
    font = TTFont(source, recalcTimestamp=False)  # the same bytes from the same source
    subsetter.subset(font)
    for record in font["name"].names:
        if record.nameID not in KEPT_NAME_IDS:
            for old, new in RENAMED:
                record.string = record.toUnicode().replace(old, new)
    out = io.BytesIO()
    font.save(out, reorderTables=True)
    return out.getvalue()


def build() -> dict:
    """Every subset as bytes and the manifest that describes them (nothing written)."""
    import streamlit
    from fontTools.ttLib import TTFont

    files: dict[Path, bytes] = {}
    manifest: dict = {"streamlit": streamlit.__version__, "fonts": {}}
    for item in SUBSETS:
        source = streamlit_font(item.name)
        entry = {
            "source": f"streamlit/static/static/media/{source.name}",
            "source_sha256": _sha256(source),
            "version": _font_version(TTFont(source)),
            "licence": item.licence,
            "licence_file": item.licence_file,
            "full_bytes": source.stat().st_size,
        }
        if item.kind == "icons":
            data, kept, absent = build_icons(source, app_icons() | streamlit_icons())
            entry |= {"icons": kept, "not_in_font": absent}
        else:
            data = build_text(source, text_codepoints(source, app_characters()))
        entry["subset_bytes"] = len(data)
        files[item.path] = data
        manifest["fonts"][item.path.name] = entry
    return {"files": files, "manifest": manifest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.fonts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if static/fonts is out of date")
    args = parser.parse_args(argv)
    built = build()
    text = json.dumps(built["manifest"], indent=2, ensure_ascii=False) + "\n"
    stale = [p.name for p, data in built["files"].items() if not p.exists() or p.read_bytes() != data]
    stale += [MANIFEST.name] if not MANIFEST.exists() or MANIFEST.read_text() != text else []
    if args.check:
        print("static/fonts is current" if not stale else f"out of date: {', '.join(stale)} (python -m deploy.fonts)")
        return 1 if stale else 0
    OUT.mkdir(exist_ok=True)
    for path, data in built["files"].items():
        path.write_bytes(data)
    MANIFEST.write_text(text)
    for name, entry in built["manifest"]["fonts"].items():
        print(f"{name}: {entry['full_bytes'] / 1e3:.1f} kB -> {entry['subset_bytes'] / 1e3:.1f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
