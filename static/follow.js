// Following the teacher (class mode) and walking a lesson: what the server asks of this tab, done in the browser.
//
// The server (ui/follow.py) draws this element with at most one instruction, numbered `id` (each is done once):
//   page        go to that page (its url path: "decay", "" for the home page): the address is pushed to the history
//               and announced with a popstate event, so Streamlit's own router opens it as it does on Back or
//               Forward (a page switch the browser asks for, as ui/page_switch.py expects)
//   values      set the tab's store (static/store.js), so the sidebar and every live picture follow at once, then,
//               unless `stored` (the line's rerun stored them and reran what uses them in the same pass: the usual
//               case, a poll), trigger `commit` as the sidebar's release does: the server stores the values and
//               reruns what uses them
//   checkpoint  bring that checkpoint's box into view, once the page has drawn it; with `section` (the key of the
//               section it is in), while the box is not there, that section's box: a section the page step left
//               waiting (ui/sections.py) is asked for when it comes near, and then draws the checkpoint
// While following, a poll whose view is on this page with other values sets the store at once (teacherValues), so
// the pictures follow the teacher within one poll, before the line's rerun stores the values on the server; a poll
// whose new view is on another page opens that page at once (teacherPage), and the page's run takes the view.
// With `watch` ({code, browser, mode, seen, following}: a student's follow line), the tab's heartbeat says `mode`
// (static/class_poll.js) and, while following, the line's fragment is rerun (trigger `poll`) when the class's view
// number is not `seen` (the one the server last acted on), or when this tab's page or values still differ from the
// view's after AGAIN_MS (an instruction lost in a reconnect); after ASKS_BEFORE_PAGE_RUN unanswered asks for one view,
// the tab asks for a run of the whole page instead (nextAsk). Nothing else reruns it: no timer on the server.
// With `keys`, the lesson's keys: → and Page Down trigger `step` +1, ← and Page Up −1 (what a presentation clicker
// sends), unless the key goes to a text field, a slider or another control.
//
// Served from Streamlit's static folder; ui/follow.py's inline loader imports it with the release's version.

const release = new URL(import.meta.url).search;
const store = await import(new URL(`./store.js${release}`, import.meta.url).href);
const poller = await import(new URL(`./class_poll.js${release}`, import.meta.url).href);
const sections = await import(new URL(`./sections.js${release}`, import.meta.url).href); // near the viewport

const done = new Set(); // instruction ids already carried out in this tab
const FIND_FOR_MS = 15000; // how long a checkpoint is looked for after a page switch
let stepSender = null; // the latest lesson element's setTriggerValue, for the keys
let keysWanted = false;
export const AGAIN_MS = 3000; // ui/follow.py's AGAIN_S: a tab still not on the view is rerun after this long
export const ASKS_BEFORE_PAGE_RUN = 2; // the line's rerun asked this often for one view with no answer: a page run
const follow = { seen: null, following: false, send: null, askedFor: null, askedAt: 0, differsSince: null,
  ownMove: false, tries: 0 };
// A value the student moved (a control's own set, not the server's or the teacher's) since the line last drew: the
// teacher's values are not put over it while the commit that makes the student explore is on its way.
store.subscribe((name, value, from) => { if (typeof from !== "string") follow.ownMove = true; });

export function render(component) {
  const { setTriggerValue } = component;
  const data = Array.isArray(component.data) ? component.data[0] : component.data; // see ui/component_data.py
  const stop = data.watch ? watchTheClass(data.watch, setTriggerValue) : undefined;
  keysWanted = Boolean(data.keys);
  if (keysWanted) {
    stepSender = setTriggerValue;
    listenForKeys();
  }
  const order = data.order;
  if (!order || done.has(order.id)) return stop;
  done.add(order.id);
  if (typeof order.page === "string" && openPage(order.page)) {
    if (order.checkpoint) bringIntoView(order.checkpoint, order.section);
    return stop;
  }
  if (order.values) {
    for (const [name, value] of Object.entries(order.values)) store.set(name, value, "teacher");
    if (!order.stored) setTriggerValue("commit", { id: order.id, near: sections.nearSections() });
  }
  if (order.checkpoint) bringIntoView(order.checkpoint, order.section);
  return stop;
}

