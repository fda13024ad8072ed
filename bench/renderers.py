"""``python -m bench.renderers``: the lab's own renderer (static/live.js) against Observable Plot on the heaviest
figure a student drags, PE·PEᵀ (issue 35: "measure live.js against at least one well-kept library").

The figure: PE·PEᵀ at length 512, 512 × 512 cells, while its dim is dragged over 60 steps from 1024 down (each step
a new matrix). Both renderers get the same matrices from the same twin (``static/twins.js``
``sinusoidDotByOffset``, held to posenc), and draw the same things at the same size (704 × 520 px): the cells in a
diverging colour scale with fixed limits ±D/2, both axes with ticks and titles, a title, a colour legend.

- **the lab**: the live chart itself (``static/live.js``, given the data ``charts.sinusoidal.live_similarity`` sends),
  its own dim slider moved one step a frame, as ``bench.live`` drags it;
- **Observable Plot** 0.6.17 (``bench/vendor/``, with d3 7.9.2, ISC licences; used here only, never shipped):
  ``Plot.plot`` with a ``Plot.raster`` of the same cells (its documented form for a flat row-major grid), redrawn a
  step a frame.

Measured in Chromium, in the page's clock: the script work of each drag frame (the `input` handlers plus every
``requestAnimationFrame`` callback of the frame), median and slowest, at full speed and under the 4× CPU throttle of
``bench.phone`` (a student's phone); and the code each renderer needs, as files. The browser's own style, layout and
paint after the scripts are not in it (for Plot, whose raster is an image inside its SVG, part of its cost is there).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import statistics
import tempfile
import threading
from pathlib import Path

from bench.browser import in_chromium
from bench.budgets import LIVE_FRAME_MS, PHONE_FRAME_MS, Row
from bench.report import markdown_table, text_table

ROOT = Path(__file__).resolve().parents[1]
VENDOR = Path(__file__).resolve().parent / "vendor"
LENGTH, DIM, BASE, STEPS = 512, 1024, 10000.0, 60
WIDTH, HEIGHT = 704, 520
LAB_FILES = ("live.js", "draw.js", "twins.js", "store.js", "packed.js")  # what the live chart imports
PLOT_FILES = ("plot.umd.min.js", "d3.min.js")

PAGE = """<!doctype html><meta charset="utf-8"><style>body { margin: 0; font: 13px sans-serif; }
#chart { width: %(width)dpx; }</style><div id="chart"></div>
<script src="vendor/d3.min.js"></script><script src="vendor/plot.umd.min.js"></script>
<script>
  // every requestAnimationFrame callback timed, summed in window.__work (ms)
  window.__work = 0;
  const frame = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => frame((at) => {
    const start = performance.now();
    try { callback(at); } finally { window.__work += performance.now() - start; }
  });
