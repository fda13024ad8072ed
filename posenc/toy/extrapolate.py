"""Train short, test long: causal LMs trained at 64 tokens, evaluated out to 2048, three training seeds each.

    python -m posenc.toy.extrapolate --jobs 2

Every model (:class:`posenc.toy.lm.CausalLM`) has the same size, data and step budget and differs only in its
positional encoding. They learn the order-3 Markov source of :mod:`posenc.toy.markov` on sequences of ``train_len``
tokens, once per training seed in ``seeds`` (a seed gives the initial weights and the training batches), then are
evaluated on fresh sequences of every length in ``LENGTHS`` (the same fixed evaluation set for every model and seed).
Per model, seed and length the JSON holds the mean next-token loss, the source's own loss on the same tokens (the
floor), the loss by position, and the *excess past the training length*: the mean of loss − floor over the input
positions p ≥ train_len, the ones no model saw in training.

Also measured, each for every seed:
- RoPE with stretched frequencies and no training (:func:`rope_scaling`): PI ("linear"), NTK-aware, YaRN with
  transformers' ramp (linear in the pair index, its ends rounded to whole pairs) and with the paper's (linear in the
  number of turns), and Llama 3.1, each at s = max(1, L / train_len) for an evaluation length L;
- copies of the RoPE model fine-tuned at ``finetune_length`` with PI, YaRN (transformers' ramp) and no scaling at
  s = 8 (``FINETUNES``). The learning rate of a method in ``swept`` (PI) is picked from ``finetune_lrs`` on seed 0 by
  the loss on validation sequences (drawn with ``VALIDATION_SEED``, never the evaluation set), then used for every
  seed; the others use ``finetune_lr``; evaluated with that s out to 2048;
- T5 with its far buckets clamped (:func:`clamp_far_buckets`): the same trained model, every bucket past the last one
  training reached replaced by that one — isolates what the never-trained buckets do;
- NoPE trained ``none_long_steps`` more steps, resumed from the trained NoPE model (``steps`` + ``none_long_steps``
  in all, 3× the budget), to see whether more training closes its gap at 64.

Runs as independent tasks (train, fine-tune, evaluate), at most ``--jobs`` processes at once, one torch thread each.
Every task writes its result under ``--work`` and is skipped when that is there, so an interrupted run resumes.
Then writes ``<out>/extrapolation.json`` (every seed's numbers) and ``<out>/extrapolation/<name>.pt`` (seed 0's
models only, float16). ``--eval-only`` re-evaluates the shipped seed-0 checkpoints and keeps the other seeds' numbers.
Deterministic for a given thread count and CPU (see :mod:`posenc.toy.train`); CPU seconds are ``time.process_time``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from posenc.relative import t5_relative_bucket
from posenc.rope_scaling import rope_scaled_inv_freq, yarn_ramp
from posenc.toy import markov
from posenc.toy.lm import CausalLM, LMConfig, RopeScaling, load_lm, round_lm_to_float16, save_lm, token_losses
from posenc.toy.model import PE_CHOICES

EVAL_LENGTHS = (32, 64, 96, 128, 192, 256, 384, 512)  # 1/2× … 8× the training length (the tables' columns)
LONG_LENGTHS = (1024, 2048)  # 16× and 32×: past the fine-tune length of 512 too
LENGTHS = EVAL_LENGTHS + LONG_LENGTHS
EVAL_TOKENS = 32768  # predicted tokens per evaluation length up to 512: ⌈EVAL_TOKENS / L⌉ sequences
LONG_EVAL_TOKENS = 8192  # at 1024 and 2048 (8 and 4 sequences): attention there costs L² per sequence
EVAL_SEED = 2024  # the evaluation sequences, the same for every model and seed
VALIDATION_SEED = 77  # sequences that pick a fine-tune's learning rate (and the symbol frequencies)
POSITION_BIN = 16  # per-position losses are averaged over bins of this many positions
SCALINGS = ("linear", "ntk", "yarn", "yarn_paper", "llama3")  # inference-time RoPE scaling, no fine-tuning
FINETUNES = ("linear", "yarn", "plain")  # RoPE fine-tuned at finetune_length with each, s = 8
COMPARISONS = ("t5_clamped", "none_long")  # T5 with its far buckets clamped; NoPE trained longer
SCALING_LABELS = {"linear": "PI", "ntk": "NTK-aware", "yarn": "YaRN", "yarn_paper": "YaRN (paper's ramp)",
                  "llama3": "Llama 3.1", "plain": "no scaling"}  # fmt: skip


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything that decides the result; stored in the JSON."""

    train_len: int = 64  # tokens per training sequence (the learned table has this many rows)
    steps: int = 3000  # AdamW steps, the same for every encoding
    batch_size: int = 64
    lr: float = 3e-3  # peak learning rate
    warmup: int = 100  # linear warm-up, then cosine decay to lr / 10
    weight_decay: float = 0.01
    seed: int = 0  # the seed whose checkpoints ship; initial weights (torch.manual_seed), + 1 the training batches
    seeds: tuple[int, ...] = (0, 1, 2)  # every training seed
    none_long_steps: int = 6000  # the longer NoPE run: the trained NoPE model, 6000 more steps (3× the budget)
    finetune_length: int = 512  # RoPE fine-tunes at this length, s = finetune_length / train_len
    finetune_steps: int = 200
    finetune_batch: int = 8  # sequences per fine-tune step (8 × 512 tokens)
    finetune_lr: float = 1e-3  # the fine-tunes' peak learning rate (warm-up 20 steps, cosine to a tenth)
    finetune_lrs: tuple[float, ...] = (1e-4, 3e-4, 1e-3)  # PI's rate is the best of these on seed 0
    swept: tuple[str, ...] = ("linear",)  # the methods whose rate is swept (PI collapsed at 1e-3; the others did not)
    validation_sequences: int = 32  # validation sequences of finetune_length tokens that choose the rate


