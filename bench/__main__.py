"""``python -m bench [--quick]``: every performance figure of issue 5 beside its budget, PASS or FAIL.

Run it on an otherwise idle machine: other processes on the same cores make every figure larger.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import time

import torch

from bench.browser import browser_rows
from bench.page_rows import page_rows
from bench.posenc_cases import posenc_rows
from bench.report import failures, markdown_table, text_table
from bench.reruns import __doc__ as RERUN_NOTE
from bench.toy_cases import toy_rows

BROWSER_NOTE = (
    "a fresh `streamlit run app.py` and headless Chromium (`python -m bench.browser`). First page: from the server "
    "being up (its script health check passed, as the hosted set-up waits for) to every chart of the home page drawn; "
    "on a cold server, from its first health answer (the first visitor's run imports torch). "
    "Slider: from the mouse release to the first frame showing every chart of that section redrawn with new data."
)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="one widget per page, 3 reruns, 5 repeats, 2 browser moves (< 1 min)"
    )
    parser.add_argument("--pages", metavar="TEXT", help="only pages whose path contains TEXT (e.g. rope)")
    parser.add_argument("--no-pages", action="store_true", help="skip the AppTest page reruns")
    parser.add_argument("--no-posenc", action="store_true", help="skip the posenc and toy-model timings")
    parser.add_argument("--no-browser", action="store_true", help="skip the headless Chromium timings")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the server uses 1; default 1)")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown (for the README)")
    parser.add_argument("--strict", action="store_true", help="exit with status 1 if any figure is over budget")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    for name in ("streamlit", "streamlit.runtime.scriptrunner_utils.script_run_context"):
        logging.getLogger(name).setLevel(logging.ERROR)  # AppTest's "missing ScriptRunContext" chatter
    started = time.perf_counter()
    rows = []
    if not args.no_posenc:
        rows += posenc_rows(repeats=5 if args.quick else 15)
        rows += toy_rows(count=5 if args.quick else 15)
    if not args.no_pages:
        rows += page_rows(quick=args.quick, count=4 if args.quick else 7, only=args.pages)
    if not args.no_browser:
        rows += browser_rows(moves=2 if args.quick else 8, only=args.pages)
        from bench.phone import PAGES as PHONE_PAGES
        from bench.phone import phone_rows

        phone_pages = tuple(path for path in PHONE_PAGES if not args.pages or args.pages in f"pages/{path}.py")
        rows += phone_rows(phone_pages, steps=10 if args.quick else 30)
    print(markdown_table(rows) if args.markdown else text_table(rows))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\n{'quick' if args.quick else 'full'} run in {time.perf_counter() - started:.0f} s on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, torch threads {args.threads}, load average {load:.1f} at the end. Times are medians."
    )
    if not args.no_pages:
        print("Rerun times:", " ".join(RERUN_NOTE.split()))
    if not args.no_browser:
        print(f"Browser times: {BROWSER_NOTE}")
    failed = failures(rows)
    print(f"{len(failed)} figure(s) over budget." if failed else "Every figure is within its budget.")
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
