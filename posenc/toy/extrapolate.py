"""Train short, test long: six causal LMs trained at 64 tokens, evaluated out to 512 (ALiBi paper, Figure 1).

    python -m posenc.toy.extrapolate --out assets/toy

Every model (:class:`posenc.toy.lm.CausalLM`) has the same size, seed, data and step budget and differs only in
its positional encoding. They learn the order-3 Markov source of :mod:`posenc.toy.markov` on sequences of
``train_len`` tokens, then are evaluated on fresh sequences of every length in ``EVAL_LENGTHS`` (the same fixed
evaluation seed for every model): mean next-token loss over all positions of a sequence (nats), next to the
source's own loss on the same tokens (the floor), and the loss by position at the longest length.

The RoPE model is also evaluated with stretched frequencies (:func:`posenc.rope_scaled_inv_freq`) and no
fine-tuning: position interpolation ("linear"), NTK-aware, YaRN and Llama 3.1, each at s = max(1, L / train_len)
for an evaluation length L (the factor that just fits L). NTK-aware is the "dynamic" method with factor 1:
base' = base · (L / L_train)^(D/(D−2)), the static NTK-aware base for s = L / L_train. Then copies of the RoPE model
are fine-tuned for ``finetune_steps`` at the longest length with PI and with YaRN at s = max length / train_len
(and, as a control, with plain RoPE), and evaluated with that fixed s.

Writes ``<out>/extrapolation/<name>.pt`` (float16) and ``<out>/extrapolation.json``. Deterministic for a given
thread count and CPU (see :mod:`posenc.toy.train`); CPU seconds are measured with ``time.process_time``.
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

from posenc.rope_scaling import rope_scaled_inv_freq
from posenc.toy import markov
from posenc.toy.lm import CausalLM, LMConfig, RopeScaling, load_lm, round_lm_to_float16, save_lm, token_losses
from posenc.toy.model import PE_CHOICES

EVAL_LENGTHS = (32, 64, 96, 128, 192, 256, 384, 512)  # inputs of L tokens; 64 = the training length
EVAL_TOKENS = 32768  # predicted tokens per evaluation length: ⌈EVAL_TOKENS / L⌉ sequences
EVAL_SEED = 2024  # the evaluation sequences, the same for every model
POSITION_BIN = 16  # per-position losses are averaged over bins of this many positions
SCALINGS = ("linear", "ntk", "yarn", "llama3")  # inference-time RoPE scaling, no fine-tuning
FINETUNES = ("linear", "yarn", "plain")  # RoPE fine-tuned at the longest length with PI, YaRN, or no scaling
SCALING_LABELS = {"linear": "PI", "ntk": "NTK-aware", "yarn": "YaRN", "llama3": "Llama 3.1", "plain": "no scaling"}


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything that decides the result; stored in the JSON."""

    train_len: int = 64  # tokens per training sequence (the learned table has this many rows)
    steps: int = 3000  # AdamW steps, the same for every encoding
    batch_size: int = 64
    lr: float = 3e-3  # peak learning rate
    warmup: int = 100  # linear warm-up, then cosine decay to lr / 10
    weight_decay: float = 0.01
    seed: int = 0  # initial weights (torch.manual_seed) and, + 1, the training batches
    finetune_steps: int = 200  # RoPE fine-tunes at the longest evaluation length
    finetune_batch: int = 8  # sequences per fine-tune step (8 × 512 tokens)
    finetune_lr: float = 1e-3


