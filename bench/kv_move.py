"""Moving a cached chunk's keys against recomputing them, measured: a Llama-3.1-8B-shaped decoder (random weights,
bfloat16) holds a 10 000-token prefix in its cache; a 1 000-token chunk's keys are either rotated by R(Δ) in every
layer (posenc.kv_cache.rerotate_keys over its K cache) or recomputed by running the chunk through the model after the
prefix. Run it where there is a GPU: ``python -m bench.kv_move`` (``--small``: a 2-layer model on the CPU, to try it).
posenc's rotation runs as several unfused passes in float32; for scale it also times one copy of the same K cache
(``copy_ms``: one read and one write, the memory floor of any rotation) and the rotation written as
k·cos + rotate_half(k)·sin in the cache's dtype, fused by ``torch.compile`` on the GPU (``fused_ms``; eager on the CPU).
Prints one JSON line (milliseconds, medians of the repeats) and writes it to ``$OUT/kv_move.json`` when OUT is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import warnings

import torch

from posenc.kv_cache import rerotate_keys
from posenc.rope import rope_inv_freq

LLAMA_31_8B = {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
               "num_key_value_heads": 8, "vocab_size": 128256, "rope_theta": 500000.0}  # fmt: skip
SMALL = LLAMA_31_8B | {"num_hidden_layers": 2, "vocab_size": 1000}


def timed(step, device: str, repeats: int) -> float:
    """Median wall time of ``step()`` in ms, after one warm-up, synchronising the GPU around each run."""
    step()
    times = []
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        step()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(small: bool, prefix: int, chunk: int, repeats: int) -> dict:
    from transformers import LlamaConfig, LlamaModel

    device = "cuda" if torch.cuda.is_available() and not small else "cpu"
    config = LlamaConfig(**(SMALL if small else LLAMA_31_8B), max_position_embeddings=prefix + chunk + 1)
    torch.manual_seed(0)
    with torch.device(device):
        model = LlamaModel(config).to(torch.bfloat16).eval()
    ids = torch.randint(0, config.vocab_size, (1, prefix + chunk), device=device)
    warnings.filterwarnings("ignore")  # past_key_values' rename to cache in newer transformers
    with torch.no_grad():
        cache = model(ids[:, :prefix], use_cache=True).past_key_values

        def recompute():
            model(ids[:, prefix:], past_key_values=cache, use_cache=True)
            cache.crop(-chunk)  # back to the prefix (a negative length removes that many tokens)

        heads, head_dim = config.num_key_value_heads, config.hidden_size // config.num_attention_heads
        keys = torch.randn(config.num_hidden_layers * heads, chunk, head_dim, device=device, dtype=torch.bfloat16)
        base = LLAMA_31_8B["rope_theta"]
        theta = rope_inv_freq(head_dim, base, dtype=torch.float64, device=device)

        def rotate():
            rerotate_keys(keys, prefix, theta)

        angles = (prefix * theta).float()  # R(Δ) for Δ = prefix, half layout: cos, sin over [x_i, x_{i+P}]
        cos, sin = (torch.cat([f(angles), f(angles)]).to(keys.dtype) for f in (torch.cos, torch.sin))

        def rotation(k):
            first, second = k.chunk(2, dim=-1)
            return k * cos + torch.cat((-second, first), dim=-1) * sin

        fused = torch.compile(rotation) if device == "cuda" else rotation
        copied = torch.empty_like(keys)
        recompute_ms, rotate_ms = timed(recompute, device, repeats), timed(rotate, device, repeats)
        copy_ms = timed(lambda: copied.copy_(keys), device, repeats)
        fused_ms = timed(lambda: fused(keys), device, repeats)
        assert torch.allclose(fused(keys).float(), rerotate_keys(keys, prefix, theta).float(), atol=0.05)
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    return {"device": name, "layers": config.num_hidden_layers, "prefix": prefix, "chunk": chunk,
            "recompute_ms": round(recompute_ms, 3), "rotate_ms": round(rotate_ms, 3),
            "ratio": round(recompute_ms / rotate_ms, 1), "copy_ms": round(copy_ms, 3), "fused_ms": round(fused_ms, 3),
            "fused_ratio": round(recompute_ms / fused_ms, 1), "torch": torch.__version__}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.kv_move", description=__doc__)
    parser.add_argument("--small", action="store_true", help="a 2-layer model on the CPU")
    parser.add_argument("--prefix", type=int, default=10_000)
    parser.add_argument("--chunk", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    row = measure(args.small, args.prefix, args.chunk, args.repeats)
    print(json.dumps(row))
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "kv_move.json"), "w") as handle:
            json.dump(row, handle)


if __name__ == "__main__":
    main()
