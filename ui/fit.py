"""Display formulas that fit the column, in every language and at every window size (issue 17).

KaTeX draws a display formula on one line at a fixed size, so on a 1024-px projector with the sidebar open (a main
column of ~535 px) most of the app's formulas were cut at the right. A formula's width depends on the language of
its words and on the window, so no size chosen in Python fits everywhere. This component, placed once per run by
``navigation.py``, installs one small script per browser tab: whenever the page changes or the window is resized,
each display formula wider than its column is set in a smaller font until it fits (never below
:data:`SMALLEST_SCALE` of its size); one that still does not fit scrolls sideways instead of being cut. The
component takes no space: it hides its own empty element.
"""

from __future__ import annotations

import streamlit as st

SMALLEST_SCALE = 0.6  # below 60 % of KaTeX's size a formula is no longer readable from the back of a room

FIT_JS = """
export default function (component) {
  const host = component.parentElement.getRootNode().host || component.parentElement;
  const container = host.closest('[data-testid="stElementContainer"]');
  if (container) container.style.display = "none";  // an empty element: no gap in the page
  if (window.__posencFitFormulas) return;  // once per browser tab: the page is a single-page app
  window.__posencFitFormulas = true;
  const smallest = __SMALLEST__;
  const style = document.createElement("style");  // the last resort: scroll sideways, never cut
  style.textContent = ".katex-display { overflow-x: auto; overflow-y: hidden; }";
  document.head.appendChild(style);

  function fit(display) {
    const formula = display.querySelector(":scope > .katex");
    if (!formula) return;
    formula.style.fontSize = "";  // KaTeX's own size (1.21em), then shrink only what does not fit
    const room = display.clientWidth;
    if (room === 0) return;  // hidden (a closed expander): fitted when it opens and the page changes
    let scale = 1;
    for (let step = 0; step < 4 && formula.scrollWidth > room + 1 && scale > smallest; step++) {
      scale = Math.max(smallest, scale * (room / formula.scrollWidth) * 0.99);
      formula.style.fontSize = (1.21 * scale).toFixed(3) + "em";
    }
  }

  let pending = false;
  let watched = null;
  const resized = new ResizeObserver(() => soon());  // the sidebar opened or closed: the column changed width
  function fitAll() {
    pending = false;
    const column = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (column && column !== watched) {
      if (watched) resized.unobserve(watched);
      resized.observe(column);
      watched = column;
    }
    document.querySelectorAll(".katex-display").forEach(fit);
  }
  function soon() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(fitAll);
    }
  }
  new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", soon);
  document.fonts.addEventListener("loadingdone", soon);  // KaTeX's fonts arrive after the first layout
  document.fonts.ready.then(soon);
  soon();
}
""".replace("__SMALLEST__", str(SMALLEST_SCALE))

_FIT = st.components.v2.component("posenc_lab_fit_formulas", js=FIT_JS)


def fit_formulas_to_column() -> None:
    """Install (once per browser tab) the script that fits every display formula to its column."""
    _FIT(key="posenc_lab_fit_formulas")
