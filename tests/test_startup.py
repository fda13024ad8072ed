"""The warm-up's last step: the heap it leaves is frozen out of the garbage collector's reach (ui.startup)."""

import gc

from ui.startup import freeze_the_heap


def test_the_warm_ups_heap_is_frozen_and_what_comes_after_is_collected(monkeypatch):
    monkeypatch.delenv("POSENC_GC_FREEZE", raising=False)
    try:
        frozen = freeze_the_heap()
        assert frozen == gc.get_freeze_count() > 1000  # the test process's imports: torch, streamlit, the app
        cycle = []
        cycle.append(cycle)  # a reference cycle made after the freeze: only the collector frees it
        del cycle
        assert gc.collect() >= 1
    finally:
        gc.unfreeze()


def test_freezing_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("POSENC_GC_FREEZE", "0")
    assert freeze_the_heap() == 0 and gc.get_freeze_count() == 0
