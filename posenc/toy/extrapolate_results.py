"""The results file of "train short, test long": every seed's numbers in one JSON, seed 0's checkpoints shipped.

Read by :mod:`posenc.toy.extrapolate` after its tasks ran (``write_results``) or to re-check the shipped models
(``reevaluate_shipped``). Layout of ``extrapolation.json``:
- ``runs[line][seed]`` = {"training": …, "curves": {length: summary}} for every line and training seed, where a line
  is an encoding (``PE_CHOICES``), a comparison (``COMPARISONS``), RoPE with a scaling (``SCALINGS``) or a fine-tune
  (``ft_<method>``); a summary holds loss, floor, excess_past, excess_within and loss_by_position;
- ``floor`` and ``references`` (uniform guess, symbol frequencies): the same for every model, per length;
- ``models`` / ``rope_scaling`` / ``rope_finetuned`` / ``comparisons``: seed 0's lines, the shipped checkpoints';
- ``finetune_sweep``: each fine-tune method's validation loss per learning rate on seed 0, and the rate chosen;
- ``recipe``: the command, the CPU seconds of every task and their sum.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import asdict
from pathlib import Path

import torch

from posenc.toy import markov
from posenc.toy.extrapolate import (
    COMPARISONS,
    EVAL_LENGTHS,
    EVAL_SEED,
    EVAL_TOKENS,
    FINETUNES,
    LENGTHS,
    POSITION_BIN,
    SCALINGS,
    VALIDATION_SEED,
    ExperimentConfig,
    chosen_rates,
    clamp_far_buckets,
    curves,
    eval_lines,
    finetune_tag,
    rates_of,
    reference_curves,
)
from posenc.toy.lm import load_lm
from posenc.toy.model import PE_CHOICES


def shipped_name(line: str) -> str:
    """The file name of a line's shipped seed-0 checkpoint (scalings and clamped T5 reuse rope.pt, t5.pt)."""
    if line in SCALINGS:
        return "rope"
    if line == "t5_clamped":
        return "t5"
    if line.startswith("ft_"):
        return f"rope_finetuned_{line.removeprefix('ft_')}"
    return line


def slim(found: dict) -> dict:
    """A line's curves without the floor by position (the same for every line: stored once, under ``floor``)."""
    return {length: {k: v for k, v in summary.items() if k != "floor_by_position"} for length, summary in found.items()}


def floor_curves(source: markov.MarkovSource, config: ExperimentConfig) -> tuple[dict, dict]:
    """(floor {length: {loss, by_position}}, references {uniform, unigram: slim curves})."""
    references = reference_curves(source, config)
    floor = {length: {"loss": s["floor"], "by_position": s["floor_by_position"]}
             for length, s in references["uniform"].items()}  # fmt: skip
    return floor, {name: slim(found) for name, found in references.items()}


def seed_views(runs: dict, seed: int) -> dict:
    """The sections that read one seed (the shipped one): models, rope_scaling, rope_finetuned, comparisons."""

    def entry(line: str) -> dict | None:
        run = runs.get(line, {}).get(str(seed))
        return None if run is None else {k: run[k] for k in ("training", "curves") if k in run}

    views = {
        "models": {pe: entry(pe) for pe in PE_CHOICES},
        "rope_scaling": {m: entry(m) for m in SCALINGS},
        "rope_finetuned": {m: entry(f"ft_{m}") for m in FINETUNES},
        "comparisons": {c: entry(c) for c in COMPARISONS},
    }
    return {name: {k: v for k, v in view.items() if v is not None} for name, view in views.items()}


def header(source: markov.MarkovSource, config: ExperimentConfig) -> dict:
    """What the experiment was: task, lengths, seeds, config, metrics."""
    return {
        "task": {
            "name": "markov",
            "vocab": source.vocab,
            "order": source.order,
            "alpha": markov.ALPHA,
            "source_seed": markov.SOURCE_SEED,
        },
        "train_len": config.train_len,
        "eval_lengths": list(EVAL_LENGTHS),
        "lengths": list(LENGTHS),
        "eval_tokens": EVAL_TOKENS,
        "eval_seed": EVAL_SEED,
        "validation_seed": VALIDATION_SEED,
        "position_bin": POSITION_BIN,
        "seed": config.seed,
        "seeds": list(config.seeds),
        "config": asdict(config),
        "metric": "mean next-token cross-entropy over all positions of a sequence, nats",
        "excess_metric": "excess_past: mean of (loss - floor) over input positions p >= train_len (predicting "
        "x_{p+1}), the positions no model saw in training; excess_within: the same over p < train_len",
        "learned_past_table": "clamp: positions >= train_len reuse the table's last row",
        "t5_clamped": "the trained T5 model with every bucket past bucket(train_len - 1) set to that bucket's values",
        "torch": torch.__version__,
        "threads": 1,
    }


