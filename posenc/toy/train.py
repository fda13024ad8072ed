"""Train the toy arithmetic transformer for one positional encoding and write its checkpoint and metrics.

    python -m posenc.toy.train --pe rope --steps 6000 --out assets/toy

Deterministic on CPU: a fixed seed drives the initial weights and every training batch, deterministic algorithms
are switched on, and the stopping rule depends on steps and held-out accuracy, not on time (``--max-seconds`` is
a safety net whose use is recorded in the metrics). The same command on the same kind of CPU with the same
``--threads`` repeats a run bit for bit; another thread count or CPU rounds matrix products differently, which
changes the weights and the accuracy slightly. Writes ``<out>/<pe>.pt`` (float16 weights, ≈ 0.5 MB) and
``<out>/<pe>.json`` (held-out and out-of-length exact match of the *saved* weights, steps, seconds, seed, config).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F

from posenc.toy import data
from posenc.toy.model import (
    PE_CHOICES,
    PE_LABELS,
    ToyConfig,
    ToyTransformer,
    exact_match,
    round_to_float16,
    save_checkpoint,
)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the result of a run; stored in the metrics file."""

    pe: str = "none"
    steps: int = 3000  # budget: the same for every PE choice (the shipped models used 3000)
    batch_size: int = 256
    lr: float = 3e-3  # peak learning rate of AdamW
    warmup: int = 200  # linear warm-up steps, then cosine decay to lr / 10 at ``steps``
    weight_decay: float = 0.01
    eval_every: int = 250  # steps between held-out evaluations on a fixed sample
    eval_size: int = 2000  # size of that sample (the final evaluation uses the whole held-out split)
    target: float = 0.995  # stop early once the sample's exact match reaches this
    seed: int = 0
    d_model: int = 64
    heads: int = 4
    layers: int = 2