/** Poll the class for the follow line (its heartbeat, and its rerun when the tab is behind the teacher). */
function watchTheClass(watch, setTriggerValue) {
  follow.seen = watch.seen;
  follow.following = Boolean(watch.following);
  follow.send = setTriggerValue;
  follow.differsSince = null;
  follow.ownMove = false;
  follow.tries = 0; // the line drew: its rerun came back
  const beat = poller.setBeat({ code: watch.code, browser: watch.browser, mode: watch.mode });
  const stop = poller.watch("follow", watch.code, null, (answer) => {
    if (answer.over) return poller.clearBeat(beat);
    const now = Date.now();
    const page = teacherPage(answer, follow, window.location, now);
    if (page !== null) { // the teacher's page: opened at once; its run takes the class's view (ui/follow.py)
      follow.askedFor = answer.view;
      follow.askedAt = now;
      goTo(page);
      return true;
    }
    const why = followReason(answer, follow, window.location, store.get, now);
    const values = follow.ownMove ? null : teacherValues(answer, follow, window.location, store.get);
    for (const [name, value] of Object.entries(values || {})) store.set(name, value, "teacher");
    if (!why) return false;
    if (nextAsk(follow, answer.view, now) === "page") { // asks the server never answered: the whole page, drawn anew
      poller.rerunPage();
      return true;
    }
    // the server reruns the sections in view; those within a screen, out of view, follow a little later
    follow.send("poll", { view: answer.view, why, near: sections.nearSections(), visible: sections.nearSections(0) });
    return true; // rerunning: the boards wait for the next poll
  });
  return () => {
    stop();
    poller.clearBeat(beat);
  };
}

/** Why the follow line must rerun now ("view": a new view; "behind": this tab's page or values still differ from
 * the view's after AGAIN_MS), or null. `state` is the line's ({seen, following, askedFor, askedAt, differsSince});
 * `differsSince` is kept up to date here. */
