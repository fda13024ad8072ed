"""``python -m bench.screenshots [NAME …]``: the README's screenshots, taken again from the current app.

Starts ``streamlit run app.py`` on a free loopback port (:class:`bench.server.StreamlitServer`, with a class store
of its own in a temporary folder), opens each picture's page in its language and window with Debian's Chromium
(Playwright; nothing is downloaded), waits until the page is fully drawn (``open_page_in`` of tests/browser/pages.py:
its run ended, every chart, formula and font drawn; then every live chart painted and nothing stale), scrolls the
part the README shows to the top of the screen and writes ``docs/screenshots/<name>.png``. The presenter's class
picture is a class played out on the same server: a teacher at 1024×768 and three students, two rounds.

``docs/screenshots/manifest.json`` records, for each picture, when it was taken, the sha256 of the PNG and of every
catalog it shows at that moment (:func:`shown_catalogs`): ``locales/<lang>/app.toml``, the catalog of each topic
whose keys the page's script or the chart and ui modules it imports name, and ``locales/terms.toml`` where the page
reads the term base. ``tests/test_screenshots.py`` fails when any of them has changed since, so a picture cannot go
stale unnoticed. With NAMEs (``rope-ko-1024x768`` …) only those are taken again; the others keep their entries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.server import ROOT, StreamlitServer

FOLDER = ROOT / "docs" / "screenshots"
MANIFEST = FOLDER / "manifest.json"
COMMAND = "python -m bench.screenshots"
LOCALES = ROOT / "locales"

PROJECTOR = {"viewport": {"width": 1024, "height": 768}}
# Chromium's mobile emulation (touch) with two device pixels per CSS pixel: a phone's look, smaller files than 3×
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
SIZES = {"1024x768": PROJECTOR, "390x844": PHONE}
RESTARTS = 2  # a server that another program stopped (its return code says so) is started again, this often
HEADER_PX = 60  # Streamlit's header covers the top of the main column: what is scrolled to the top stays under it


@dataclass(frozen=True)
class Shot:
    """Page ``path`` (its URL path; ``""`` is home) in ``lang`` at ``size``, with the ``index``-th element that
    ``selector`` matches scrolled to the top (``None``: the top of the page). ``also``: modules besides the page's
    whose catalog keys the picture shows; ``file``: the PNG's name where it is not ``<page>-<lang>-<size>.png``."""

    path: str
    lang: str
    size: str
    selector: str | None = None
    index: int = 0
    also: tuple[str, ...] = ()
    file: str = ""

    @property
    def name(self) -> str:
        return self.file or f"{self.path or 'home'}-{self.lang}-{self.size}.png"

    @property
    def script(self) -> Path:
        return ROOT / "pages" / f"{self.path or 'home'}.py"


# played out by play_a_class, not opened by open_shot
CLASS_SHOT = Shot("relative", "en", "1024x768", also=("ui/classroom.py",), file="class-presenter-en-1024x768.png")
SHOTS = (
    Shot("extrapolation", "en", "1024x768", ".st-key-extrap_length_chart"),
    Shot("rope", "ko", "1024x768", ".live", 1),  # the score when both positions shift
    Shot("sinusoidal", "zh", "1024x768"),
    Shot("model_rope", "ko", "1024x768", ".st-key-model_rope_wavelength_chart"),
    Shot("decay", "en", "1024x768", ".live"),
    Shot("toy_model", "zh", "1024x768", ".st-key-toy_grid_left"),
    Shot("rope", "ko", "390x844", ".live"),
    Shot("relative", "en", "390x844", ".st-key-relative_alibi_matrix"),
    Shot("decay", "zh", "390x844", ".katex-display"),
    Shot("", "zh", "390x844", ".st-key-home_attention"),
)

