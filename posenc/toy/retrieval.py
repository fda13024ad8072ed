"""Does the model use far context? The needle task, trained at 64 tokens, asked at every length and depth.

    python -m posenc.toy.retrieval --jobs 2

Beside "train short, test long" (:mod:`posenc.toy.extrapolate`, whose Markov task needs only the last three
tokens): the same causal LM (:class:`posenc.toy.lm.CausalLM`), the same size and schedule (half the steps), learns
the Markov text of :mod:`posenc.toy.needle` with a needle in it, and is asked for the needle's value at the end.
Training sequences hold ``train_len`` input tokens with the needle at a uniform random position; the loss is the
mean next-token loss on the text plus the loss on the answer (the one token the text cannot predict).

Evaluated on fresh sequences (the same for every model and seed) at every length in ``LENGTHS`` and needle depth in
``DEPTHS``: the accuracy of the answer (the model's most likely next token is the needle's value; chance 1/8) and the
mean loss on it. Lines per training seed:
- the six encodings (``PE_CHOICES``) and T5 with its far buckets clamped;
- RoPE with inference-time scaling at s = max(1, L / train_len): PI, NTK-aware, YaRN with both ramps, Llama 3.1,
  and YaRN without its attention factor (``yarn_no_factor``: its frequencies with the logits unscaled, the ablation
  that separates what the frequencies do from what the temperature does);
- RoPE fine-tuned at ``finetune_length`` with PI, YaRN and no scaling at s = 8, on needle sequences of that length,
  at the learning rate each method's sweep chose in the Markov experiment (1e-3 for all three; no new sweep).
Runs as independent tasks on ``--jobs`` processes, one torch thread each; every task writes
``<work>/seed<seed>/<name>.json`` and is skipped when that is there (an interrupted run resumes). Then writes
``<out>/retrieval.json`` and the first seed's models to ``<out>/retrieval/``. CPU seconds are ``time.process_time``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from posenc.toy import markov, needle
from posenc.toy.extrapolate import SCALINGS, clamp_far_buckets, learning_rate, rope_scaling
from posenc.toy.lm import CausalLM, LMConfig, RopeScaling, load_lm, round_lm_to_float16, save_lm
from posenc.toy.model import ASSETS, PE_CHOICES

LENGTHS = (64, 128, 256, 512, 1024, 2048)  # input tokens: 1× … 32× the training length
DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)  # needle depth: 0 = the first token, 1 = just before the question
EVAL_SEED = 4048  # the evaluation sequences, the same for every model and seed
FINETUNES = ("linear", "yarn", "plain")  # RoPE fine-tuned at finetune_length with each, s = 8
ABLATIONS = ("yarn_no_factor",)  # YaRN's frequencies, attention factor 1
COMPARISONS = ("t5_clamped",)
FULL_EVAL_UP_TO = 512  # lengths up to this one read eval_sequences per (length, depth), longer ones fewer


@dataclass(frozen=True)
class RetrievalConfig:
    """Everything that decides the result; stored in the JSON."""

    train_len: int = 64  # input tokens per training sequence (the learned table has this many rows)
    steps: int = 1500  # AdamW steps (half the Markov experiment's 3000: RoPE answers every needle at 64 after 800)
    batch_size: int = 64
    lr: float = 3e-3
    warmup: int = 100
    weight_decay: float = 0.01
    seeds: tuple[int, ...] = (0, 1, 2)  # a seed gives the initial weights; seed + 1 the training batches
    finetune_length: int = 512
    finetune_steps: int = 150
    finetune_batch: int = 8
    finetune_lr: float = 1e-3  # each method's rate chosen by the Markov experiment's sweep
    eval_sequences: int = 32  # sequences per (length, depth) up to 512
    long_eval_sequences: int = 8  # at 1024 and 2048 (attention costs L² per sequence)


def sequences_per_cell(length: int, config: RetrievalConfig) -> int:
    """Evaluation sequences per (length, depth): eval_sequences up to FULL_EVAL_UP_TO tokens, long_eval_sequences
    past it."""
    return config.eval_sequences if length <= FULL_EVAL_UP_TO else config.long_eval_sequences


def training_loss(model: CausalLM, batch: torch.Tensor, rope: RopeScaling | None = None) -> torch.Tensor:
    """mean text loss + answer loss: the next-token losses of every input but the question, then the answer's."""
    logits = model(batch[:, :-1], rope).logits  # [B, T − 1, V]
    losses = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch[:, 1:], reduction="none")  # [B, T − 1]
    return losses[:, :-1].mean() + losses[:, -1].mean()


