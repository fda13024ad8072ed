// Following the teacher (class mode) and walking a lesson: what the server asks of this tab, done in the browser.
//
// The server (ui/follow.py) draws this element with at most one instruction, numbered `id` (each is done once):
//   page        go to that page (its url path: "decay", "" for the home page): the address is pushed to the history
//               and announced with a popstate event, so Streamlit's own router opens it as it does on Back or
//               Forward (a page switch the browser asks for, as ui/page_switch.py expects)
//   values      set the tab's store (static/store.js), so the sidebar and every live picture follow at once, then
//               trigger `commit` as the sidebar's release does: the server stores the values and reruns what uses
//               them
//   checkpoint  bring that checkpoint's box into view, once the page has drawn it
// With `keys`, the lesson's keys: → and Page Down trigger `step` +1, ← and Page Up −1 (what a presentation clicker
// sends), unless the key goes to a text field, a slider or another control.
//
// Served from Streamlit's static folder; ui/follow.py's inline loader imports it with the release's version.

const release = new URL(import.meta.url).search;
const store = await import(new URL(`./store.js${release}`, import.meta.url).href);

const done = new Set(); // instruction ids already carried out in this tab
const FIND_FOR_MS = 15000; // how long a checkpoint is looked for after a page switch
let stepSender = null; // the latest lesson element's setTriggerValue, for the keys
let keysWanted = false;

export function render(component) {
  const { data, setTriggerValue } = component;
  keysWanted = Boolean(data.keys);
  if (keysWanted) {
    stepSender = setTriggerValue;
    listenForKeys();
  }
  const order = data.order;
  if (!order || done.has(order.id)) return;
  done.add(order.id);
  if (typeof order.page === "string" && goTo(order.page)) {
    if (order.checkpoint) bringIntoView(order.checkpoint);
    return;
  }
  if (order.values) {
    for (const [name, value] of Object.entries(order.values)) store.set(name, value, "teacher");
    setTriggerValue("commit", { id: order.id });
  }
  if (order.checkpoint) bringIntoView(order.checkpoint);
}

/** The address of page `path` beside this one (the app may live under a folder, e.g. behind a proxy). */
export function pageAddress(location, path) {
  const folder = location.pathname.replace(/[^/]*$/, "");
  return { pathname: folder + path, href: folder + path + location.search };
}

/** Open page `path` through Streamlit's router; false when the tab is on it already. */
function goTo(path) {
  const target = pageAddress(window.location, path);
  if (window.location.pathname === target.pathname) return false;
  window.history.pushState(null, "", target.href);
  window.dispatchEvent(new PopStateEvent("popstate"));
  return true;
}

/** Scroll the checkpoint's box (st.container key "<checkpoint>_box") into view when it is on the page. */
function bringIntoView(checkpoint) {
  const until = Date.now() + FIND_FOR_MS;
  const still = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  const look = () => {
    const box = document.querySelector(`.st-key-${CSS.escape(checkpoint)}_box`);
    if (box) {
      box.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "center" });
      return;
    }
    if (Date.now() < until) setTimeout(look, 250);
  };
  look();
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
