// Words the server computed for the shared values (ui/words.py): a notice that quotes them, a table of numbers, a
// checkpoint question whose choices depend on them. The element draws the newest words of its key in the tab's store
// (static/store.js): its own, sent when its fragment ran, or a commit's, sent with the sidebar's data or a commit's
// answer over HTTP. So a commit needs no rerun of the fragment the words are drawn in.
//
// A question is a fieldset: its legend is the question, each choice a native radio (arrow keys move between them, a
// screen reader hears the question as the group's name), then the "Check" (or "Reveal") button. The button sends the
// pick and the print of the question as shown (`asked`); the server grades it (ui/words.py) and the element's
// fragment reruns with the verdict, announced politely (role="status"). A pick waits while the same question stays;
// new choices clear it.
//
// Served from Streamlit's static folder; ui/words.py's inline loader imports it with the release's version.

const release = new URL(import.meta.url).search;
const helper = (name) => import(new URL(`./${name}${release}`, import.meta.url).href);
const store = await helper("store.js");

const views = new WeakMap(); // parentElement -> its view
// Styles, in the element's own shadow root (Streamlit's look: a bordered box, its alerts' tints, 44 px on touch)
const CSS = `.words { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f); line-height: 1.6; }
.words p { margin: 0 0 1rem; }
.words .caption { font-size: 0.875rem; opacity: 0.72; }
.words code { font-size: 0.85em; padding: 0.1em 0.25em; border-radius: 0.25rem;
              background: color-mix(in srgb, currentColor 8%, transparent); }
.question { border: 1px solid color-mix(in srgb, currentColor 20%, transparent); border-radius: 0.5rem;
            padding: 1rem; margin: 0 0 1rem; }
.question fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
.question legend { padding: 0; margin: 0 0 0.5rem; }
.question label { display: flex; align-items: center; gap: 0.5rem; padding: 0.15rem 0; cursor: pointer; }
.question input[type=radio] { margin: 0; width: 1rem; height: 1rem; accent-color: var(--st-primary-color, #ff4b4b); }
.question button { font: inherit; margin: 0.75rem 0 0; padding: 0.25rem 0.75rem; min-height: 2.5rem;
                   border-radius: 0.5rem; cursor: pointer; color: inherit;
                   border: 1px solid color-mix(in srgb, currentColor 20%, transparent);
                   background: var(--st-background-color, #fff); }
.question button:hover, .question button:focus-visible { border-color: var(--st-primary-color, #ff4b4b);
                                                         color: var(--st-primary-color, #ff4b4b); }
.verdict { margin: 0.75rem 0 0; padding: 1rem; border-radius: 0.5rem; }
.verdict:empty { display: none; }
.verdict.success { background: rgba(33, 195, 84, 0.12); }
.verdict.error { background: rgba(255, 43, 43, 0.1); }
.verdict.warning { background: rgba(255, 227, 18, 0.14); }
.verdict.info { background: rgba(28, 131, 225, 0.1); }
@media (pointer: coarse) {
  .question label { min-height: 44px; }
  .question button { min-height: 44px; min-width: 44px; }
}`;
let names = 0; // a radio group's name, unique in the tab

export function render(component) {
  const { parentElement, setTriggerValue } = component;
  const data = Array.isArray(component.data) ? component.data[0] : component.data; // see ui/component_data.py
  let view = views.get(parentElement);
  if (!view) {
    view = createView(parentElement);
    views.set(parentElement, view);
  }
  view.send = setTriggerValue;
  view.key = data.key;
  store.say(data); // kept unless the store holds newer words (a commit's, sent after this element's run)
  draw(view, store.saidOf(data.key) ?? data);
}

function createView(parent) {
  const style = document.createElement("style");
  style.textContent = CSS;
  const tables = document.createElement("link"); // ui/table.py's tables: the page's own style for them
  Object.assign(tables, { rel: "stylesheet", href: new URL(`./table.css${release}`, import.meta.url).href });
  const root = document.createElement("div");
  root.className = "words";
  parent.append(style, tables, root);
  const view = { root, key: null, send: null, shown: null, nodes: [] };
  const stop = store.onSaid((words) => {
    if (!root.isConnected && view.shown) { stop(); return; } // the element left the page
    if (words.key === view.key) draw(view, words);
  });
  return view;
}