def train(pe: str, config: RetrievalConfig, seed: int, log=sys.stderr) -> tuple[CausalLM, dict]:
    """Train one encoding on needle sequences of train_len inputs; (model rounded to float16, info)."""
    torch.manual_seed(seed)
    model = CausalLM(LMConfig(pe=pe, vocab=needle.VOCAB, max_len=config.train_len))
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(seed + 1)
    source = markov.make_source()
    start, smooth = time.process_time(), None
    model.train()
    for step in range(config.steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, config.steps, config.lr, config.warmup)
        batch, _, _ = needle.needle_batch(source, config.batch_size, config.train_len + 1, batches)
        loss = training_loss(model, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        smooth = loss.item() if smooth is None else 0.98 * smooth + 0.02 * loss.item()
        if (step + 1) % 500 == 0 or step + 1 == config.steps:
            print(f"needle {pe:>10} seed {seed} step {step + 1:>5}/{config.steps} loss {smooth:.4f} "
                  f"{time.process_time() - start:6.0f}s", file=log, flush=True)  # fmt: skip
    round_lm_to_float16(model.eval())
    return model, {"steps": config.steps, "seed": seed, "cpu_seconds": round(time.process_time() - start, 1),
                   "train_loss": round(smooth, 5)}  # fmt: skip


def finetune(base: CausalLM, method: str, config: RetrievalConfig, seed: int, log=sys.stderr) -> tuple[CausalLM, dict]:
    """A copy of the RoPE model fine-tuned on needle sequences of finetune_length inputs with ``method`` at
    s = finetune_length / train_len (warm-up 20 steps, cosine to a tenth)."""
    model = CausalLM(base.config)
    model.load_state_dict(base.state_dict())
    factor = config.finetune_length / config.train_len
    rope = rope_scaling(method, factor, model.config, config.finetune_length)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.finetune_lr, weight_decay=config.weight_decay)
    batches = torch.Generator().manual_seed(seed + 2)
    source = markov.make_source()
    start = time.process_time()
    model.train()
    for step in range(config.finetune_steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, config.finetune_steps, config.finetune_lr, 20)
        batch, _, _ = needle.needle_batch(source, config.finetune_batch, config.finetune_length + 1, batches)
        loss = training_loss(model, batch, rope)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if (step + 1) % 50 == 0:
            print(f"needle finetune {method} seed {seed} step {step + 1}/{config.finetune_steps} "
                  f"loss {loss.item():.4f}", file=log, flush=True)  # fmt: skip
    round_lm_to_float16(model.eval())
    info = {"steps": config.finetune_steps, "lr": config.finetune_lr, "seed": seed, "rope_scaling": method,
            "factor": factor, "finetune_length": config.finetune_length}  # fmt: skip
    return model, {**info, "cpu_seconds": round(time.process_time() - start, 1)}