# Every live chart (static/live.js, in its component's shadow root) has painted a picture: [painted, all].
LIVE_JS = """() => {
    const found = [];
    const walk = (root) => {
        found.push(...root.querySelectorAll('.live'));
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    const painted = (live) => [...live.querySelectorAll('canvas')].some(c => c.posencLive && c.posencLive.draws > 0);
    return [found.filter(painted).length, found.length];
}"""
# ... and nothing is stale and Streamlit's run has ended.
SETTLED_JS = f"""() => {{
    if (document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState !== 'notRunning') return false;
    if (document.querySelector('[data-stale="true"]')) return false;
    const [painted, all] = ({LIVE_JS})();
    return painted === all;
}}"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shown_catalogs(shot: Shot) -> list[str]:
    """The catalogs (paths from the repository root) whose words ``shot`` shows: the language's ``app.toml`` (the
    sidebar, checkpoints, notices), the topic catalog of every key prefix (``"rope.``) that the page's script, the
    ``charts``/``ui`` modules it imports, or ``shot.also`` name, and the term base where one of them reads it."""
    source = shot.script.read_text()
    imported = re.findall(r"^from (charts|ui)(?:\.(\w+) import| import (\w+))", source, re.M)
    modules = [ROOT / package / f"{module or first}.py" for package, module, first in imported]
    texts = [source] + [path.read_text() for path in modules if path.exists()]
    texts += [(ROOT / name).read_text() for name in shot.also]
    lang = LOCALES / shot.lang
    found = {lang / "app.toml"} | {
        lang / f"{topic}.toml" for text in texts for topic in re.findall(r"[\"'](\w+)\.\w", text)
    }
    if any("ui.terms" in text for text in texts):
        found.add(LOCALES / "terms.toml")
    return sorted(str(path.relative_to(ROOT)) for path in found if path.exists())


def take(browser, url: str, shot: Shot) -> None:
    """Write ``shot``'s PNG, from a browser context of its own (a fresh session: the pages' default settings)."""
    contexts: list = []
    try:
        if shot == CLASS_SHOT:
            play_a_class(browser, url, contexts)
        else:
            contexts.append(browser.new_context(**SIZES[shot.size]))
            open_shot(contexts[0], url, shot).screenshot(path=str(FOLDER / shot.name))
    finally:
        for context in contexts:
            context.close()


def open_shot(context, url: str, shot: Shot):
    """A tab with ``shot``'s page open, fully drawn, and its part of the page at the top of the screen."""
    from tests.browser.pages import open_page_in

    tab = context.new_page()
    tab.set_default_timeout(120_000)
    open_page_in(tab, url, shot.path, shot.lang)
    tab.wait_for_function(SETTLED_JS)
    if shot.selector:
        tab.locator(shot.selector).nth(shot.index).evaluate("el => el.scrollIntoView({block: 'start'})")
        tab.locator('[data-testid="stMain"]').evaluate(f"main => main.scrollBy(0, -{HEADER_PX})")
    tab.wait_for_timeout(1000)  # a chart redrawn for what scrolled into view (lazy layout, live charts' resize)
    tab.wait_for_function(SETTLED_JS)
    return tab


def play_a_class(browser, url: str, contexts: list) -> None:
    """The presenter's view of a class on the relative page's T5 checkpoint: three students answer round 1 (one
    each choice), the teacher shows the answers and polls again, two answer round 2 alike."""
    from playwright.sync_api import expect

    def tab(**options):
        contexts.append(browser.new_context(**options))
        page = contexts[-1].new_page()
        page.set_default_timeout(120_000)
        return page

    box = ".st-key-cp_rel_t5_box"
    teacher = tab(**PROJECTOR)
    teacher.goto(f"{url}/relative?present=1&lang=en")
    teacher.locator(".st-key-class_start button:visible").click()
    expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
    link = teacher.get_by_test_id("stCode").first.inner_text().strip()
    board = teacher.locator(box)
    answered = board.get_by_test_id("stMetricValue")
    students = [tab(viewport={"width": 1024, "height": 800}) for _ in range(3)]
    for student in students:
        student.goto(link)

    def answer(student, choice: int, count: int) -> None:
        """Pick ``choice`` and send it, until the teacher's count reads ``count``."""
        option = student.locator(f"{box} [role=radiogroup] label").nth(choice)
        for _ in range(5):
            for _ in range(10):  # the box reruns every 1.5 s: click as a person does, until the pick has taken
                option.click(force=True)
                if student.locator(f"{box} [role=radiogroup] input").nth(choice).is_checked():
                    break
                student.wait_for_timeout(500)
            student.locator(".st-key-cp_rel_t5_send button:visible").click(force=True)
            try:
                expect(answered).to_have_text(str(count), timeout=20_000)
                return
            except AssertionError:
                continue  # the send was lost under a rerun: pick and send again
        expect(answered).to_have_text(str(count))

    for n, student in enumerate(students):
        answer(student, n, n + 1)
    teacher.locator(".st-key-cp_rel_t5_class_chart label").click()
    expect(board.locator(".class-bars")).to_be_visible()
    teacher.locator(".st-key-cp_rel_t5_class_again button:visible").click()
    expect(answered).to_have_text("0")
    for n, student in enumerate(students[:2]):
        answer(student, 1, n + 1)
    expect(board.locator(".class-legend")).to_contain_text("(2)")
    board.evaluate("el => el.scrollIntoView({block: 'end'})")
    teacher.wait_for_timeout(1500)  # the board's next poll drawn
    teacher.screenshot(path=str(FOLDER / CLASS_SHOT.name))


