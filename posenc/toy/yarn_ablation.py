"""Is YaRN's cost on the first positions its frequencies or its attention factor? An ablation for every seed.

    python -m posenc.toy.yarn_ablation --jobs 2

"Train short, test long" says that at 512 tokens YaRN (s = 8, no fine-tuning) is above the floor even on the first
64 positions, and explains it by the stretched frequencies, which apply to the whole sequence. This module measures
that claim: the RoPE model of every training seed (seed 0's shipped, the others rebuilt by
:func:`posenc.toy.seed_models.seed_model`, deterministic for a seed, one thread and a CPU: the file records each
seed's plain-YaRN excess, which must equal ``extrapolation.json``'s) evaluated at 512 tokens three ways — YaRN as
transformers computes it (frequencies and attention factor 0.1·ln s + 1), YaRN's frequencies with factor 1, and the
unscaled model with the factor alone — each as the excess over the source's floor on input positions p < 64 and
p ≥ 64 (:func:`extrapolate.summarise`).
Writes ``<out>/yarn_ablation.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import torch

from posenc.toy import markov
from posenc.toy.extrapolate import ExperimentConfig, evaluation_tokens, rope_scaling, summarise
from posenc.toy.lm import RopeScaling, token_losses
from posenc.toy.model import ASSETS
from posenc.toy.seed_models import run_processes, seed_model

LENGTH = 512  # 8× the training length: s = 8
WAYS = ("yarn", "yarn_frequencies_only", "factor_only")


def way_rope(way: str, model, length: int = LENGTH) -> RopeScaling:
    """(inv_freq, attention factor) for one way of evaluating at ``length``: both parts of YaRN, its frequencies with
    factor 1, or the unscaled frequencies with YaRN's factor."""
    factor = length / model.config.max_len
    yarn_freq, attention = rope_scaling("yarn", factor, model.config, length)
    plain_freq, _ = rope_scaling("plain", 1.0, model.config, length)
    return {"yarn": (yarn_freq, attention), "yarn_frequencies_only": (yarn_freq, 1.0),
            "factor_only": (plain_freq, attention)}[way]  # fmt: skip


@torch.no_grad()
def excess(model, way: str) -> dict:
    """The evaluation set at LENGTH read one way: {"excess_within", "excess_past", "attention_factor"}."""
    source = markov.make_source()
    tokens = evaluation_tokens(LENGTH, source)
    rope = way_rope(way, model)
    chunk = max(1, 2**22 // LENGTH**2)
    losses = torch.cat([token_losses(model, tokens[i : i + chunk], rope) for i in range(0, len(tokens), chunk)])
    found = summarise(losses, markov.true_loss(source, tokens), model.config.max_len)
    return {"excess_within": found["excess_within"], "excess_past": found["excess_past"], "attention_factor": rope[1]}


def run_seed(seed: int, work: Path, config: ExperimentConfig) -> dict:
    """Read the RoPE model of ``seed`` (shipped, cached or rebuilt) three ways; cached in ``<work>/seed<seed>.json``."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    done = work / f"seed{seed}.json"
    if done.exists():
        return json.loads(done.read_text())
    start = time.process_time()
    model = seed_model("markov", "rope", seed)
    result = {way: excess(model, way) for way in WAYS}
    result["cpu_seconds"] = round(time.process_time() - start, 1)
    work.mkdir(parents=True, exist_ok=True)
    done.write_text(json.dumps(result) + "\n")
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ASSETS)
    parser.add_argument("--work", type=Path, default=Path("artifacts/yarn_ablation"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)  # one seed, in its own process
    args = parser.parse_args(argv)
    config = ExperimentConfig()
    if args.seed is not None:
        run_seed(args.seed, args.work, config)
        return {}
    run_processes([[sys.executable, "-m", "posenc.toy.yarn_ablation", "--seed", str(seed), "--work", str(args.work)]
                   for seed in config.seeds], args.jobs)  # fmt: skip
    seeds = {str(seed): json.loads((args.work / f"seed{seed}.json").read_text()) for seed in config.seeds}
    result = {
        "length": LENGTH,
        "train_len": config.train_len,
        "ways": list(WAYS),
        "config": asdict(config),
        "command": "python -m posenc.toy.yarn_ablation --jobs 2",
        "torch": torch.__version__,
        "seeds": seeds,
    }
    (args.out / "yarn_ablation.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    main()
