"""The "why add" histogram at every dim the app allows, made once and shipped: ``assets/add_cosines.npz``.

The chart shows how posenc's cos(w, PE(p)) spread for random words w at a dim d (``charts.sinusoidal``). The seeded
samples make it the same numbers at every run, but counting them costs ~12 ms a dim, and a class of students each on a
dim of their own asks for a new one at almost every move. The table holds, for d = 2, 4, …, 1024, the count in each bin
and the samples' standard deviation, exactly what :func:`counted` gives; tests/test_page_sinusoidal.py holds it to
posenc's ``embedding_pe_cosines``. Made again (a few seconds) with ``python -m charts.cosine_table``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from posenc.fast import embedding_pe_cosines_by_chunks
from ui.limits import LIMITS

TABLE_FILE = Path(__file__).resolve().parents[1] / "assets" / "add_cosines.npz"
SAMPLES = 4000  # seeded words, each at a position p < POSITIONS (posenc.absolute.word_positions)
POSITIONS, BASE = 512, 10000.0
EDGES = np.linspace(-1.0, 1.0, 101)  # 100 bins of 0.02 over [−1, 1]
DIMS = tuple(range(LIMITS.dim_min, LIMITS.dim_max + 1, LIMITS.dim_step))  # every dim the sidebar can set


def counted(dim: int) -> tuple[np.ndarray, float]:
    """How many of posenc's cos(w, PE(p)) fall in each bin, and their standard deviation, computed now (posenc's
    ``embedding_pe_cosines`` by its equal fast form)."""
    cosines = embedding_pe_cosines_by_chunks((dim,), SAMPLES, POSITIONS, BASE, seed=0)[0].numpy()
    return np.histogram(cosines, bins=EDGES)[0], float(np.std(cosines))


def make_table(dims=DIMS) -> dict[str, np.ndarray]:
    """``dims`` [N] int, ``counts`` [N, 100] uint16 (each at most SAMPLES) and ``spreads`` [N] float64."""
    rows = [counted(dim) for dim in dims]
    return {
        "dims": np.asarray(dims, dtype=np.int64),
        "counts": np.stack([counts for counts, _ in rows]).astype(np.uint16),
        "spreads": np.asarray([spread for _, spread in rows], dtype=np.float64),
    }


def read_table(path: Path = TABLE_FILE) -> dict[str, np.ndarray]:
    """The shipped table (see :func:`make_table`); empty arrays when the file is missing, unreadable or not such a
    table, so the chart counts each dim itself instead."""
    empty = {"dims": np.zeros(0, dtype=np.int64), "counts": np.zeros((0, 100), np.uint16), "spreads": np.zeros(0)}
    try:
        with np.load(path) as shipped:
            table = {key: shipped[key] for key in ("dims", "counts", "spreads")}
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return empty
    rows = len(table["dims"])
    if table["dims"].ndim != 1 or table["counts"].shape != (rows, len(EDGES) - 1) or table["spreads"].shape != (rows,):
        return empty
    return table


if __name__ == "__main__":
    np.savez_compressed(TABLE_FILE, **make_table())
    print(f"wrote {TABLE_FILE} ({TABLE_FILE.stat().st_size / 1000:.1f} kB, {len(DIMS)} dims)")
