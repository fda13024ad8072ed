"""static/sections.js's watch on a section a page step left waiting (``watchDeferred``), in Node with a stand-in
IntersectionObserver and Node's own timers: the section is not asked for while its box is far, is asked for when it
comes within a screen, then again every two seconds until it is drawn, even if the sections above, drawn meanwhile,
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
let observed = null;
globalThis.Element = class {};
globalThis.IntersectionObserver = class {
  constructor(callback, options) { observed = { callback, options, watching: true }; }
  observe(target) { observed.target = target; }
  disconnect() { observed.watching = false; }
};
const sections = await import(%s);
const asked = [];
const box = new Element();
const send = (name, value) => asked.push([name, value]);
const stop = sections.watchDeferred({ parentElement: box, setTriggerValue: send });
const wait = (ms) => new Promise((done) => setTimeout(done, ms));
const seen = { margin: observed.options.rootMargin, target: observed.target === box };
observed.callback([{ isIntersecting: false }]);
seen.far = asked.length;                                        // nothing asked before it comes near
observed.callback([{ isIntersecting: true }]);
seen.near = asked.length;                                       // asked at once
await wait(2100);
seen.again = asked.length;                                      // asked again after 2 s, still waiting
seen.watching = observed.watching;                              // the box came near once: no need to watch it
await wait(2100);
seen.away = asked.length;                                       // pushed away: still asked until drawn
stop();
await wait(2100);
seen.gone = asked.length;                                       // the section drawn: never again
seen.asked = asked[0];
console.log(JSON.stringify(seen));
"""


def test_a_waiting_section_is_asked_for_once_near_and_until_it_is_drawn():
    require_system_packages(nodejs=NODE is not None)
    source = SCRIPT % json.dumps((ROOT / "static/sections.js").as_uri() + "?v=test")
    done = subprocess.run([NODE, "--input-type=module", "-e", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["margin"] == "100% 0px 100% 0px" and seen["target"]  # within one screen above or below
    assert (seen["far"], seen["near"], seen["again"], seen["away"], seen["gone"]) == (0, 1, 2, 3, 3)
    assert seen["watching"] is False and seen["asked"] == ["near", True]