def learning_rate(step: int, total: int, peak: float, warmup: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then cosine decay to ``peak / 10`` at ``total``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def rope_scaling(method: str, factor: float, config: LMConfig, seq_len: int) -> RopeScaling:
    """(inv_freq [Dh/2], attention factor) for ``method`` in SCALINGS + ("plain",) at scale ``factor``."""
    dim = config.d_model // config.heads
    if method == "plain":
        return rope_scaled_inv_freq(dim, config.rope_base, "linear", 1.0)
    if method == "ntk":  # dynamic NTK with factor 1 = NTK-aware with s = seq_len / train_len (module docstring)
        return rope_scaled_inv_freq(dim, config.rope_base, "dynamic", 1.0, config.max_len, seq_len=seq_len)
    return rope_scaled_inv_freq(dim, config.rope_base, method, factor, original_max_position=config.max_len)


def train_model(
    pe: str, config: ExperimentConfig, source: markov.MarkovSource, log=sys.stderr, steps: int | None = None
) -> tuple[CausalLM, dict]:
    """Train one encoding at ``train_len``; returns (model rounded to float16, {steps, cpu_seconds, final loss})."""
    torch.manual_seed(config.seed)
    model = CausalLM(LMConfig(pe=pe, vocab=source.vocab, max_len=config.train_len))
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(config.seed + 1)
    total = config.steps if steps is None else steps
    start, smooth = time.process_time(), None
    model.train()
    for step in range(total):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, total, config.lr, config.warmup)
        tokens = markov.sample(source, config.batch_size, config.train_len + 1, batches)  # [B, L + 1]
        loss = token_losses(model, tokens).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        smooth = loss.item() if smooth is None else 0.98 * smooth + 0.02 * loss.item()
        if (step + 1) % 250 == 0 or step + 1 == total:
            print(
                f"{pe:>10} step {step + 1:>5}/{total} loss {smooth:.4f} {time.process_time() - start:6.0f}s", file=log
            )
    round_lm_to_float16(model.eval())
    return model, {"steps": total, "cpu_seconds": round(time.process_time() - start, 1), "train_loss": smooth}


def finetune(
    base: CausalLM, method: str, config: ExperimentConfig, source: markov.MarkovSource, length: int, log=sys.stderr
) -> tuple[CausalLM, dict]:
    """Fine-tune a copy of the RoPE model at ``length`` with scaling ``method`` at s = length / train_len."""
    model = CausalLM(base.config)
    model.load_state_dict(base.state_dict())
    factor = length / config.train_len
    rope = rope_scaling(method, factor, model.config, length)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.finetune_lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(config.seed + 2)
    start = time.process_time()
    model.train()
    for step in range(config.finetune_steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, config.finetune_steps, config.finetune_lr, 20)
        tokens = markov.sample(source, config.finetune_batch, length + 1, batches)
        loss = token_losses(model, tokens, rope).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if (step + 1) % 50 == 0:
            print(f"  finetune {method} step {step + 1}/{config.finetune_steps} loss {loss.item():.4f}", file=log)
    round_lm_to_float16(model.eval())
    extra = {"rope_scaling": method, "factor": factor, "finetune_length": length}
    return model, {"steps": config.finetune_steps, "cpu_seconds": round(time.process_time() - start, 1), **extra}


