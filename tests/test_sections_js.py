"""static/sections.js's watch on a section a page step left waiting (``watchDeferred``), in Node with a stand-in
IntersectionObserver and Node's own timers: the section is not asked for while its box is far; it is asked for at
once when the box is in the viewport, and two seconds after it came within a screen of it (unless it is scrolled
into view first); then again every two seconds until it is drawn, even if the sections above, drawn meanwhile,
pushed it away (a trigger can be lost while the page is busy), and never after the element is gone (the section
drawn in its place)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from system_packages import require_system_packages

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")

SCRIPT = """
let watches = [];
globalThis.Element = class {};
globalThis.IntersectionObserver = class {
  constructor(callback, options) { this.callback = callback; this.options = options; this.watching = true;
    watches.push(this); }
  observe(target) { this.target = target; }
  disconnect() { this.watching = false; }
};
const sections = await import(%s);
const wait = (ms) => new Promise((done) => setTimeout(done, ms));
const watch = (box, send) => {
  watches = [];
  const stop = sections.watchDeferred({ parentElement: box, setTriggerValue: send });
  const view = watches.find((w) => !w.options?.rootMargin), near = watches.find((w) => w.options?.rootMargin);
  return { stop, view, near };
};
const seen = {};

// within a screen, not in view: asked LATER_MS later, then every 2 s until drawn, never after
let asked = [];
const box = new Element();
const first = watch(box, (name, value) => asked.push([name, value]));
seen.margin = first.near.options.rootMargin;
seen.targets = first.near.target === box && first.view.target === box;
first.view.callback([{ isIntersecting: false }]);
first.near.callback([{ isIntersecting: false }]);
seen.far = asked.length;                                        // nothing asked while far
first.near.callback([{ isIntersecting: true }]);
seen.nearAtOnce = asked.length;                                 // within a screen: not at once
await wait(sections.LATER_MS + 100);
seen.nearLater = asked.length;                                  // ... but a little later
seen.watching = first.near.watching || first.view.watching;     // asked: no need to watch it
await wait(2100);
seen.again = asked.length;                                      // asked again after 2 s, still waiting
first.stop();
await wait(2100);
seen.gone = asked.length;                                       // the section drawn: never again
seen.asked = asked[0];

// in the viewport: at once
asked = [];
const second = watch(new Element(), (name, value) => asked.push([name, value]));
second.view.callback([{ isIntersecting: true }]);
seen.inView = asked.length;
second.stop();

// near, then scrolled into view before LATER_MS: at once, and once
asked = [];
const third = watch(new Element(), (name, value) => asked.push([name, value]));
third.near.callback([{ isIntersecting: true }]);
await wait(200);
third.view.callback([{ isIntersecting: true }]);
seen.scrolledTo = asked.length;
await wait(sections.LATER_MS - 100);                            // past when the later ask was due, before the next
seen.scrolledToLater = asked.length;                            // ask again: the later ask does not come on top
third.stop();
seen.later = sections.LATER_MS;
console.log(JSON.stringify(seen));
"""


def test_a_waiting_section_is_asked_for_in_view_at_once_near_a_little_later_and_until_it_is_drawn():
    require_system_packages(nodejs=NODE is not None)
    source = SCRIPT % json.dumps((ROOT / "static/sections.js").as_uri() + "?v=test")
    done = subprocess.run([NODE, "--input-type=module", "-e", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["margin"] == "100% 0px 100% 0px" and seen["targets"]  # within one screen above or below
    assert (seen["far"], seen["nearAtOnce"], seen["nearLater"], seen["again"], seen["gone"]) == (0, 0, 1, 2, 2)
    assert seen["watching"] is False and seen["asked"] == ["near", True]
    assert seen["inView"] == 1
    assert (seen["scrolledTo"], seen["scrolledToLater"]) == (1, 1)
    assert 1000 <= seen["later"] <= 3000


STALE_SCRIPT = """
let watches = [];
const boxes = {};
globalThis.CSS = { escape: (text) => text };
globalThis.document = { querySelector: (selector) => boxes[selector.replace(/^\\./, "")] };
globalThis.IntersectionObserver = class {
  constructor(callback, options) { this.callback = callback; this.options = options; this.targets = [];
    watches.push(this); }
  observe(target) { this.targets.push(target); }
  disconnect() { this.targets = []; }
};
const box = (key) => (boxes[`st-key-section-${key}`] = { classList: [`st-key-section-${key}`] });
["a", "b", "c", "d"].forEach(box);
const sections = await import(%s);
const wait = (ms) => new Promise((done) => setTimeout(done, ms));
const come = (observer, key) => observer.callback([{ isIntersecting: true, target: boxes[`st-key-section-${key}`] }]);
const seen = {};
let asked = [];
const ask = (keys) => asked.push(keys);

// a, b stale; b and c also "later" (c: within a screen, out of view): a watched within a screen, b and c in view
watches = [];
sections.watchStale(["a", "b", "c"], ask, ["b", "c", "d"]);  // d is not stale: ignored
const [screens, inView] = watches;
seen.screens = screens.targets.map((t) => t.classList[0]);
seen.inView = inView.targets.map((t) => t.classList[0]);
seen.margins = [screens.options?.rootMargin, inView.options?.rootMargin ?? null];
const start = Date.now();
come(inView, "b");                                              // b scrolled into view: asked at once, alone
await wait(200);
seen.first = [...asked];
await wait(800);
// the sidebar draws again with what is still stale: the later time of c is kept, not restarted
watches = [];
sections.watchStale(["a", "c"], ask, ["c"]);
await wait(sections.LATER_MS - 300 - (Date.now() - start));
seen.beforeLater = asked.length;                                 // c not yet
await wait(600);
seen.afterLater = [...asked];                                   // c asked LATER_MS after it was first listed
await wait(sections.LATER_MS + 200);
seen.once = asked.length;                                       // and only once
console.log(JSON.stringify(seen));
"""


def test_stale_sections_a_follow_left_later_are_asked_for_in_view_or_a_little_later_once():
    """The sidebar's stale list with "later" keys (ui/sections.py's later_sections): a stale section is asked for
    within a screen of the viewport; a "later" one only in the viewport itself, or LATER_MS after it was first listed
    (listed again, it keeps its time), each once."""
    require_system_packages(nodejs=NODE is not None)
    source = STALE_SCRIPT % json.dumps((ROOT / "static/sections.js").as_uri() + "?v=test")
    done = subprocess.run([NODE, "--input-type=module", "-e", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["screens"] == ["st-key-section-a"] and seen["inView"] == ["st-key-section-b", "st-key-section-c"]
    assert seen["margins"] == ["100% 0px 100% 0px", None]
    assert seen["first"] == [["b"]]
    assert seen["beforeLater"] == 1 and seen["afterLater"] == [["b"], ["c"]] and seen["once"] == 2