def learning_rate(step: int, config: TrainConfig) -> float:
    """Linear warm-up to ``lr`` over ``warmup`` steps, then cosine decay to ``lr / 10`` at ``steps``."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = min(1.0, (step - config.warmup) / max(1, config.steps - config.warmup))
    return config.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def loss_and_accuracy(model: ToyTransformer, batch: data.Batch) -> tuple[torch.Tensor, float]:
    """Teacher-forced cross-entropy over answer tokens, and the fraction of answers with every token right."""
    logits = model(batch.source, batch.decoder_input).logits  # [B, T, vocab]
    loss = F.cross_entropy(logits.flatten(0, 1), batch.decoder_output.flatten(), ignore_index=data.PAD)
    real = batch.decoder_output != data.PAD
    right = ((logits.argmax(-1) == batch.decoder_output) | ~real).all(dim=1)
    return loss, float(right.float().mean())


def progress_line(step: int, total: int, loss: float, accuracy: float, held_out: float | None, seconds: float) -> str:
    """A text progress bar: [#####.....] step/total loss acc held-out time."""
    filled = int(30 * step / max(total, 1))
    held = "  –  " if held_out is None else f"{held_out:6.1%}"
    return (
        f"[{'#' * filled}{'.' * (30 - filled)}] {step:>6}/{total} loss {loss:.4f} "
        f"batch acc {accuracy:6.1%} held-out {held} {seconds:6.0f}s"
    )


class Trainer:
    """One training run, one step at a time: the command line loops over it, the page runs it live.

    Seeding happens here, in a fixed order (weights, then the batch generator), so a run repeats bit for bit.
    """

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        torch.manual_seed(config.seed)
        self.model = ToyTransformer(
            ToyConfig(
                pe=config.pe,
                d_model=config.d_model,
                heads=config.heads,
                encoder_layers=config.layers,
                decoder_layers=config.layers,
            )
        )
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.batches = torch.Generator().manual_seed(config.seed + 1)
        self.eval_sample = data.held_out_expressions(limit=config.eval_size, seed=config.seed)
        self.steps_done = 0

    def step(self) -> tuple[float, float]:
        """One AdamW step on a fresh batch; returns (loss, fraction of the batch answered fully right)."""
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(self.steps_done, self.config)
        batch = data.make_batch(data.sample_training(self.config.batch_size, self.batches))
        loss, accuracy = loss_and_accuracy(self.model, batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.steps_done += 1
        return loss.item(), accuracy

    def evaluate(self) -> float:
        """Greedy exact match on the fixed held-out sample."""
        return exact_match(self.model, self.eval_sample)


def train(
    config: TrainConfig, max_seconds: float | None = None, final_eval_limit: int | None = None, log=sys.stderr
) -> tuple[ToyTransformer, dict]:
    """Train one model; returns it (weights rounded to float16, as saved) and its metrics dict.

    ``final_eval_limit`` evaluates a fixed sample of the held-out split instead of all of it (for quick tests).
    """
    trainer = Trainer(config)
    model = trainer.model
    start, smooth_loss, held_out, history, stopped_by = time.perf_counter(), None, None, [], "steps"
    step = 0
    while step < config.steps:
        loss, accuracy = trainer.step()
        step = trainer.steps_done
        smooth_loss = loss if smooth_loss is None else 0.95 * smooth_loss + 0.05 * loss
        seconds = time.perf_counter() - start
        evaluate = step % config.eval_every == 0 or step == config.steps
        if evaluate:
            held_out = trainer.evaluate()
            history.append([step, round(held_out, 4)])
        line = progress_line(step, config.steps, smooth_loss, accuracy, held_out, seconds)
        if evaluate:
            print("\r" + line, file=log, flush=True)
        elif log.isatty() and step % 10 == 0:
            print("\r" + line, end="", file=log, flush=True)
        if evaluate and held_out >= config.target:
            stopped_by = "target"
            break
        if max_seconds is not None and seconds >= max_seconds:
            stopped_by = "time"
            break
    train_seconds = time.perf_counter() - start
    round_to_float16(model)  # measure exactly what the checkpoint will hold
    held_out_set = data.held_out_expressions(limit=final_eval_limit)
    long_set = data.out_of_length_expressions(count=final_eval_limit or 2000)
    metrics = {
        "pe": config.pe,
        "label": PE_LABELS[config.pe],
        "held_out_accuracy": exact_match(model, held_out_set),
        "held_out_count": len(held_out_set),
        "out_of_length_accuracy": exact_match(model, long_set),
        "out_of_length_count": len(long_set),
        "steps": step,
        "seconds": round(train_seconds, 1),
        "seed": config.seed,
        "stopped_by": stopped_by,
        "eval_history": history,
        "config": asdict(config),
        "model": asdict(model.config),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }
    return model, metrics


def main(argv: list[str] | None = None) -> dict:
    defaults = TrainConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pe", choices=PE_CHOICES, required=True)
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--lr", type=float, default=defaults.lr)
    parser.add_argument("--warmup", type=int, default=defaults.warmup)
    parser.add_argument("--eval-every", type=int, default=defaults.eval_every)
    parser.add_argument("--eval-size", type=int, default=defaults.eval_size)
    parser.add_argument("--target", type=float, default=defaults.target)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--d-model", type=int, default=defaults.d_model)
    parser.add_argument("--layers", type=int, default=defaults.layers)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (the shipped models used 1)")
    parser.add_argument("--max-seconds", type=float, default=900.0, help="safety stop; recorded if used")
    parser.add_argument("--final-eval-limit", type=int, default=None, help="evaluate a sample, not all held-out")
    parser.add_argument("--out", type=Path, default=Path("assets/toy"))
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)  # here, not in Trainer: the in-page run must not flip it server-wide
    config = TrainConfig(
        pe=args.pe,
        steps=args.steps,
        batch_size=args.batch_size,
        lr=args.lr,
        warmup=args.warmup,
        eval_every=args.eval_every,
        eval_size=args.eval_size,
        target=args.target,
        seed=args.seed,
        d_model=args.d_model,
        layers=args.layers,
    )
    model, metrics = train(config, max_seconds=args.max_seconds, final_eval_limit=args.final_eval_limit)
    metrics["command"] = "python -m posenc.toy.train " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.mkdir(parents=True, exist_ok=True)
    save_checkpoint(model, args.out / f"{args.pe}.pt")
    metrics["checkpoint_bytes"] = (args.out / f"{args.pe}.pt").stat().st_size
    (args.out / f"{args.pe}.json").write_text(json.dumps(metrics, indent=2) + "\n")
    print(
        f"{args.pe}: held-out {metrics['held_out_accuracy']:.2%}, 4-digit {metrics['out_of_length_accuracy']:.2%}, "
        f"{metrics['steps']} steps, {metrics['seconds']:.0f}s -> {args.out / args.pe}.pt",
        file=sys.stderr,
    )
    return metrics


if __name__ == "__main__":
    main()