def evaluation_tokens(length: int, source: markov.MarkovSource, seed: int = EVAL_SEED) -> torch.Tensor:
    """The fixed evaluation set at ``length``: [⌈EVAL_TOKENS / L⌉, L + 1] tokens, drawn with ``seed`` + L."""
    count = -(-EVAL_TOKENS // length)
    return markov.sample(source, count, length + 1, torch.Generator().manual_seed(seed + length))


@torch.no_grad()
def evaluate(
    model: CausalLM,
    tokens: torch.Tensor,
    scaling: str | None = None,
    factor: float | None = None,
    chunk: int = 16,
) -> torch.Tensor:
    """Per-token losses [N, L] on ``tokens`` [N, L + 1], with RoPE ``scaling`` at ``factor`` if given.

    ``factor`` defaults to max(1, L / train_len).
    """
    length = tokens.shape[1] - 1
    rope = None
    if scaling is not None:
        factor = max(1.0, length / model.config.max_len) if factor is None else factor
        rope = rope_scaling(scaling, factor, model.config, length)
    return torch.cat([token_losses(model, tokens[i : i + chunk], rope) for i in range(0, len(tokens), chunk)])


def summarise(losses: torch.Tensor, floor: torch.Tensor) -> dict:
    """Mean loss and the source's floor over every predicted token, and both by position bin."""
    by_position = losses.double().mean(0)  # [L]
    floor_by_position = floor.mean(0)  # [L]
    bins = range(0, losses.shape[1], POSITION_BIN)
    return {
        "loss": round(float(losses.double().mean()), 5),
        "floor": round(float(floor.mean()), 5),
        "loss_by_position": [round(float(by_position[i : i + POSITION_BIN].mean()), 4) for i in bins],
        "floor_by_position": [round(float(floor_by_position[i : i + POSITION_BIN].mean()), 4) for i in bins],
    }


def curves(model: CausalLM, source: markov.MarkovSource, scaling=None, factor=None, lengths=EVAL_LENGTHS) -> dict:
    """{length: summary} for one model (and one RoPE scaling) at every evaluation length."""
    found = {}
    for length in lengths:
        tokens = evaluation_tokens(length, source)
        found[str(length)] = summarise(evaluate(model, tokens, scaling, factor), markov.true_loss(source, tokens))
    return found


def main(argv: list[str] | None = None) -> dict:
    defaults = ExperimentConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("assets/toy"))
    parser.add_argument("--pe", nargs="*", choices=PE_CHOICES, default=list(PE_CHOICES))
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--finetune-steps", type=int, default=defaults.finetune_steps)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (the shipped models used 1)")
    parser.add_argument("--eval-only", action="store_true", help="re-evaluate the checkpoints already in --out")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    config = ExperimentConfig(steps=args.steps, finetune_steps=args.finetune_steps)
    source = markov.make_source()
    folder = args.out / "extrapolation"
    folder.mkdir(parents=True, exist_ok=True)
    json_path = args.out / "extrapolation.json"
    result = json.loads(json_path.read_text()) if json_path.exists() else {}
    result.update(
        {
            "task": {
                "name": "markov",
                "vocab": source.vocab,
                "order": source.order,
                "alpha": markov.ALPHA,
                "source_seed": markov.SOURCE_SEED,
            },
            "train_len": config.train_len,
            "eval_lengths": list(EVAL_LENGTHS),
            "eval_tokens": EVAL_TOKENS,
            "eval_seed": EVAL_SEED,
            "position_bin": POSITION_BIN,
            "seed": config.seed,
            "config": asdict(config),
            "metric": "mean next-token cross-entropy over all positions of a sequence, nats",
            "learned_past_table": "clamp: positions >= train_len reuse the table's last row",
            "torch": torch.__version__,
            "threads": args.threads,
        }
    )
    result.setdefault("models", {})
    result.setdefault("rope_scaling", {})
    result.setdefault("rope_finetuned", {})
    command = "python -m posenc.toy.extrapolate " + " ".join(sys.argv[1:] if argv is None else argv)
    for pe in args.pe:
        path = folder / f"{pe}.pt"
        if args.eval_only:
            model, _ = load_lm(path)
            info = result["models"].get(pe, {}).get("training", {})
        else:
            model, info = train_model(pe, config, source)
            save_lm(model, path)
            info["command"] = command
        result["models"][pe] = {"training": info, "curves": curves(model, source)}
        print(
            f"{pe}: " + " ".join(f"{k}:{v['loss']:.3f}" for k, v in result["models"][pe]["curves"].items()),
            file=sys.stderr,
        )
        json_path.write_text(json.dumps(result, indent=1) + "\n")
        if pe != "rope":
            continue
        for method in SCALINGS:
            result["rope_scaling"][method] = {"curves": curves(model, source, scaling=method)}
            print(
                f"rope+{method}: "
                + " ".join(f"{k}:{v['loss']:.3f}" for k, v in result["rope_scaling"][method]["curves"].items()),
                file=sys.stderr,
            )
        longest = max(EVAL_LENGTHS)
        for method in FINETUNES:
            tuned_path = folder / f"rope_finetuned_{method}.pt"
            if args.eval_only:
                tuned, _ = load_lm(tuned_path)
                info = result["rope_finetuned"].get(method, {}).get("training", {})
            else:
                tuned, info = finetune(model, method, config, source, longest)
                save_lm(tuned, tuned_path, {k: info[k] for k in ("rope_scaling", "factor", "finetune_length")})
            factor = longest / config.train_len
            result["rope_finetuned"][method] = {"training": info, "curves": curves(tuned, source, method, factor)}
            print(
                f"rope ft {method}: "
                + " ".join(f"{k}:{v['loss']:.3f}" for k, v in result["rope_finetuned"][method]["curves"].items()),
                file=sys.stderr,
            )
        json_path.write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
