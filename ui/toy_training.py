"""The toy-model page's "train it yourself": a small, bounded training run in a background thread, shared by
everyone on one server.

At most one run at a time: :meth:`LiveRun.start` refuses while one is going, and every visitor reads the same
progress. The run uses one CPU thread and a small model (``posenc.toy.train.Trainer``), so it cannot take the
server's memory or all its cores, and it runs outside the page's script thread, so no visitor's page waits for it.
This is app code (threads, one run per server), so it lives here and not in ``posenc``; it imports no Streamlit
itself: the page keeps one ``LiveRun`` per server (``st.cache_resource`` in ``charts.toy_model``) and polls
:meth:`LiveRun.snapshot`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace

import torch

from posenc.toy.model import PE_CHOICES, PE_LABELS, ToyAnswer, ToyTransformer, answer
from posenc.toy.train import TrainConfig, Trainer

MAX_STEPS = 600  # the most steps a visitor can ask for (one to two minutes on one busy core)
LIVE_CONFIG = TrainConfig(batch_size=64, lr=3e-3, warmup=50, eval_every=50, eval_size=200, target=1.1, d_model=32)


_ANSWERING = threading.Lock()


def answer_alone(model: ToyTransformer, expression: str) -> ToyAnswer:
    """posenc's ``answer``, one at a time on this server: it runs torch on one thread (``single_thread``) by setting
    the process's thread count, so two sessions answering at once must not interleave."""
    with _ANSWERING:
        return answer(model, expression)


@dataclass
class LiveStatus:
    """What a visitor sees: which run, how far, and its loss/accuracy curves."""

    pe: str | None = None
    steps: int = 0
    step: int = 0
    running: bool = False
    seconds: float = 0.0
    losses: list[float] = field(default_factory=list)  # one per step
    held_out: list[tuple[int, float]] = field(default_factory=list)  # (step, exact match on 200 held-out)
    error: str | None = None


class LiveRun:
    """One background training run at a time; thread-safe start and snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._status = LiveStatus()

    def start(self, pe: str, steps: int) -> bool:
        """Start training a fresh ``pe`` model for ``steps`` (1 … MAX_STEPS); False if a run is already going."""
        if pe not in PE_CHOICES:
            raise ValueError(f"pe must be one of {', '.join(PE_CHOICES)}; got {pe!r}.")
        if not 1 <= int(steps) <= MAX_STEPS:
            raise ValueError(f"steps must lie between 1 and {MAX_STEPS}; got {steps}.")
        with self._lock:
            if self._status.running:
                return False
            self._status = LiveStatus(pe=pe, steps=int(steps), running=True)
        threading.Thread(target=self._run, args=(pe, int(steps)), daemon=True, name="toy-live-training").start()
        return True

    def snapshot(self) -> LiveStatus:
        """A copy of the current status, safe to read while the run goes on."""
        with self._lock:
            status = self._status
            return replace(status, losses=list(status.losses), held_out=list(status.held_out))

    def _run(self, pe: str, steps: int) -> None:
        torch.set_num_threads(1)  # this thread only: leave the other cores to the visitors' pages
        start = time.perf_counter()
        try:
            trainer = Trainer(replace(LIVE_CONFIG, pe=pe, steps=steps))
            for _ in range(steps):
                loss, _ = trainer.step()
                held = trainer.evaluate() if trainer.steps_done % LIVE_CONFIG.eval_every == 0 else None
                with self._lock:
                    self._status.step = trainer.steps_done
                    self._status.losses.append(loss)
                    self._status.seconds = time.perf_counter() - start
                    if held is not None:
                        self._status.held_out.append((trainer.steps_done, held))
        except Exception as err:  # a failed run must not leave the server stuck "running"
            with self._lock:
                self._status.error = str(err)  # the page says "training stopped" in the student's language
        finally:
            with self._lock:
                self._status.running = False
                self._status.seconds = time.perf_counter() - start


def describe(status: LiveStatus) -> str:
    """One line for a progress bar: "RoPE: step 120 / 400, loss 0.873, held-out 12.0 %"."""
    if status.pe is None:
        return "No run yet."
    held = f", held-out {status.held_out[-1][1]:.1%}" if status.held_out else ""
    loss = f", loss {status.losses[-1]:.3f}" if status.losses else ""
    return f"{PE_LABELS[status.pe]}: step {status.step} / {status.steps}{loss}{held} ({status.seconds:.0f} s)"
