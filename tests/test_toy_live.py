"""The shared "train it yourself" run: one at a time, bounded, and it finishes with a loss curve."""

import time

import pytest

from ui.toy_training import MAX_STEPS, LiveRun, describe


def _wait(run: LiveRun, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while run.snapshot().running and time.monotonic() < deadline:
        time.sleep(0.1)


def test_one_run_at_a_time_and_it_finishes():
    run = LiveRun()
    assert describe(run.snapshot()) == "No run yet."
    assert run.start("rope", 20)
    assert not run.start("t5", 20)  # a second visitor watches the first run instead
    _wait(run)
    status = run.snapshot()
    assert not status.running and status.error is None
    assert (status.pe, status.step, status.steps, len(status.losses)) == ("rope", 20, 20, 20)
    assert status.losses[-1] < status.losses[0]
    assert describe(status).startswith("RoPE: step 20 / 20, loss ")
    assert run.start("t5", 20)  # free again once the run ended
    _wait(run)


@pytest.mark.parametrize("pe, steps", [("rope", 0), ("rope", MAX_STEPS + 1), ("xyz", 10)])
def test_out_of_bounds_requests_are_refused_with_a_message(pe, steps):
    with pytest.raises(ValueError, match="must"):
        LiveRun().start(pe, steps)


def test_a_snapshot_is_a_copy():
    run = LiveRun()
    run.start("none", 20)
    first = run.snapshot()
    _wait(run)
    assert len(run.snapshot().losses) >= len(first.losses)
    first.losses.append(123.0)
    assert 123.0 not in run.snapshot().losses