def catalog_hashes() -> dict[str, str]:
    """The sha256 of every catalog now. Taken before the server starts: it reads each catalog once, at its first use."""
    return {str(path.relative_to(ROOT)): sha256(path) for path in sorted(LOCALES.rglob("*.toml"))}


def entry(shot: Shot, png: Path, served: dict[str, str]) -> dict:
    """The manifest's entry for ``png``: the catalogs ``shot`` shows as the server read them (``served``)."""
    when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    catalogs = {path: served[path] for path in shown_catalogs(shot)}
    return {"page": shot.path or "home", "lang": shot.lang, "size": shot.size, "taken": when,
            "png_sha256": sha256(png), "catalogs": catalogs}  # fmt: skip


def write(manifest: dict, shots: dict[str, Shot]) -> None:
    """``manifest.json``, its pictures by name, without any of a picture this command no longer takes."""
    pictures = manifest["screenshots"]
    kept = {"command": COMMAND, "screenshots": {name: pictures[name] for name in sorted(pictures) if name in shots}}
    MANIFEST.write_text(json.dumps(kept, indent=2, ensure_ascii=False) + "\n")


def main() -> None:  # pragma: no cover - run by hand; tests/test_screenshots.py checks what it wrote
    from playwright.sync_api import expect, sync_playwright

    from bench.browser import CHROMIUM, CHROMIUM_ARGS

    everything = {shot.name: shot for shot in (*SHOTS, CLASS_SHOT)}
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = ", ".join(name.removesuffix(".png") for name in everything)
    parser.add_argument("names", nargs="*", help=f"only these ({names})")
    wanted = [name if name.endswith(".png") else f"{name}.png" for name in parser.parse_args().names] or everything
    unknown = [name for name in wanted if name not in everything]
    if unknown:
        parser.error(f"no screenshot named {', '.join(unknown)}")
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    manifest = {"command": COMMAND, "screenshots": manifest.get("screenshots", {})}
    expect.set_options(timeout=120_000)
    started = time.monotonic()
    server: StreamlitServer | None = None
    with tempfile.TemporaryDirectory() as work, sync_playwright() as playwright:
        os.environ["POSENC_CLASS_STORE"] = f"sqlite:///{Path(work) / 'classes.sqlite3'}"  # not ./data's
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name in wanted:
                for attempt in range(1, RESTARTS + 2):
                    if server is None or server.process.poll() is not None:  # stopped by someone else: again
                        if server is not None:
                            print(f"the server ended ({server.process.returncode}); starting another", flush=True)
                        served = catalog_hashes()  # what the server will read
                        server = StreamlitServer(startup_timeout=240).start()
                    try:
                        take(browser, server.url, everything[name])
                        break
                    except Exception:
                        if server.process.poll() is None or attempt > RESTARTS:
                            raise
                manifest["screenshots"][name] = entry(everything[name], FOLDER / name, served)
                write(manifest, everything)  # after each picture: one that fails later keeps what was taken
                print(f"docs/screenshots/{name}  {time.monotonic() - started:.0f} s", flush=True)
        finally:
            if server is not None:
                server.stop()
            browser.close()
    now = catalog_hashes()
    changed = sorted(
        {path for name in wanted for path, digest in manifest["screenshots"][name]["catalogs"].items()
         if now.get(path) != digest}
    )  # fmt: skip
    print(f"{MANIFEST.relative_to(ROOT)}: {len(wanted)} taken in {time.monotonic() - started:.0f} s")
    if changed:  # the test calls the pictures that show them stale: they may show either version
        raise SystemExit(f"changed while the pictures were taken (run it again): {', '.join(changed)}")


if __name__ == "__main__":
    main()