def write_results(work: Path, out: Path, config: ExperimentConfig, command: str, wall_seconds: float) -> dict:
    """Gather every task's result from ``work`` into ``out``/extrapolation.json; copy seed 0's checkpoints."""
    source = markov.make_source()
    runs: dict = {}
    cpu: dict[str, float] = {}
    for seed in config.seeds:
        folder = work / f"seed{seed}"
        for path in folder.glob("*.json"):
            kind = (
                "evaluate" if path.name.startswith("eval_") else "finetune" if path.name.startswith("ft_") else "train"
            )
            cpu[kind] = cpu.get(kind, 0.0) + json.loads(path.read_text()).get("task_cpu_seconds",
                json.loads(path.read_text()).get("training", {}).get("cpu_seconds", 0.0))  # fmt: skip
        rates = chosen_rates(work, config)
        for line in eval_lines():
            evaluated = folder / f"eval_{line}.json"
            if not evaluated.exists():
                continue
            result = json.loads(evaluated.read_text())
            run = {"curves": slim(result["curves"])}
            trained = None
            if line in PE_CHOICES or line == "none_long":
                trained = folder / f"{line}.json"
            elif line.startswith("ft_"):
                trained = folder / f"{finetune_tag(line.removeprefix('ft_'), rates[line.removeprefix('ft_')])}.json"
            if trained is not None:
                saved = json.loads(trained.read_text())
                run["training"] = saved["training"] | (
                    {"validation_loss": saved["validation_loss"]} if "validation_loss" in saved else {}
                )
            runs.setdefault(line, {})[str(seed)] = run
    sweep = {}
    for method in FINETUNES:
        losses = {}
        for lr in rates_of(method, config):
            path = work / f"seed{config.seed}" / f"{finetune_tag(method, lr)}.json"
            if path.exists():
                losses[f"{lr:g}"] = json.loads(path.read_text())["validation_loss"]
        sweep[method] = {"validation_loss": losses, "chosen_lr": rates.get(method)}
    floor, references = floor_curves(source, config)
    result = header(source, config) | {
        "recipe": {
            "command": command,
            "cpu_seconds": round(sum(cpu.values()), 1),
            "cpu_seconds_by_kind": {k: round(v, 1) for k, v in cpu.items()},
            "wall_seconds_of_last_call": round(wall_seconds, 1),  # 0 when the call only gathered the results
            "note": "every task on one torch thread, at most two processes at once; cpu_seconds sums every "
            "task's time.process_time (training, fine-tuning incl. the learning-rate sweep, evaluation)",
        },
        "finetune_sweep": sweep,
        "floor": floor,
        "references": references,
        "runs": runs,
    }
    result |= seed_views(runs, config.seed)
    folder = out / "extrapolation"
    folder.mkdir(parents=True, exist_ok=True)
    for line in (*PE_CHOICES, "none_long"):
        if (work / f"seed{config.seed}" / f"{line}.pt").exists():
            shutil.copy(work / f"seed{config.seed}" / f"{line}.pt", folder / f"{line}.pt")
    for method, lr in rates.items():
        shutil.copy(
            work / f"seed{config.seed}" / f"{finetune_tag(method, lr)}.pt", folder / f"rope_finetuned_{method}.pt"
        )
    (out / "extrapolation.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out / 'extrapolation.json'}: {sum(len(v) for v in runs.values())} runs", file=sys.stderr)
    return result


def reevaluate_shipped(out: Path, config: ExperimentConfig, command: str) -> dict:
    """Evaluate the shipped seed-0 checkpoints again; replace seed 0's curves, keep every other seed's numbers."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    path = out / "extrapolation.json"
    result = json.loads(path.read_text())
    source = markov.make_source()
    seed = str(result["seed"])
    factor = result["config"]["finetune_length"] / result["train_len"]
    for line in eval_lines():
        checkpoint = out / "extrapolation" / f"{shipped_name(line)}.pt"
        if not checkpoint.exists():
            continue
        model, _ = load_lm(checkpoint)
        if line == "t5_clamped":
            model = clamp_far_buckets(model, result["train_len"])
        if line in SCALINGS:
            found = curves(model, source, line)
        elif line.startswith("ft_"):
            found = curves(model, source, line.removeprefix("ft_"), factor)
        else:
            found = curves(model, source)
        result["runs"].setdefault(line, {}).setdefault(seed, {})["curves"] = slim(found)
        print(f"{line}: " + " ".join(f"{k}:{v['loss']:.3f}" for k, v in found.items()), file=sys.stderr)
    result |= seed_views(result["runs"], int(seed))
    result["recipe"]["eval_only_command"] = command
    path.write_text(json.dumps(result, indent=1) + "\n")
    return result
