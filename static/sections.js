// Where the page's sections are (ui/sections.py draws each in a container keyed section-<key>, which Streamlit marks
// with the class st-key-section-<key>): which are within a screen of the viewport, so a commit reruns only those on
// the server, and a watch on the stale ones, so each is asked for once it comes within a screen again.
//
// The pictures that follow the store redraw in the browser wherever they are; a stale section waits only for its
// server's part (a checkpoint, a notice, a picture the server draws), and is brought up to date before it is seen.
// A following class's poll reruns only the sections in the viewport (a hundred tabs at once); the stale ones it left
// within a screen ("later") are asked for when they come into view, or LATER_MS later.

const PREFIX = "st-key-section-";
const SCREENS = 1; // a section this many screens above or below the viewport counts as near
const ASK_AFTER_MS = 60; // the stale sections a scroll brings near are asked for together
const ASK_AGAIN_MS = 2000; // a waiting section near the viewport is asked for again after this long
export const LATER_MS = 2000; // a waiting section within a screen of the viewport, not in it, is asked for this late

/** The section key of a container, from its class (undefined for any other element). */
function keyOf(element) {
  for (const name of element.classList) if (name.startsWith(PREFIX)) return name.slice(PREFIX.length);
  return undefined;
}

/** Keys of the page's sections within `screens` screens of the viewport (0: in it), top to bottom (one hidden, as in
 * a closed tab, is not near: it has no size); null without a page (the server then reruns every section that uses a
 * value). */
export function nearSections(screens = SCREENS) {
  if (typeof document === "undefined") return null;
  const height = window.innerHeight || document.documentElement.clientHeight;
  const near = [];
  for (const element of document.querySelectorAll(`[class*="${PREFIX}"]`)) {
    const box = element.getBoundingClientRect();
    const key = keyOf(element);
    if (key && box.height > 0 && box.bottom >= -screens * height && box.top <= (1 + screens) * height) near.push(key);
  }
  return near;
}

/** The key of the section `element` is drawn in (undefined outside every section), out through the shadow root a
 * component may draw in. */
export function sectionOf(element) {
  for (let node = element; node; node = node.getRootNode?.().host) {
    const section = node.closest?.(`[class*="${PREFIX}"]`);
    if (section) return keyOf(section);
  }
  return undefined;
}

let observers = [];
let asking = new Set(); // stale keys near the viewport, to be asked for on the next tick
let asked = new Set(); // stale keys asked for already: not asked again while they stay on the stale list
let timer = 0;
const laterAt = new Map(); // "later" stale key -> when it is asked for even if never seen (Date.now() ms)
let laterTimer = 0;
let lastAsk = null;

/** Watch the sections `stale` (keys) and call `ask(keys)` with those that come within a screen of the viewport, once
 * each while it stays stale; those also in `later` only when they come into the viewport itself, or LATER_MS after
 * they were first listed. A new list replaces the old one (a "later" key listed again keeps its time). */
export function watchStale(stale, ask, later = []) {
  const wanted = new Set(stale);
  const soon = new Set(later.filter((key) => wanted.has(key)));
  asked = new Set([...asked].filter((key) => wanted.has(key)));
  observers.forEach((observer) => observer.disconnect());
  observers = [];
  asking = new Set();
  lastAsk = ask;
  for (const key of [...laterAt.keys()]) if (!soon.has(key) || asked.has(key)) laterAt.delete(key);
  for (const key of soon) if (!asked.has(key) && !laterAt.has(key)) laterAt.set(key, Date.now() + LATER_MS);
  planLater();
  if (!wanted.size) return;
  const seen = (entries) => {
    for (const entry of entries) {
      const key = keyOf(entry.target);
      if (entry.isIntersecting && key && !asked.has(key)) asking.add(key);
    }
    if (asking.size && !timer) timer = setTimeout(askNow, ASK_AFTER_MS);
  };
  const screens = new IntersectionObserver(seen, { rootMargin: `${SCREENS * 100}% 0px ${SCREENS * 100}% 0px` });
  const inView = new IntersectionObserver(seen);
  observers = [screens, inView];
  for (const key of wanted) {
    const element = document.querySelector(`.${PREFIX}${CSS.escape(key)}`);
    if (element) (soon.has(key) ? inView : screens).observe(element);
  }
}

/** Ask for the stale keys seen near (and the "later" ones whose time has come) together, each once. */
function askNow() {
  timer = 0;
  const keys = [...asking].filter((key) => !asked.has(key));
  asking = new Set();
  keys.forEach((key) => { asked.add(key); laterAt.delete(key); });
  if (keys.length && lastAsk) lastAsk(keys);
  planLater();
}

/** Time the next "later" ask: the keys due by then join `asking`. */
function planLater() {
  clearTimeout(laterTimer);
  laterTimer = 0;
  if (!laterAt.size) return;
  const due = Math.min(...laterAt.values());
  laterTimer = setTimeout(() => {
    laterTimer = 0;
    const now = Date.now();
    for (const [key, at] of [...laterAt]) {
      if (asked.has(key)) laterAt.delete(key);
      else if (at <= now) asking.add(key);
    }
    if (asking.size) askNow();
    else planLater();
  }, Math.max(0, due - Date.now()));
}

/** The element of a deferred section (ui/sections.py draws it in the section's box while the section waits): ask
 * for the section at once when the box is in the viewport, LATER_MS after it came within a screen of it (a class's
 * page step draws the top of the page first; what is out of sight comes after the crowd, unless it is scrolled to
 * first), and again every ASK_AGAIN_MS until it is drawn, even if the sections above it, drawn meanwhile, have
 * pushed it farther down (a trigger sent while the page is busy with other runs can be lost). The trigger reruns the
 * section's fragment, which draws the section in the box's place and so ends this element. Returns what stops it. */
export function watchDeferred(component) {
  const { parentElement, setTriggerValue } = component;
  const box = parentElement instanceof Element ? parentElement : parentElement.host;
  let timer = 0;
  let later = 0;
  const watches = [];
  const ask = () => {
    clearTimeout(later);
    watches.forEach((watch) => watch.disconnect());
    setTriggerValue("near", true);
    timer = setTimeout(ask, ASK_AGAIN_MS);
  };
  if (!box || typeof IntersectionObserver === "undefined") {
    ask();
    return () => clearTimeout(timer);
  }
  const seen = (entries) => entries.some((entry) => entry.isIntersecting);
  watches.push(new IntersectionObserver((entries) => { // in the viewport: now
    if (!timer && seen(entries)) ask();
  }));
  watches.push(new IntersectionObserver((entries) => { // within a screen of it: a little later
    if (!timer && !later && seen(entries)) later = setTimeout(ask, LATER_MS);
  }, { rootMargin: `${SCREENS * 100}% 0px ${SCREENS * 100}% 0px` }));
  watches.forEach((watch) => watch.observe(box));
  return () => {
    watches.forEach((watch) => watch.disconnect());
    clearTimeout(timer);
    clearTimeout(later);
  };
}