/** Draw `words` ({key, version, parts}), updating the nodes already there so a pick and the focus stay. */
function draw(view, words) {
  if (view.shown === words) return;
  view.shown = words;
  words.parts.forEach((part, i) => {
    let node = view.nodes[i];
    if (!node || node.kind !== part.kind) {
      const fresh = part.kind === "question" ? questionNode(view) : part.kind === "table" ? tableNode() : textNode();
      if (node) node.element.replaceWith(fresh.element);
      else view.root.append(fresh.element);
      node = view.nodes[i] = fresh;
    }
    node.update(part);
  });
  for (const node of view.nodes.splice(words.parts.length)) node.element.remove();
}

function textNode() {
  const element = document.createElement("p");
  return {
    kind: null,
    element,
    update(part) {
      this.kind = part.kind;
      element.className = part.kind === "caption" ? "caption" : "";
      element.replaceChildren(inline(part.text));
    },
  };
}

/** A table as ui/table.py writes it (one line of HTML, every cell escaped on the server). */
function tableNode() {
  const element = document.createElement("div");
  return {
    kind: "table",
    element,
    update(part) {
      if (element.dataset.html !== part.html) element.innerHTML = element.dataset.html = part.html;
    },
  };
}

function questionNode(view) {
  const element = document.createElement("div");
  element.className = "question";
  const fieldset = document.createElement("fieldset");
  const legend = document.createElement("legend");
  const choices = document.createElement("div");
  const button = document.createElement("button");
  button.type = "button";
  const verdict = document.createElement("div");
  verdict.className = "verdict";
  verdict.setAttribute("role", "status");
  fieldset.append(legend, choices);
  element.append(fieldset, button, verdict);
  const name = `words-choice-${++names}`;
  const node = { kind: "question", element, asked: null, part: null };
  button.onclick = () => {
    const picked = choices.querySelector("input:checked");
    const { key, asked } = node.part;
    view.send?.("check", { question: key, pick: picked ? Number(picked.value) : null, asked, at: Date.now() });
  };
  node.update = (part) => {
    node.part = part;
    const lead = document.createElement("strong");
    lead.textContent = part.lead;
    legend.replaceChildren(lead, " ", inline(part.question));
    button.textContent = part.button;
    if (node.asked !== part.asked) { // a new question: its choices, with the pick kept for it on the server
      node.asked = part.asked;
      choices.setAttribute("aria-label", part.label);
      choices.replaceChildren(...part.choices.map((words, i) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        Object.assign(input, { type: "radio", name, value: String(i), checked: part.picked === i });
        label.append(input, inline(words));
        return label;
      }));
    } else if (part.picked !== null && part.picked !== undefined) {
      const input = choices.querySelectorAll("input")[part.picked];
      if (input) input.checked = true;
    }
    verdict.className = `verdict ${part.verdict?.tone ?? ""}`;
    if (!part.verdict) {
      verdict.replaceChildren();
      return;
    }
    verdict.replaceChildren(inline(part.verdict.text)); // its first words say right or not, its colour too
  };
  return node;
}

/** Markdown's **bold**, *italics* and `code` in `text` as nodes (never as HTML: the words are text). */
export function inline(text) {
  const fragment = document.createDocumentFragment();
  for (const [kind, words] of inlineParts(text)) {
    if (kind === "text") {
      fragment.append(words);
    } else {
      const element = document.createElement(kind);
      element.textContent = words;
      fragment.append(element);
    }
  }
  return fragment;
}

/** `text` split into [kind, words]: "text", "strong" (**…**), "em" (*…*) or "code" (`…`), in order. */
export function inlineParts(text) {
  const parts = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]+)`|\*(?![\s*])(.+?)(?<![\s*])\*/g;
  let at = 0;
  for (const match of String(text).matchAll(pattern)) {
    if (match.index > at) parts.push(["text", text.slice(at, match.index)]);
    if (match[1] !== undefined) parts.push(["strong", match[1]]);
    else if (match[2] !== undefined) parts.push(["code", match[2]]);
    else parts.push(["em", match[3]]);
    at = match.index + match[0].length;
  }
  if (at < String(text).length) parts.push(["text", String(text).slice(at)]);
  return parts;
}