</script>"""

# Per step: the input handlers (synchronous) plus the frame's callbacks; `move(k)` starts step k.
STEP_LOOP_JS = """async (move, steps) => {
  const next = () => new Promise((resolve) => frame(resolve));
  const frame = window.requestAnimationFrame;
  const work = [];
  for (let k = 1; k <= steps; k++) {
    const before = window.__work, start = performance.now();
    move(k);
    const handlers = performance.now() - start;
    await next(); await next();
    work.push(handlers + window.__work - before);
  }
  return work;
}"""

LAB_JS = (
    """async ([data, steps]) => {
  const live = await import("./static/live.js?v=bench");
  const parent = document.getElementById("chart");
  live.render({ parentElement: parent, data: [data], setTriggerValue() {}, setStateValue() {} });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const input = parent.querySelector("input[name=dim]");
  const state = parent.querySelector("canvas").posencLive;
  const from = Number(input.value), low = Number(input.min);
  const dims = [];
  const move = (k) => {
    input.value = Math.round(from - (from - low) * 0.5 * k / steps);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const loop = """
    + STEP_LOOP_JS
    + """;
  const work = await loop((k) => { move(k); dims.push(Number(input.value)); }, steps);
  return { work, dims, draws: state.draws };
}"""
)

PLOT_JS = (
    """async ([dims, length, base, width, height]) => {
  const twins = await import("./static/twins.js?v=bench");
  const parent = document.getElementById("chart");
  const n = Math.min(length, 512), stride = Math.ceil(length / n);
  const offsets = Array.from({ length: n }, (_, j) => j * stride);
  let step = -1;
  const draw = () => {
    const dim = dims[step];
    const sums = twins.sinusoidDotByOffset(offsets, dim, base);
    const cells = new Float64Array(n * n);
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) cells[r * n + c] = sums[Math.abs(r - c)];
    const chart = Plot.plot({
      width, height, title: `PE·PEᵀ (dim ${dim}, base ${base})`,
      x: { label: "position q", domain: [0, length] }, y: { label: "position p", domain: [length, 0] },
      color: { type: "linear", scheme: "RdBu", domain: [-dim / 2, dim / 2], legend: true },
      marks: [Plot.raster(cells, { width: n, height: n, x1: 0, x2: length, y1: 0, y2: length })],
    });
    parent.replaceChildren(chart);
  };
  const loop = """
    + STEP_LOOP_JS
    + """;
  const work = await loop((k) => { step = k - 1; requestAnimationFrame(draw); }, dims.length);
  return { work, drawn: parent.querySelectorAll("image").length };
}"""
)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve(folder: Path):
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _files_kb(folder: Path, names: tuple[str, ...]) -> float:
    return sum((folder / name).stat().st_size for name in names) / 1000


def measure(browser, steps: int = STEPS, throttles: tuple[int, ...] = (1, 4)) -> list[Row]:
    """Both renderers over ``steps`` drag steps at each CPU throttle (1: full speed), in fresh pages of ``browser``."""
    from charts.sinusoidal import live_similarity

    data = json.loads(json.dumps(live_similarity(LENGTH, DIM, BASE, "en")))
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        shutil.copytree(ROOT / "static", folder / "static")
        shutil.copytree(VENDOR, folder / "vendor")
        (folder / "index.html").write_text(PAGE % {"width": WIDTH})
        server = _serve(folder)
        rows: list[Row] = []
        try:
            for throttle in throttles:
                context = browser.new_context(viewport={"width": 1024, "height": 768})
                try:
                    page = context.new_page()
                    cdp = context.new_cdp_session(page)
                    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
                    page.goto(url)
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
                    lab = page.evaluate(LAB_JS, [data, steps])
                    page.goto(url)
                    cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
                    plot = page.evaluate(PLOT_JS, [lab["dims"], LENGTH, BASE, WIDTH, HEIGHT])
                finally:
                    context.close()
                where = "full speed" if throttle == 1 else f"{throttle}× CPU throttle (a phone)"
                budget = LIVE_FRAME_MS if throttle == 1 else PHONE_FRAME_MS
                dims = f"dim {lab['dims'][0]} → {lab['dims'][-1]}"
                for name, seen, note in (
                    ("the lab's live.js", lab, f"{lab['draws']} pictures drawn"),
                    ("Observable Plot 0.6.17", plot, f"{plot['drawn']} raster image in its SVG"),
                ):
                    work = seen["work"][1:]  # the first frame also builds the chart
                    rows.append(Row(f"renderers: PE·PEᵀ 512 × 512 drag frame, {name}, {where}", statistics.median(work),
                                    "ms", budget, f"median of {len(work)} steps ({dims}), slowest {max(work):.1f} ms; "
                                    f"{note}"))  # fmt: skip
        finally:
            server.shutdown()
    rows.append(Row("renderers: code the lab's live chart loads", _files_kb(ROOT / "static", LAB_FILES), "kB", None,
                    "static/" + ", ".join(LAB_FILES) + " (uncompressed)"))  # fmt: skip
    rows.append(Row("renderers: code Observable Plot needs", _files_kb(VENDOR, PLOT_FILES), "kB", None,
                    ", ".join(PLOT_FILES) + " (minified, uncompressed), before the lab's own views"))  # fmt: skip
    return rows


def renderer_rows(browser=None, steps: int = STEPS, throttles: tuple[int, ...] = (1, 4)) -> list[Row]:
    """The comparison as report rows; one "skipped" row when Chromium is not there."""
    return in_chromium(lambda chromium: measure(chromium, steps, throttles), browser, "renderers", "ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.renderers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    rows = renderer_rows()
    print(markdown_table(rows) if args.markdown else text_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
