"""``python -m bench.shared_reruns``: what one shared-control rerun costs on each topic page, in-process (AppTest).

For each page with shared controls, one session moves a shared sidebar control (base, dim, length, heads) to a value
of its own (``own``: drawn at random over the control's range, so its pictures are new), to one of the teacher's
values (``teacher``: ``bench.scenarios.TEACHER``, each visited once before the timed moves, so they are cached), or
back and forth between two values seen before (``cached``), and reports per page the process CPU time per rerun
(``time.process_time``: the script thread and AppTest's own work, not other processes on the machine) and the
bytes of chart data the browser would not have yet (each Plotly spec or live chart's JSON that differs from every
one the session was sent before). ``--profile FILE`` writes a pyinstrument profile (HTML) of the timed moves of
every page's script thread (``pip install pyinstrument``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import logging
import random
import statistics
import time

import torch

from bench.reruns import open_page
from bench.scenarios import TEACHER
from ui.limits import LIMITS

PAGES = {  # path -> the shared controls its sidebar shows
    "pages/sinusoidal.py": ("base", "dim", "length"),
    "pages/relative.py": ("length", "heads"),
    "pages/rope.py": ("base", "dim"),
    "pages/decay.py": ("base", "dim"),
    "pages/inference.py": ("base", "dim"),
    "pages/relative_scores.py": ("base", "dim", "length"),
    "pages/rope_practice.py": ("base", "dim"),
}


def own_value(name: str, rng: random.Random):
    if name == "base":
        return rng.choice(LIMITS.base_options)
    low, high = getattr(LIMITS, f"{name}_min"), getattr(LIMITS, f"{name}_max")
    step = LIMITS.dim_step if name == "dim" else 1
    return low + step * rng.randint(0, (high - low) // step)


def sent(at) -> set[bytes]:
    """The chart payloads of the last run (figures' and live charts' data as sent)."""
    return {e.proto.bytes or e.proto.json.encode() for e in at.get("bidi_component")}


@contextlib.contextmanager
def profiled(profiler):
    """Profile the script thread's runs (AppTest runs the script in a thread of its own; pyinstrument samples the
    thread it was started in), adding every run to ``profiler``'s session."""
    if profiler is None:
        yield
        return
    from streamlit.runtime.scriptrunner import script_runner

    original = script_runner.exec_func_with_error_handling

    def run(*args, **kwargs):
        profiler.start()
        try:
            return original(*args, **kwargs)
        finally:
            profiler.stop()

    script_runner.exec_func_with_error_handling = run
    try:
        yield
    finally:
        script_runner.exec_func_with_error_handling = original


def moves(path: str, names: tuple[str, ...], kind: str, count: int, seed: int, profiler=None):
    """(CPU ms per rerun, new kB per rerun) of ``count`` moves of the page's shared controls."""
    rng = random.Random(seed)
    at = open_page(path)
    seen = sent(at)

    def move() -> tuple[float, float]:
        name = rng.choice(names)
        if kind == "cached":  # back and forth between two values seen before: every picture is cached
            name, value = names[0], TEACHER[names[0]][next(turns) % 2]
        else:
            value = own_value(name, rng) if kind == "own" else rng.choice(TEACHER[name])
        at.session_state["shared_commit"] = {name: float(value) if name == "base" else int(value)}
        cpu = time.process_time()
        at.run()
        cpu = time.process_time() - cpu
        if at.exception:
            raise RuntimeError(f"{path} {name}={value}: {at.exception[0].message}")
        payloads = sent(at)
        fresh = sum(len(p) for p in payloads - seen)
        seen.update(payloads)
        return 1000 * cpu, fresh / 1000

    results: list = []
    turns = itertools.count()
    if kind == "teacher":  # every teacher value once: cached before the timed moves
        for name in names:
            for _ in range(2 * len(TEACHER[name])):
                move()
    if kind == "cached":
        results += [move(), move()]
    with profiled(profiler):
        results += [move() for _ in range(count)]
    results = results[2:] if kind == "cached" else results
    return [r[0] for r in results], [r[1] for r in results]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shared_reruns", description=__doc__)
    parser.add_argument("--count", type=int, default=12, help="timed moves per page and kind (default 12)")
    parser.add_argument("--pages", help="only pages whose path contains this text")
    parser.add_argument("--kinds", nargs="+", default=["own", "teacher"], choices=["own", "teacher", "cached"])
    parser.add_argument("--profile", help="write a pyinstrument HTML profile of the moves here")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for name in ("streamlit", "streamlit.runtime.scriptrunner_utils.script_run_context"):
        logging.getLogger(name).setLevel(logging.ERROR)
    profiler = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(async_mode="disabled")
    print(f"{'page':<26} {'kind':<8} {'CPU ms median':>13} {'mean':>7} {'max':>7} {'new kB mean':>11} {'max':>7}")
    for path, names in PAGES.items():
        if args.pages and args.pages not in path:
            continue
        for kind in args.kinds:
            cpu, kb = moves(path, names, kind, args.count, args.seed, profiler)
            print(
                f"{path:<26} {kind:<8} {statistics.median(cpu):>13.1f} {statistics.mean(cpu):>7.1f} "
                f"{max(cpu):>7.1f} {statistics.mean(kb):>11.1f} {max(kb):>7.1f}"
            )
    if profiler:
        with open(args.profile, "w") as out:
            out.write(profiler.output_html())
        print(profiler.output_text(unicode=False, color=False, show_all=False)[:20000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
