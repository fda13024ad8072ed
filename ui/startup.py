"""The server's warm-up: what the first visitors would otherwise pay for, done once before the server is ready.

``app.py`` runs :func:`warm_up` in the server's lifespan, so uvicorn answers no request (``/_stcore/health``
included: a health check sent during the warm-up waits for it) until it has finished. Without it, the first
visitors of a fresh server waited about 3 s while torch was imported, and each of them raced the others through
the same lazy work: reading the code "show the code" prints (``ast`` is not thread-safe in CPython 3.11), loading
the catalogs, and Streamlit deciding whether the app uses the legacy ``pages/`` listing (it does until
``navigation.py`` has run once, so a first visitor saw it).
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import pkgutil
import time
from contextlib import asynccontextmanager

from streamlit import runtime

LOG = logging.getLogger("posenc_lab.startup")
APP_PACKAGES = ("posenc", "figures", "charts", "ui")  # everything a page imports: torch and plotly come with them


def import_app_modules() -> list[str]:
    """Import every module of the app's packages (the first import of torch alone takes seconds)."""
    names = []
    for package_name in APP_PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            importlib.import_module(info.name)
            names.append(info.name)
    return names


def warm_caches() -> dict[str, int]:
    """Fill the per-process caches a page reads: every catalog, the source of every posenc function, the model
    presets, the illustrations' seeded draws at the largest dim (posenc._random.standard_draws: Transformer-XL's
    and DeBERTa's weights in float64, RoPE's q and k; ~0.3 s, ~58 MB) and the shipped "why add" histograms
    (charts.cosine_table)."""
    import posenc
    from charts.model_rope import presets
    from charts.rope import rope_example_qk
    from charts.sinusoidal import shipped_cosines
    from posenc.deberta import deberta_illustration
    from posenc.transformer_xl import illustration_draws
    from ui.code import read_sources
    from ui.i18n import LANGUAGES, catalog

    strings = sum(len(catalog(lang)) for lang in LANGUAGES)
    illustrations = (  # each makes its draws at the largest dim once (charts: posenc._random.remember_draws)
        lambda: illustration_draws(1, 2, weights_scaled=False),  # as the page reads them (posenc/fast.py)
        lambda: deberta_illustration(1, 2, 1),
        lambda: rope_example_qk(2),
    )
    for draw in illustrations:
        draw()
    return {"catalog strings": strings, "sources": read_sources(posenc), "model presets": len(presets()),
            "illustrations' draws": len(illustrations), "why-add dims": len(shipped_cosines()["dims"])}  # fmt: skip


async def run_the_app_once() -> bool:
    """Run ``navigation.py`` once, as ``/_stcore/script-health-check`` does: it registers the app's navigation
    (so no visitor sees Streamlit's listing of ``pages/``) and fills the home page's caches."""
    ok, message = await runtime.get_instance().does_script_run_without_error()
    if not ok:
        LOG.error("navigation.py failed during warm-up (%s); the script health check will report it", message)
    return ok


def freeze_the_heap() -> int:
    """Move every object the warm-up left (torch's, Plotly's, Streamlit's, the catalogs and caches: millions) out of
    the garbage collector's reach, ``gc.freeze()``, so that a full collection under a class walks only what the
    class's runs allocate. Without it a full collection took 200–450 ms, every thread of the replica waiting, six
    times a minute under 40 exploring students. ``POSENC_GC_FREEZE=0`` leaves the heap as it is. Returns the objects
    frozen."""
    if os.environ.get("POSENC_GC_FREEZE", "1") == "0":
        return 0
    gc.collect()  # what is garbage now is freed, not frozen
    gc.freeze()
    return gc.get_freeze_count()


async def warm_up() -> None:
    started = time.perf_counter()
    modules = import_app_modules()
    cached = warm_caches()
    ok = await run_the_app_once()
    frozen = freeze_the_heap()
    LOG.warning(
        "warm-up: %d modules, %s, app run %s, %d objects frozen, %.1f s",
        len(modules),
        ", ".join(f"{count} {what}" for what, count in cached.items()),
        "ok" if ok else "FAILED",
        frozen,
        time.perf_counter() - started,
    )


@asynccontextmanager
async def lifespan(_app):
    """``st.App(..., lifespan=lifespan)``: warm up before the server accepts its first connection."""
    await warm_up()
    yield