def evaluation_batch(length: int, depth_index: int, count: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The fixed evaluation sequences at ``length`` inputs and DEPTHS[depth_index]: (sequences [N, L + 1],
    needle positions [N]), drawn with EVAL_SEED + 16·L + depth_index."""
    generator = torch.Generator().manual_seed(EVAL_SEED + 16 * length + depth_index)
    batch, positions, _ = needle.needle_batch(markov.make_source(), count, length + 1, generator, DEPTHS[depth_index])
    return batch, positions


@torch.no_grad()
def answer(model: CausalLM, batch: torch.Tensor, rope: RopeScaling | None = None, chunk: int | None = None):
    """(correct [N] bool, answer loss [N]): the model's most likely token after the question against the needle's
    value, and −log p(value). ``chunk`` sequences at a time (default: ≈ 4M attention cells)."""
    length = batch.shape[1] - 1
    chunk = chunk or max(1, 2**22 // length**2)
    logits = torch.cat([model(batch[i : i + chunk, :-1], rope).logits[:, -1] for i in range(0, len(batch), chunk)])
    target = batch[:, -1]
    return logits.argmax(-1) == target, torch.nn.functional.cross_entropy(logits, target, reduction="none")


def line_rope(line: str, model: CausalLM, length: int, config: RetrievalConfig, extra: dict) -> RopeScaling | None:
    """The RoPE frequencies an evaluation line uses at ``length`` inputs (None: the model's own)."""
    if line in SCALINGS:
        return rope_scaling(line, max(1.0, length / config.train_len), model.config, length)
    if line == "yarn_no_factor":
        inv_freq, _ = rope_scaling("yarn", max(1.0, length / config.train_len), model.config, length)
        return inv_freq, 1.0
    if line.startswith("ft_"):
        return rope_scaling(extra["rope_scaling"], extra["factor"], model.config, length)
    return None


def evaluate_line(model: CausalLM, line: str, config: RetrievalConfig, extra: dict | None = None) -> dict:
    """{length: {"accuracy": [per depth], "answer_loss": [per depth], "accuracy_mean", "distance": [per depth]}}."""
    found = {}
    for length in LENGTHS:
        count = sequences_per_cell(length, config)
        rope = line_rope(line, model, length, config, extra or {})
        accuracy, losses, distances = [], [], []
        for index in range(len(DEPTHS)):
            batch, positions = evaluation_batch(length, index, count)
            correct, loss = answer(model, batch, rope)
            accuracy.append(round(float(correct.double().mean()), 5))
            losses.append(round(float(loss.double().mean()), 5))
            distances.append(needle.answer_distance(int(positions[0]), length + 1))
        found[str(length)] = {"accuracy": accuracy, "answer_loss": losses, "distance": distances,
                              "accuracy_mean": round(sum(accuracy) / len(accuracy), 5)}  # fmt: skip
    return found


# --------------------------------------------------------------------------- the tasks


def lines() -> list[str]:
    """Every line evaluated per seed, in drawing order."""
    return [*PE_CHOICES, *COMPARISONS, *SCALINGS, *ABLATIONS, *(f"ft_{m}" for m in FINETUNES)]


def checkpoint_name(line: str) -> str:
    """The model a line evaluates: rope for scalings and ablations, t5 for the clamped one, ft_<m> for fine-tunes."""
    if line in SCALINGS or line in ABLATIONS:
        return "rope"
    if line == "t5_clamped":
        return "t5"
    return line


def plan(config: RetrievalConfig) -> list[tuple[str, int, tuple[str, ...]]]:
    """(task name, seed, names it needs) in priority order: the first seed complete first."""
    tasks = []
    for seed in config.seeds:
        tasks += [(pe, seed, ()) for pe in sorted(PE_CHOICES, key=lambda pe: pe != "rope")]  # RoPE first
        tasks += [(f"ft_{m}", seed, ("rope",)) for m in FINETUNES]
        tasks += [(f"eval_{line}", seed, (checkpoint_name(line),)) for line in lines()]
    return tasks


def run_task(name: str, seed: int, config: RetrievalConfig, work: Path, log_path: str | None) -> str:
    """Train, fine-tune or evaluate in this process on one torch thread; writes <work>/seed<seed>/<name>.json."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    folder = work / f"seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.process_time()
    with open(log_path, "a") if log_path else open("/dev/null", "w") as log:
        if name in PE_CHOICES:
            model, info = train(name, config, seed, log)
            save_lm(model, folder / f"{name}.pt")
            result = {"training": info}
        elif name.startswith("ft_"):
            base, _ = load_lm(folder / "rope.pt")
            model, info = finetune(base, name.removeprefix("ft_"), config, seed, log)
            save_lm(model, folder / f"{name}.pt", {k: info[k] for k in ("rope_scaling", "factor", "finetune_length")})
            result = {"training": info}
        else:
            line = name.removeprefix("eval_")
            model, extra = load_lm(folder / f"{checkpoint_name(line)}.pt")
            if line == "t5_clamped":
                model = clamp_far_buckets(model, config.train_len)
            result = {"curves": evaluate_line(model, line, config, extra)}
        result["task_cpu_seconds"] = round(time.process_time() - start, 1)
        (folder / f"{name}.json").write_text(json.dumps(result) + "\n")
        print(f"needle done seed{seed}/{name} in {result['task_cpu_seconds']:.0f} CPU s", file=log, flush=True)
    return name


def schedule(config: RetrievalConfig, work: Path, jobs: int, log_path: str | None) -> None:
    """Run every task not done yet, at most ``jobs`` at a time, each once the models it needs exist, each in its own
    ``python -m posenc.toy.retrieval --task …`` process (one torch thread, nothing shared)."""
    pending = [t for t in plan(config) if not (work / f"seed{t[1]}" / f"{t[0]}.json").exists()]
    running: dict[subprocess.Popen, tuple] = {}
    while pending or running:
        for task in list(pending):
            if len(running) >= jobs:
                break
            name, seed, needs = task
            if all((work / f"seed{seed}" / f"{need}.json").exists() for need in needs):
                pending.remove(task)
                payload = {"name": name, "seed": seed, "config": asdict(config), "work": str(work), "log": log_path}
                command = [sys.executable, "-m", "posenc.toy.retrieval", "--task", json.dumps(payload)]
                running[subprocess.Popen(command)] = task
        if not running:
            raise RuntimeError(f"tasks wait for models that no task makes: {pending}")
        time.sleep(0.5)
        for process in [p for p in running if p.poll() is not None]:
            name, seed, _ = running.pop(process)
            if process.returncode:  # a failed task stops the run (what is done stays: rerun to resume)
                raise RuntimeError(f"task seed{seed}/{name} failed (exit {process.returncode})")
            print(f"finished seed{seed}/{name}", file=sys.stderr, flush=True)


def run_one(payload: str) -> None:
    """The body of a task process: ``--task`` carries the task, the config, the work folder and the log file."""
    found = json.loads(payload)
    config = RetrievalConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in found["config"].items()})
    run_task(found["name"], found["seed"], config, Path(found["work"]), found["log"])


def write_results(config: RetrievalConfig, work: Path, out: Path, command: str) -> dict:
    """Gather every task's result into ``<out>/retrieval.json``: runs[line][seed] = curves, with the recipe; the
    first seed's models (float16, ≈ 0.2 MB each) go to ``<out>/retrieval/<name>.pt``."""
    runs, training, cpu = {}, {}, {}
    for seed in config.seeds:
        folder = work / f"seed{seed}"
        for name in [*PE_CHOICES, *(f"ft_{m}" for m in FINETUNES)]:
            found = json.loads((folder / f"{name}.json").read_text())
            training.setdefault(name, {})[str(seed)] = found["training"]
            cpu[f"seed{seed}/{name}"] = found["task_cpu_seconds"]
        for line in lines():
            found = json.loads((folder / f"eval_{line}.json").read_text())
            runs.setdefault(line, {})[str(seed)] = found["curves"]
            cpu[f"seed{seed}/eval_{line}"] = found["task_cpu_seconds"]
    result = {
        "task": {
            "values": needle.VALUES,
            "chance": 1 / needle.VALUES,
            "markov_vocab": markov.VOCAB,
            "description": "Markov text with a needle (marker, value) at a depth; the marker again at the end; "
            "the answer is the value",
        },
        "metric": "accuracy: the most likely next token after the question is the needle's value",
        "lengths": list(LENGTHS),
        "depths": list(DEPTHS),
        "eval_seed": EVAL_SEED,
        "config": asdict(config),
        "torch": torch.__version__,
        "threads": 1,
        "recipe": {"command": command, "cpu_seconds": round(sum(cpu.values()), 1), "cpu_seconds_by_task": cpu},
        "training": training,
        "runs": runs,
    }
    (out / "retrieval").mkdir(parents=True, exist_ok=True)
    for name in [*PE_CHOICES, *(f"ft_{m}" for m in FINETUNES)]:
        shutil.copyfile(work / f"seed{config.seeds[0]}" / f"{name}.pt", out / "retrieval" / f"{name}.pt")
    (out / "retrieval.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main(argv: list[str] | None = None) -> dict:
    defaults = RetrievalConfig()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ASSETS)
    parser.add_argument("--work", type=Path, default=Path("artifacts/retrieval"),
                        help="every seed's checkpoints and per-task results (resumable)")  # fmt: skip
    parser.add_argument("--seeds", type=int, nargs="+", default=list(defaults.seeds))
    parser.add_argument("--steps", type=int, default=defaults.steps)
    parser.add_argument("--finetune-steps", type=int, default=defaults.finetune_steps)
    parser.add_argument("--jobs", type=int, default=2, help="processes at once, one torch thread each")
    parser.add_argument("--log", default=None, help="append the tasks' progress here")
    parser.add_argument("--no-write", action="store_true", help="run the tasks only")
    parser.add_argument("--task", help=argparse.SUPPRESS)  # one task, run by the scheduler in its own process
    args = parser.parse_args(argv)
    if args.task:
        run_one(args.task)
        return {}
    config = RetrievalConfig(seeds=tuple(args.seeds), steps=args.steps, finetune_steps=args.finetune_steps)
    options = [f"--seeds {' '.join(map(str, config.seeds))}"] if config.seeds != defaults.seeds else []
    options += [f"--steps {config.steps}"] if config.steps != defaults.steps else []
    options += [f"--finetune-steps {config.finetune_steps}"] if config.finetune_steps != defaults.finetune_steps else []
    command = " ".join(["python -m posenc.toy.retrieval", *options, "--jobs 2"])
    schedule(config, args.work, args.jobs, args.log)
    return {} if args.no_write else write_results(config, args.work, args.out, command)


if __name__ == "__main__":
    main()