export function followReason(answer, state, location, valueOf, now) {
  if (!state.following || typeof answer.view !== "number") return null;
  const askedAgain = state.askedFor === answer.view && now - state.askedAt < AGAIN_MS;
  if (answer.view !== state.seen) return askedAgain ? null : "view";
  const here = location.pathname.replace(/^.*\//, "");
  const values = Object.entries(answer.settings || {});
  const differs = (typeof answer.page === "string" && answer.page !== here) ||
    values.some(([name, value]) => valueOf(name) !== undefined && valueOf(name) !== value);
  if (!differs) {
    state.differsSince = null;
    return null;
  }
  if (state.differsSince === null) state.differsSince = now;
  if (now - state.differsSince < AGAIN_MS || now - state.askedAt < AGAIN_MS) return null;
  return "behind";
}

/** Note an ask for the follow line's rerun for the class's view `view` at `now` (in `state`: askedFor, askedAt,
 * tries); returns "poll" (send the trigger), or "page" when the asks for this view since the line last drew went
 * unanswered ASKS_BEFORE_PAGE_RUN times: a fragment rerun the server dropped (seen once on a loaded machine after a
 * replica restarted: a tab asked every AGAIN_MS and nothing came back) is not asked for again; a run of the whole
 * page draws the line anew, and that run takes the class's view (ui/follow.py). */
export function nextAsk(state, view, now) {
  state.tries = state.askedFor === view ? state.tries + 1 : 1;
  state.askedFor = view;
  state.askedAt = now;
  if (state.tries <= ASKS_BEFORE_PAGE_RUN) return "poll";
  state.tries = 0;
  return "page";
}

/** The page to open at once, or null: while following (and the student has moved nothing since the line drew), a
 * new view of the class on another page than this tab's. The tab opens it through the router without waiting for
 * the follow line's rerun; the page's run reads the class's view itself and takes the teacher's values
 * (ui/follow.py's join_teacher_page), so a page step costs each student one script run, not two. */
export function teacherPage(answer, state, location, now) {
  if (!state.following || state.ownMove || typeof answer.view !== "number" || typeof answer.page !== "string") {
    return null;
  }
  if (answer.view === state.seen || (state.askedFor === answer.view && now - state.askedAt < AGAIN_MS)) return null;
  return answer.page !== location.pathname.replace(/^.*\//, "") ? answer.page : null;
}

/** The teacher's values this tab should show at once, or null: while following, when the class's view is on the
 * page this tab shows and some of its values differ from the store's. Setting the store redraws every picture that
 * follows it on the next frame, before the line's rerun (which stores them on the server and reruns the words that
 * quote them) comes back; nothing is committed from here. */
export function teacherValues(answer, state, location, valueOf) {
  if (!state.following || typeof answer.page !== "string" || !answer.settings) return null;
  if (answer.page !== location.pathname.replace(/^.*\//, "")) return null;
  const differ = Object.entries(answer.settings).filter(([name, value]) =>
    typeof value === "number" && Number.isFinite(value) && valueOf(name) !== undefined && valueOf(name) !== value);
  return differ.length ? Object.fromEntries(differ) : null;
}

/** The address of page `path` beside this one (the app may live under a folder, e.g. behind a proxy). */
export function pageAddress(location, path) {
  const folder = location.pathname.replace(/[^/]*$/, "");
  return { pathname: folder + path, href: folder + path + location.search };
}

/** Open page `path` (goTo), and open it again when the tab is back on the page it left within BOUNCE_MS (see
 * untilTheirs): a script run of that page still under way, or a rerun its timer asked for, can be served after the
 * switch and take the address back with it. False when the tab is on `path` already. */
function openPage(path) {
  const from = window.location.pathname;
  if (!goTo(path)) return false;
  untilTheirs(() => {
    if (window.location.pathname === from) goTo(path);
    return false; // checked to the end: a late run can take it back too
  }, Date.now() + BOUNCE_MS, BOUNCE_EVERY_MS, BOUNCE_EVERY_MS);
  return true;
}

/** Open page `path` through Streamlit's router; false when the tab is on it already. */
function goTo(path) {
  const target = pageAddress(window.location, path);
  if (window.location.pathname === target.pathname) return false;
  window.history.pushState(null, "", target.href);
  window.dispatchEvent(new PopStateEvent("popstate"));
  return true;
}

/** Scroll the checkpoint's box (st.container key "<checkpoint>_box") into view when it is on the page; until it is,
 * the box of its section (container key "section-<section>"), once, so a section still waiting is asked for. Once
 * found, the box is kept in view while the page above it is still drawn (pictures and sections that arrive later
 * push it down), until the student scrolls, touches or presses a key. */
function bringIntoView(checkpoint, section) {
  const until = Date.now() + FIND_FOR_MS;
  const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  const selector = `.st-key-${CSS.escape(checkpoint)}_box`;
  let near = false;
  const look = () => {
    const box = document.querySelector(selector);
    if (box) {
      box.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "center" });
      keepInView(selector, Date.now() + FIND_FOR_MS);
      return;
    }
    const waiting = section && !near && document.querySelector(`.st-key-section-${CSS.escape(section)}`);
    if (waiting) {
      near = true;
      waiting.scrollIntoView({ behavior: "auto", block: "start" });
    }
    if (Date.now() < until) setTimeout(look, 250);
  };
  look();
}

const KEEP_EVERY_MS = 250;
const SMOOTH_MS = 1000; // a smooth scroll's time to arrive, before the box is checked
const BOUNCE_MS = 10000; // how long a page step checks that the tab stays on the page it opened
const BOUNCE_EVERY_MS = 1000;

/** Call `check()` every `every` ms from `first` ms on, until it returns true, the time `until`, or the student's own
 * first scroll, touch or key: whatever they do is theirs. */
function untilTheirs(check, until, first, every) {
  let theirs = false;
  const kinds = ["wheel", "touchstart", "keydown", "pointerdown"];
  const mine = () => { theirs = true; };
  for (const kind of kinds) window.addEventListener(kind, mine, { capture: true, passive: true });
  const step = () => {
    if (theirs || check() || Date.now() >= until) {
      for (const kind of kinds) window.removeEventListener(kind, mine, { capture: true });
    } else {
      setTimeout(step, every);
    }
  };
  setTimeout(step, first);
}

/** Scroll the element `selector` names back into view whenever it has left it (see untilTheirs). */
function keepInView(selector, until) {
  untilTheirs(() => {
    const box = document.querySelector(selector);
    if (box && !inView(box.getBoundingClientRect(), window.innerHeight)) {
      box.scrollIntoView({ behavior: "auto", block: "center" });
    }
    return false;
  }, until, SMOOTH_MS, KEEP_EVERY_MS);
}

/** Whether a box (its client rectangle) shows at least in part in a viewport `height` tall. */
export function inView(rect, height) {
  return rect.height > 0 && rect.bottom > 0 && rect.top < height;
}

let listening = false;

function listenForKeys() {
  if (listening) return;
  listening = true;
  document.addEventListener("keydown", (event) => {
    if (!keysWanted || !stepSender || event.defaultPrevented) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const by = { ArrowRight: 1, PageDown: 1, ArrowLeft: -1, PageUp: -1 }[event.key];
    if (!by || busyTarget(event)) return;
    event.preventDefault();
    stepSender("step", { by, at: Date.now() });
  });
}

/** Whether the key belongs to the control that has the focus (inside a component's shadow root too). */
export function busyTarget(event) {
  const target = (event.composedPath ? event.composedPath()[0] : event.target) || {};
  const tag = (target.tagName || "").toLowerCase();
  if (["input", "textarea", "select"].includes(tag) || target.isContentEditable) return true;
  const role = target.getAttribute?.("role") || "";
  return ["slider", "textbox", "combobox", "listbox", "radio", "tab", "spinbutton"].includes(role);
}
