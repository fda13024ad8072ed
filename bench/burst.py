"""``python -m bench.burst --students 100 --bursts 3``: a whole class opening the app at the same instant on a
freshly started server, as at the start of a lesson; exits 1 if any student saw an error.

Each burst: every student connects over Streamlit's websocket (``bench.protocol``) and opens the home page; when
all are in, they all open a random topic page at once, then all move one random slider of it at once. A fresh
server is the dangerous case: every lazy, per-process piece of work (imports, catalogs, the code "show the code"
prints, Streamlit's first look at the navigation) is reached by many sessions' threads together. Each of
``--servers`` fresh ``streamlit run app.py`` processes gets ``--bursts`` bursts.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field

from bench.protocol import StreamlitClient
from bench.server import StreamlitServer

MAX_STUDENTS = 300
HOME = ""  # the url path of the default page


@dataclass
class BurstResult:
    """What the students of one burst saw."""

    reruns: int = 0
    errors: Counter = field(default_factory=Counter)


async def one_student(port: int, rng: random.Random, gates: list[asyncio.Barrier], result: BurstResult) -> None:
    client = StreamlitClient(port, timeout=120)

    def record(run) -> None:
        result.reruns += 1
        for error in run.errors:
            result.errors[error[:160]] += 1

    try:
        await client.connect()
        home = await client.rerun()
        record(home)
        topics = [page for path, page in home.pages.items() if path != HOME] or [""]
        await gates[0].wait()  # everyone is in: all open a page together
        page = rng.choice(topics)
        opened = await client.rerun(page)
        record(opened)
        await gates[1].wait()  # everyone has a page: all move a slider together
        sliders = [slider for slider in opened.sliders.values() if not slider.options]  # select sliders: no number
        if sliders:
            slider = rng.choice(sliders)
            record(await client.rerun(page, {slider.element_id: slider.random_value(rng)}, slider.fragment_id))
    except Exception as err:  # a refused or dropped connection is what this tool looks for
        result.errors[f"connection: {type(err).__name__}: {err}"[:160]] += 1
        for gate in gates:  # never leave the others waiting for a student who is gone
            await gate.abort()
    finally:
        await client.close()


async def burst(port: int, students: int, seed: int) -> BurstResult:
    rng = random.Random(seed)
    gates = [asyncio.Barrier(students) for _ in range(2)]
    result = BurstResult()
    seeds = [rng.randrange(2**32) for _ in range(students)]
    await asyncio.gather(*(one_student(port, random.Random(s), gates, result) for s in seeds))
    return result


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.burst", description=__doc__)
    parser.add_argument("--students", type=int, default=100, help=f"students per burst (1–{MAX_STUDENTS})")
    parser.add_argument("--bursts", type=int, default=3, help="bursts per fresh server (1–20)")
    parser.add_argument("--servers", type=int, default=1, help="fresh servers started one after another (1–10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (pages, sliders, values)")
    args = parser.parse_args(argv)
    if not (1 <= args.students <= MAX_STUDENTS and 1 <= args.bursts <= 20 and 1 <= args.servers <= 10):
        parser.error(f"--students must be 1–{MAX_STUDENTS}, --bursts 1–20, --servers 1–10")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    failed = False
    for server_number in range(args.servers):
        with StreamlitServer() as server:
            for number in range(args.bursts):
                seed = args.seed * 1000 + server_number * 100 + number
                result = asyncio.run(burst(server.port, args.students, seed))
                errors = sum(result.errors.values())
                failed |= errors > 0
                print(
                    f"server {server_number + 1}, burst {number + 1}: {args.students} students, "
                    f"{result.reruns} reruns, errors {errors}" + (f": {dict(result.errors)}" if errors else ""),
                    flush=True,
                )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