def learning_rate(step: int, total: int, peak: float, warmup: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then cosine decay to ``peak / 10`` at ``total``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def rope_scaling(method: str, factor: float, config: LMConfig, seq_len: int) -> RopeScaling:
    """(inv_freq [Dh/2], attention factor) for ``method`` in SCALINGS + ("plain",) at scale ``factor``.

    "yarn" is transformers' YaRN (ramp linear in the pair index, its ends rounded outwards to whole pairs);
    "yarn_paper" the same with the paper's ramp, linear in the number of turns r_i = L_train·θ_i/2π
    (:func:`posenc.yarn_ramp`): θ'_i = w_i·θ_i/s + (1 − w_i)·θ_i, attention factor 0.1·ln s + 1 in both.
    """
    dim = config.d_model // config.heads
    if method == "plain":
        return rope_scaled_inv_freq(dim, config.rope_base, "linear", 1.0)
    if method == "ntk":  # dynamic NTK with factor 1 = NTK-aware with s = seq_len / train_len (module docstring)
        return rope_scaled_inv_freq(dim, config.rope_base, "dynamic", 1.0, config.max_len, seq_len=seq_len)
    if method == "yarn_paper":
        plain, attention_factor = rope_scaled_inv_freq(dim, config.rope_base, "yarn", factor, config.max_len)
        theta = rope_scaled_inv_freq(dim, config.rope_base, "linear", 1.0, dtype=torch.float64)[0]  # θ_i, [P]
        weight = yarn_ramp(dim, config.rope_base, config.max_len, form="paper")  # w_i, [P]
        return (theta * (weight / factor + 1 - weight)).to(plain.dtype), attention_factor
    return rope_scaled_inv_freq(dim, config.rope_base, method, factor, original_max_position=config.max_len)


def train_model(
    pe: str, config: ExperimentConfig, source: markov.MarkovSource, log=sys.stderr, steps: int | None = None,
    seed: int | None = None, start_from: CausalLM | None = None,
) -> tuple[CausalLM, dict]:  # fmt: skip
    """Train one encoding at ``train_len``; returns (model rounded to float16, {steps, cpu_seconds, final loss}).

    ``start_from``: continue a trained model instead (a fresh AdamW and schedule, other batches: seed + 3)."""
    seed = config.seed if seed is None else seed
    torch.manual_seed(seed)
    model = CausalLM(LMConfig(pe=pe, vocab=source.vocab, max_len=config.train_len))
    if start_from is not None:
        model.load_state_dict(start_from.state_dict())
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(seed + (3 if start_from is not None else 1))
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
        if (step + 1) % 500 == 0 or step + 1 == total:
            print(f"{pe:>10} seed {seed} step {step + 1:>5}/{total} loss {smooth:.4f} "
                  f"{time.process_time() - start:6.0f}s", file=log, flush=True)  # fmt: skip
    round_lm_to_float16(model.eval())
    return model, {"steps": total, "seed": seed, "cpu_seconds": round(time.process_time() - start, 1),
                   "train_loss": smooth}  # fmt: skip


def finetune(
    base: CausalLM, method: str, config: ExperimentConfig, source: markov.MarkovSource, length: int, log=sys.stderr,
    lr: float | None = None, seed: int | None = None,
) -> tuple[CausalLM, dict]:  # fmt: skip
    """Fine-tune a copy of the RoPE model at ``length`` with scaling ``method`` at s = length / train_len."""
    seed = config.seed if seed is None else seed
    lr = config.finetune_lr if lr is None else lr
    model = CausalLM(base.config)
    model.load_state_dict(base.state_dict())
    factor = length / config.train_len
    rope = rope_scaling(method, factor, model.config, length)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(seed + 2)
    start = time.process_time()
    model.train()
    for step in range(config.finetune_steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, config.finetune_steps, lr, 20)
        tokens = markov.sample(source, config.finetune_batch, length + 1, batches)
        loss = token_losses(model, tokens, rope).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if (step + 1) % 50 == 0:
            print(f"  finetune {method} seed {seed} lr {lr:g} step {step + 1}/{config.finetune_steps} "
                  f"loss {loss.item():.4f}", file=log, flush=True)  # fmt: skip
    round_lm_to_float16(model.eval())
    extra = {"rope_scaling": method, "factor": factor, "finetune_length": length}
    info = {"steps": config.finetune_steps, "lr": lr, "seed": seed, **extra}
    return model, {**info, "cpu_seconds": round(time.process_time() - start, 1)}


def clamp_far_buckets(model: CausalLM, train_len: int) -> CausalLM:
    """A copy of a T5 model whose buckets past the last one training reached (distance train_len − 1) hold that
    bucket's values: bias(n) = table[min(bucket(n), bucket(train_len − 1))] for every distance n."""
    if model.config.pe != "t5":
        raise ValueError(f"clamping buckets applies to the T5 model only; this one uses {model.config.pe!r}.")
    copy = CausalLM(model.config)
    copy.load_state_dict(model.state_dict())
    bias = copy.bias
    last = int(t5_relative_bucket(torch.tensor(-(train_len - 1)), False, bias.num_buckets, bias.max_distance))
    with torch.no_grad():
        bias.table.weight[last + 1 :] = bias.table.weight[last]
    return copy.eval()


def evaluation_tokens(length: int, source: markov.MarkovSource, seed: int = EVAL_SEED) -> torch.Tensor:
    """The fixed evaluation set at ``length``: [⌈EVAL_TOKENS / L⌉, L + 1] tokens (LONG_EVAL_TOKENS past 512),
    drawn with ``seed`` + L."""
    count = -(-(EVAL_TOKENS if length <= max(EVAL_LENGTHS) else LONG_EVAL_TOKENS) // length)
    return markov.sample(source, count, length + 1, torch.Generator().manual_seed(seed + length))


def validation_tokens(length: int, source: markov.MarkovSource, count: int) -> torch.Tensor:
    """Sequences that choose a learning rate or count symbols: [count, L + 1], drawn with VALIDATION_SEED."""
    return markov.sample(source, count, length + 1, torch.Generator().manual_seed(VALIDATION_SEED))


@torch.no_grad()
def evaluate(
    model: CausalLM,
    tokens: torch.Tensor,
    scaling: str | None = None,
    factor: float | None = None,
    chunk: int | None = None,
) -> torch.Tensor:
    """Per-token losses [N, L] on ``tokens`` [N, L + 1], with RoPE ``scaling`` at ``factor`` if given.

    ``factor`` defaults to max(1, L / train_len). ``chunk`` sequences at a time (default: ≈ 4M attention cells).
    """
    length = tokens.shape[1] - 1
    chunk = chunk or max(1, 2**22 // length**2)
    rope = None
    if scaling is not None:
        factor = max(1.0, length / model.config.max_len) if factor is None else factor
        rope = rope_scaling(scaling, factor, model.config, length)
    return torch.cat([token_losses(model, tokens[i : i + chunk], rope) for i in range(0, len(tokens), chunk)])


def bins(values: list[float] | torch.Tensor, digits: int = 4) -> list[float]:
    """Means over consecutive POSITION_BIN positions."""
    values = torch.as_tensor(values, dtype=torch.float64)
    return [round(float(values[i : i + POSITION_BIN].mean()), digits) for i in range(0, len(values), POSITION_BIN)]


def summarise(losses: torch.Tensor, floor: torch.Tensor, train_len: int = 64) -> dict:
    """Mean loss and floor over every predicted token, both by position bin, and the excess loss − floor on input
    positions ≥ ``train_len`` (None when there are none) and < ``train_len``. Shapes: [N, L] each."""
    by_position = losses.double().mean(0)  # [L]: entry p predicts x_{p+1} from input positions 0 … p
    floor_by_position = floor.double().mean(0)  # [L]
    excess = by_position - floor_by_position
    return {
        "loss": round(float(losses.double().mean()), 5),
        "floor": round(float(floor.double().mean()), 5),
        "excess_past": round(float(excess[train_len:].mean()), 5) if len(excess) > train_len else None,
        "excess_within": round(float(excess[:train_len].mean()), 5),
        "loss_by_position": bins(by_position),
        "floor_by_position": bins(floor_by_position),
    }


def curves(model: CausalLM, source: markov.MarkovSource, scaling=None, factor=None, lengths=LENGTHS) -> dict:
    """{length: summary} for one model (and one RoPE scaling) at every evaluation length."""
    found = {}
    for length in lengths:
        tokens = evaluation_tokens(length, source)
        found[str(length)] = summarise(evaluate(model, tokens, scaling, factor), markov.true_loss(source, tokens),
                                       model.config.max_len)  # fmt: skip
    return found


def symbol_frequencies(source: markov.MarkovSource, config: ExperimentConfig) -> torch.Tensor:
    """How often each symbol occurs, counted on validation sequences of the longest length: [V] float64."""
    tokens = validation_tokens(max(LENGTHS), source, 16)
    return torch.bincount(tokens.flatten(), minlength=source.vocab).double() / tokens.numel()


def reference_curves(source: markov.MarkovSource, config: ExperimentConfig) -> dict:
    """The two references every curve is drawn against, per length, as summaries of a "model":
    ``uniform`` (log V at every token) and ``unigram`` (−log of the symbol's frequency, no context at all)."""
    frequencies = symbol_frequencies(source, config)
    found = {"uniform": {}, "unigram": {}}
    for length in LENGTHS:
        tokens = evaluation_tokens(length, source)
        floor = markov.true_loss(source, tokens)
        found["uniform"][str(length)] = summarise(torch.full_like(floor, math.log(source.vocab)), floor,
                                                  config.train_len)  # fmt: skip
        found["unigram"][str(length)] = summarise(-frequencies.log()[tokens[:, 1:]], floor, config.train_len)
    return found


# --------------------------------------------------------------------------- the tasks


@dataclass(frozen=True)
class Task:
    """One unit of work: ``kind`` in train / finetune / evaluate, writing ``<work>/seed<seed>/<name>.json``."""

    kind: str
    name: str
    seed: int
    args: dict
    needs: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"seed{self.seed}/{self.name}"


def finetune_tag(method: str, lr: float) -> str:
    return f"ft_{method}_lr{lr:g}"


def rates_of(method: str, config: ExperimentConfig) -> tuple[float, ...]:
    """The learning rates tried for a fine-tune method on the shipped seed."""
    return config.finetune_lrs if method in config.swept else (config.finetune_lr,)


def chosen_rates(work: Path, config: ExperimentConfig) -> dict[str, float]:
    """Each fine-tune method's learning rate: the lowest validation loss on the shipped seed among those tried."""
    chosen = {}
    for method in FINETUNES:
        losses = {}
        for lr in rates_of(method, config):
            path = work / f"seed{config.seed}" / f"{finetune_tag(method, lr)}.json"
            if path.exists():
                losses[lr] = json.loads(path.read_text())["validation_loss"]
        if len(losses) == len(rates_of(method, config)):
            chosen[method] = min(losses, key=losses.get)
    return chosen


def checkpoint_of(work: Path, seed: int, line: str, config: ExperimentConfig) -> tuple[Path, dict]:
    """(checkpoint path, how to evaluate it) for an evaluation line."""
    folder = work / f"seed{seed}"
    if line in PE_CHOICES or line == "none_long":
        return folder / f"{line}.pt", {}
    if line == "t5_clamped":
        return folder / "t5.pt", {"clamp": True}
    if line in SCALINGS:
        return folder / "rope.pt", {"scaling": line}
    method = line.removeprefix("ft_")
    lr = chosen_rates(work, config)[method]
    factor = config.finetune_length / config.train_len
    return folder / f"{finetune_tag(method, lr)}.pt", {"scaling": method, "factor": factor, "lr": lr}


def eval_lines() -> list[str]:
    """Every line evaluated per seed, in drawing order."""
    return [*PE_CHOICES, *COMPARISONS, *SCALINGS, *(f"ft_{m}" for m in FINETUNES)]


def run_task(task: Task, work: Path, config: ExperimentConfig, log_path: Path | None) -> dict:
    """Do one task in this process (one torch thread) and write its result; returns the result."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    log = open(log_path, "a") if log_path else sys.stderr  # noqa: SIM115 (closed below)
    source = markov.make_source()
    folder = work / f"seed{task.seed}"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    if task.kind == "train":
        start_from = load_lm(folder / f"{task.args['resume']}.pt")[0] if task.args.get("resume") else None
        model, info = train_model(task.args["pe"], config, source, log, task.args["steps"], task.seed, start_from)
        if start_from is not None:
            info |= {"continued_from": task.args["resume"], "total_steps": config.steps + task.args["steps"]}
        save_lm(model, folder / f"{task.name}.pt")
        result = {"training": info}
    elif task.kind == "finetune":
        base, _ = load_lm(folder / "rope.pt")
        model, info = finetune(base, task.args["method"], config, source, config.finetune_length, log,
                               task.args["lr"], task.seed)  # fmt: skip
        save_lm(model, folder / f"{task.name}.pt", {k: info[k] for k in ("rope_scaling", "factor", "finetune_length")})
        tokens = validation_tokens(config.finetune_length, source, config.validation_sequences)
        validation = evaluate(model, tokens, task.args["method"], info["factor"]).double().mean()
        result = {"training": info, "validation_loss": round(float(validation), 5)}
    else:
        path, how = checkpoint_of(work, task.seed, task.args["line"], config)
        model, _ = load_lm(path)
        if how.get("clamp"):
            model = clamp_far_buckets(model, config.train_len)
        result = {"checkpoint": path.name, **how,
                  "curves": curves(model, source, how.get("scaling"), how.get("factor"))}  # fmt: skip
    result["task_cpu_seconds"] = round(time.process_time() - start, 1)
    (folder / f"{task.name}.json").write_text(json.dumps(result) + "\n")
    print(f"done {task.key} in {result['task_cpu_seconds']:.0f} CPU s", file=log, flush=True)
    if log is not sys.stderr:
        log.close()
    return result


def plan(config: ExperimentConfig, phases: tuple[str, ...]) -> list[Task]:
    """Every task in priority order (the scheduler starts the first one whose inputs exist, so an evaluation starts
    as soon as its model exists): the shipped seed complete first, then the other seeds, the longer NoPE runs last."""
    seeds, first = config.seeds, config.seed
    others = [s for s in seeds if s != first]
    train, evaluate_ = "train" in phases, "eval" in phases
    base_lines = [line for line in eval_lines() if not line.startswith("ft_") and line != "none_long"]

    def trained(pe: str, seed: int) -> list[Task]:
        return [Task("train", pe, seed, {"pe": pe, "steps": config.steps})] if train else []

    def longer(seed: int) -> list[Task]:
        tasks = [Task("train", "none_long", seed, {"pe": "none", "steps": config.none_long_steps, "resume": "none"},
                      (f"seed{seed}/none",))] if train else []  # fmt: skip
        return tasks + evaluated(seed, ["none_long"])

    def evaluated(seed: int, lines: list[str]) -> list[Task]:
        return [Task("evaluate", f"eval_{line}", seed, {"line": line}, needs_for(line, seed, config))
                for line in lines] if evaluate_ else []  # fmt: skip

    sweep = tuple(f"seed{first}/{finetune_tag(m, lr)}" for m in FINETUNES for lr in rates_of(m, config))
    tasks: list[Task] = []
    for seed in seeds:
        tasks += trained("rope", seed)
    tasks += evaluated(first, base_lines)
    if train:
        tasks += [Task("finetune", finetune_tag(m, lr), first, {"method": m, "lr": lr}, (f"seed{first}/rope",))
                  for m in FINETUNES for lr in rates_of(m, config)]  # fmt: skip
    tasks += evaluated(first, [f"ft_{m}" for m in FINETUNES])
    for seed in others:
        tasks += evaluated(seed, base_lines)
    for seed in others:
        if train:
            tasks += [Task("finetune", f"ft_{m}_chosen", seed, {"method": m, "lr": None}, (f"seed{seed}/rope", *sweep))
                      for m in FINETUNES]  # fmt: skip
        tasks += evaluated(seed, [f"ft_{m}" for m in FINETUNES])
    for pe in ("alibi", "t5", "none"):
        for seed in seeds:
            tasks += trained(pe, seed)
    tasks += longer(first)
    for pe in ("sinusoidal", "learned"):
        for seed in seeds:
            tasks += trained(pe, seed)
    for seed in others:
        tasks += longer(seed)
    return tasks


def needs_for(line: str, seed: int, config: ExperimentConfig) -> tuple[str, ...]:
    """The tasks an evaluation line waits for."""
    if line in PE_CHOICES or line == "none_long":
        return (f"seed{seed}/{line}",)
    if line == "t5_clamped":
        return (f"seed{seed}/t5",)
    if line in SCALINGS:
        return (f"seed{seed}/rope",)
    method = line.removeprefix("ft_")
    sweep = tuple(f"seed{config.seed}/{finetune_tag(method, lr)}" for lr in rates_of(method, config))
    return sweep if seed == config.seed else (*sweep, f"seed{seed}/ft_{method}_chosen")


def resolve(task: Task, work: Path, config: ExperimentConfig) -> Task:
    """A chosen-rate fine-tune gets its rate (and its file name) once the sweep on the shipped seed is done."""
    if task.kind == "finetune" and task.args["lr"] is None:
        method = task.args["method"]
        lr = chosen_rates(work, config)[method]
        return Task("finetune", finetune_tag(method, lr), task.seed, {"method": method, "lr": lr}, task.needs)
    return task


def done(work: Path, key: str, config: ExperimentConfig) -> bool:
    """Whether a task's result is there (a chosen-rate fine-tune: the file named after its rate)."""
    if key.endswith("_chosen"):
        folder, name = key.split("/")
        method = name.removeprefix("ft_").removesuffix("_chosen")
        rate = chosen_rates(work, config).get(method)
        return rate is not None and (work / folder / f"{finetune_tag(method, rate)}.json").exists()
    return (work / f"{key}.json").exists()


def schedule(tasks: list[Task], work: Path, config: ExperimentConfig, jobs: int, log_path: Path | None) -> None:
    """Run the tasks, at most ``jobs`` at a time, each as soon as its inputs exist, in priority order. Each task runs
    in its own ``python -m posenc.toy.extrapolate --task …`` process (one torch thread, nothing shared)."""
    finished: set[str] = set()

    def ready(task: Task) -> bool:
        return all(need in finished or done(work, need, config) for need in task.needs)

    for task in tasks:
        if ready(task) and done(work, task.key, config):
            finished.add(task.key)
    pending = [task for task in tasks if task.key not in finished]
    failed: list[str] = []
    running: dict[subprocess.Popen, Task] = {}
    while pending or running:
        for task in list(pending):
            if len(running) >= jobs:
                break
            if ready(task):
                pending.remove(task)
                if done(work, task.key, config):
                    finished.add(task.key)
                    continue
                payload = {"task": asdict(resolve(task, work, config)), "config": asdict(config), "work": str(work),
                           "log": str(log_path) if log_path else None}  # fmt: skip
                command = [sys.executable, "-m", "posenc.toy.extrapolate", "--task", json.dumps(payload)]
                running[subprocess.Popen(command)] = task
        if not running:
            if pending:
                raise RuntimeError(f"tasks wait for inputs that no task makes: {[t.key for t in pending]}")
            break
        time.sleep(0.5)
        for process in [p for p in running if p.poll() is not None]:
            task = running.pop(process)
            if process.returncode:
                failed.append(task.key)
                print(f"FAILED {task.key} (exit {process.returncode})", file=sys.stderr, flush=True)
                pending = [t for t in pending if task.key not in t.needs]
            else:
                finished.add(task.key)
    if failed:
        raise RuntimeError("tasks failed: " + ", ".join(failed))


def run_one(payload: str) -> None:
    """The body of a task process: ``--task`` carries the task, the config, the work folder and the log file."""
    found = json.loads(payload)
    config = ExperimentConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in found["config"].items()})
    task = found["task"]
    task = Task(task["kind"], task["name"], task["seed"], task["args"], tuple(task["needs"]))
    run_task(task, Path(found["work"]), config, Path(found["log"]) if found["log"] else None)


def reproducing_command(config: ExperimentConfig, defaults: ExperimentConfig) -> str:
    """The one command that trains, evaluates and writes every run of ``config`` (what the JSON's recipe names,
    whichever phase wrote it: the work is resumable, so the same command also finishes an interrupted run)."""
    options = [f"--seeds {' '.join(str(seed) for seed in config.seeds)}"]
    for name in ("steps", "none_long_steps", "finetune_steps"):
        if getattr(config, name) != getattr(defaults, name):
            options.append(f"--{name.replace('_', '-')} {getattr(config, name)}")
    return " ".join(["python -m posenc.toy.extrapolate", *options, "--jobs 2"])


def main(argv: list[str] | None = None) -> dict:
    defaults = ExperimentConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("assets/toy"))
    parser.add_argument("--work", type=Path, default=Path("artifacts/extrapolation"),
                        help="every seed's checkpoints and per-task results (resumable)")  # fmt: skip
    parser.add_argument("--seeds", type=int, nargs="+", default=list(defaults.seeds), help="seed 0 is always added")
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--none-long-steps", type=int, default=defaults.none_long_steps)
    parser.add_argument("--finetune-steps", type=int, default=defaults.finetune_steps)
    parser.add_argument("--jobs", type=int, default=2, help="processes at once, one torch thread each")
    parser.add_argument("--phase", nargs="+", choices=("train", "eval", "write"), default=["train", "eval", "write"])
    parser.add_argument("--log", type=Path, default=None, help="append the tasks' progress here (default stderr)")
    shipped_only = "re-evaluate the shipped seed-0 checkpoints in --out, keep the other seeds' numbers"
    parser.add_argument("--eval-only", action="store_true", help=shipped_only)
    parser.add_argument("--task", help=argparse.SUPPRESS)  # one task, run by the scheduler in its own process
    args = parser.parse_args(argv)
    if args.task:
        run_one(args.task)
        return {}
    # the shipped seed (0) is always part of the run: its fine-tune sweep chooses the rates, its files are shipped
    seeds = tuple(sorted({defaults.seed, *args.seeds}))
    config = ExperimentConfig(steps=args.steps, seeds=seeds, none_long_steps=args.none_long_steps,
                              finetune_steps=args.finetune_steps)  # fmt: skip
    if args.eval_only:
        return eval_only(args.out, config, "python -m posenc.toy.extrapolate --eval-only")
    command = reproducing_command(config, defaults)
    started = time.time()
    tasks = plan(config, tuple(p for p in ("train", "eval") if p in args.phase))
    schedule(tasks, args.work, config, args.jobs, args.log)
    if "write" not in args.phase:
        return {}
    from posenc.toy.extrapolate_results import write_results  # the JSON and the shipped files

    return write_results(args.work, args.out, config, command, wall_seconds=time.time() - started)


def eval_only(out: Path, config: ExperimentConfig, command: str) -> dict:
    """Re-evaluate seed 0's shipped checkpoints; write the JSON with the other seeds' numbers as they were."""
    from posenc.toy.extrapolate_results import reevaluate_shipped

    return reevaluate_shipped(out, config, command)


if __name__ == "__main__":
    main()
