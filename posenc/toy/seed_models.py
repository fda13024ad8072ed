"""Every training seed's model of the two "train short, test long" tasks, for the ablations that read them again.

Seed 0's models ship (``assets/toy/extrapolation/<pe>.pt``, ``assets/toy/retrieval/<pe>.pt``); the other seeds'
are rebuilt on demand with the experiments' own training functions (:func:`posenc.toy.extrapolate.train_model`,
:func:`posenc.toy.retrieval.train`), which are deterministic for a seed on one thread and one CPU, and cached under
``<work>/<task>/seed<seed>/<pe>.pt``. A checkpoint the experiment's own run left in its work folder
(``artifacts/extrapolation`` or ``artifacts/retrieval``) is the same model and is used as it is.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import torch

from posenc.toy import markov
from posenc.toy.lm import CausalLM, load_lm, save_lm
from posenc.toy.model import ASSETS

TASKS = ("markov", "needle")
SHIPPED = {"markov": ASSETS / "extrapolation", "needle": ASSETS / "retrieval"}  # seed 0's checkpoints
EXPERIMENT_WORK = {"markov": Path("artifacts/extrapolation"), "needle": Path("artifacts/retrieval")}
WORK = Path("artifacts/seed_models")


def cached_path(task: str, pe: str, seed: int, work: Path = WORK) -> Path | None:
    """Where a finished checkpoint of (task, pe, seed) already lies, or None."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}; got {task!r}.")
    candidates = [SHIPPED[task] / f"{pe}.pt"] if seed == 0 else []
    candidates += [work / task / f"seed{seed}" / f"{pe}.pt", EXPERIMENT_WORK[task] / f"seed{seed}" / f"{pe}.pt"]
    return next((path for path in candidates if path.exists()), None)


def seed_model(task: str, pe: str, seed: int, work: Path = WORK, log=sys.stderr) -> CausalLM:
    """The trained ``pe`` model of ``task`` ("markov" or "needle") for ``seed``: loaded, or trained and cached."""
    found = cached_path(task, pe, seed, work)
    if found is not None:
        return load_lm(found)[0]
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    if task == "markov":
        from posenc.toy.extrapolate import ExperimentConfig, train_model

        model, _ = train_model(pe, ExperimentConfig(), markov.make_source(), log, seed=seed)
    else:
        from posenc.toy.retrieval import RetrievalConfig, train

        model, _ = train(pe, RetrievalConfig(), seed, log)
    path = work / task / f"seed{seed}" / f"{pe}.pt"
    path.parent.mkdir(parents=True, exist_ok=True)
    save_lm(model, path.with_suffix(".tmp"))
    path.with_suffix(".tmp").rename(path)  # whole or absent: an interrupted run trains it again
    return model


def run_processes(commands: list[list[str]], jobs: int) -> None:
    """Run each command (an argv list) as its own process, at most ``jobs`` at once; raise if one fails."""
    pending, running = list(commands), []
    while pending or running:
        while pending and len(running) < jobs:
            running.append(subprocess.Popen(pending.pop(0)))
        time.sleep(0.5)
        for process in [p for p in running if p.poll() is not None]:
            running.remove(process)
            if process.returncode:
                raise RuntimeError(f"{' '.join(process.args)} failed (exit {process.returncode})")


def main(argv: list[str] | None = None) -> None:
    """``python -m posenc.toy.seed_models <task> <pe> <seed> [work]``: build one model (a worker process)."""
    task, pe, seed, *rest = sys.argv[1:] if argv is None else argv
    seed_model(task, pe, int(seed), Path(rest[0]) if rest else WORK)


if __name__ == "__main__":
    main()
