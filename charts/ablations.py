"""The ablations' captions on "Train short, test long": each one's numbers from ``assets/toy/ablations.json``
(:mod:`posenc.toy.ablations`) as ranges over the training seeds, placed beside the claim it tests. A caption whose
ablation is not in the file (not run for every seed yet) is left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from charts.extrapolation import line_names, seed_range
from posenc.toy.model import ASSETS, PE_CHOICES
from ui.i18n import text

ABLATIONS = ASSETS / "ablations.json"
SHIFTED_END = 512  # absolute_wrapped reads a training-length input at the last positions before this one (448 … 511)
# where each caption goes: the Markov section's line group, the needle section's ("needle_<group>"), the attention
# maps and the learned table; each caption names the ablation it reads
PLACES = {
    "encodings": (("ablation_absolute", "absolute_wrapped"), ("ablation_alibi_markov", "alibi_capped_markov"),
                  ("ablation_alibi_unpenalised", "alibi_far_unpenalised")),
    "rope": (("ablation_pi", "pi_squeeze"), ("ablation_yarn_paper", "yarn_paper_fast_pair")),
    "comparisons": (("ablation_t5_window", "t5_window"), ("ablation_t5_buckets", "t5_untrained_buckets")),
    "needle_encodings": (("ablation_alibi_needle", "alibi_capped_needle"), ("ablation_positions", "positions_removed")),
    "needle_rope": (("ablation_pi_needle", "pi_needle"),),
    "attention": (("attention_seeds", "attention_band_rope"),  # lists every encoding whose band is measured
                  ("ablation_nope_layer1", "nope_layer1")),
    "similarity": (("similarity_seeds", "learned_neighbour_cosine"), ("ablation_learned_gapped", "learned_gapped")),
}  # fmt: skip
PI_RATES = ("s2", "s4", "s8", "s32")  # pi_needle's PI readings at the training length


@st.cache_data(show_spinner=False, max_entries=1)
def ablations(path: str = str(ABLATIONS)) -> dict | None:
    """The ablations' file, or None when it is not there."""
    found = Path(path)
    return json.loads(found.read_text()) if found.exists() else None


def per_seed(data: dict, name: str, *keys: str) -> list:
    """One value per seed: ablations[name][seed][key][key]…"""
    values = []
    for found in data["ablations"][name].values():
        for key in keys:
            found = found[key]
        values.append(found)
    return values


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def excess(data: dict, name: str, *keys: str, metric: str = "excess_past") -> str:
    return seed_range(per_seed(data, name, *keys, metric))


def accuracy(data: dict, name: str, *keys: str, depth: int | None = None) -> str:
    """The needle accuracy per seed, at one depth (index) or the mean over depths, as a range."""
    found = per_seed(data, name, *keys)
    return seed_range([run["accuracy_mean"] if depth is None else run["accuracy"][depth] for run in found])


def numbers(data: dict, name: str, lang: str) -> dict[str, str | int]:
    """What the caption of ablation ``name`` quotes."""
    train = data["train_len"]  # last: the farthest position (and distance) training saw
    found: dict[str, str | int] = {
        "train": train,
        "last": train - 1,
        "seeds": len(data["seeds"]),
        "seed_list": ("、" if lang == "zh" else ", ").join(map(str, data["seeds"])),
    }
    found["command"] = data["command"]
    if name == "absolute_wrapped":
        found |= {"shifted_first": SHIFTED_END - train, "shifted_last": SHIFTED_END - 1}
        for pe in ("sinusoidal", "learned"):
            for way in ("plain_512", "wrapped_512"):
                found[f"{pe}_{way.split('_')[0]}"] = excess(data, name, pe, way)
            found[f"{pe}_shifted"] = excess(data, name, pe, "shifted_64", metric="excess_within")
            found[f"{pe}_64"] = excess(data, name, pe, "plain_64", metric="excess_within")
    elif name == "alibi_capped_markov":
        found |= {f"{way}_{n}": excess(data, name, f"{way}_{n}") for way in ("plain", "capped") for n in (512, 2048)}
    elif name == "pi_squeeze":
        found["plain"] = excess(data, name, "plain_at_64", metric="excess_within")
        for s in (2, 4, 8):
            found[f"s{s}"] = excess(data, name, f"s{s}_at_64", metric="excess_within")
            found[f"long{s}"] = excess(data, name, f"s{s}_at_{64 * s}")
    elif name == "yarn_paper_fast_pair":
        for way in ("yarn", "yarn_paper", "paper_pair0_whole"):
            found |= {f"{way}_{n}": excess(data, name, f"{way}_{n}") for n in (128, 512)}
    elif name == "t5_window":
        found |= {f"{way}_{n}": excess(data, name, f"{way}_{n}") for way in ("plain", "window") for n in (512, 2048)}
    elif name == "t5_untrained_buckets":
        separator, runs = text(lang, "extrapolation.cp_list_separator"), data["ablations"][name].values()
        for key, than in (("above", "trained_max"), ("above_last", "last_trained")):
            counts = [sum(u > t for u, t in zip(run["untrained_max"], run[than], strict=True)) for run in runs]
            found[key] = separator.join(map(str, counts))
    elif name == "alibi_capped_needle":
        for way in ("plain", "capped"):
            found[f"{way}_far"] = accuracy(data, name, f"{way}_2048", depth=0)
            found[f"{way}_mean"] = accuracy(data, name, f"{way}_2048")
    elif name == "positions_removed":
        for pe in ("sinusoidal", "learned", "t5"):
            found |= {f"{pe}_{way}": accuracy(data, name, pe, f"{way}_64") for way in ("plain", "removed")}
        found["t5_removed_start"] = accuracy(data, name, "t5", "removed_64", depth=0)  # the needle at the very start
    elif name == "alibi_far_unpenalised":
        for way in ("plain", "unpenalised"):
            found |= {f"{way}_{n}": excess(data, name, f"{way}_{n}") for n in (512, 2048)}
    elif name == "nope_layer1":
        for way, short in (("plain", "plain"), ("self_only", "self"), ("zeroed", "zeroed"), ("average", "average")):
            found[f"{short}_band"] = seed_range([mean(run["band"]["2"]["within"]) for run in per_seed(data, name, way)])
            found[f"{short}_64"] = excess(data, name, way, "at_64", metric="excess_within")
        found["self_same"] = seed_range([mean(run["same_symbol"]) for run in per_seed(data, name, "self_only")])
    elif name == "learned_gapped":
        for kind in ("near", "far", "in_order"):
            for layer in ("1", "2"):
                found[f"{kind}_{layer}"] = seed_range([mean(run[layer]) for run in per_seed(data, name, kind)])
        found["uniform_far"] = seed_range(per_seed(data, name, "uniform_far"))
        found["gapped_excess"] = seed_range(per_seed(data, name, "excess_gapped"))
        found["in_order_excess"] = seed_range(per_seed(data, name, "excess_in_order"))
        found["draws"] = per_seed(data, name, "draws")[0]
    elif name == "pi_needle":
        runs = list(data["ablations"][name].values())
        found["markov_plain"] = seed_range([run["markov"]["plain"]["excess_within"] for run in runs])
        found["markov_pi"] = seed_range([run["markov"][s]["excess_within"] for run in runs for s in PI_RATES])
        found["needle_pi"] = seed_range([min(min(run["needle"][s]["accuracy"]) for s in PI_RATES) for run in runs])
        found["markov_unrotated"] = seed_range([run["markov"]["unrotated"]["excess_within"] for run in runs])
        found["needle_unrotated"] = seed_range([min(run["needle"]["unrotated"]["accuracy"]) for run in runs])
    elif name == "attention_band_rope":
        found |= band_numbers(data, lang)
    elif name == "learned_neighbour_cosine":
        found["cosine"] = seed_range(per_seed(data, name))
    return found


def band_numbers(data: dict, lang: str) -> dict[str, str]:
    """Per encoding whose band is in the file (``attention_band_<pe>``), layer 2: the heads' mean weight on the band
    before the training length and past it, as ranges over the seeds."""
    names, separator = line_names(lang), text(lang, "extrapolation.cp_list_separator")
    parts = []
    for pe in PE_CHOICES:
        if f"attention_band_{pe}" not in data["ablations"]:
            continue
        layer2 = [run["2"] for run in data["ablations"][f"attention_band_{pe}"].values()]  # per seed, per head
        within = seed_range([sum(s["within"]) / len(s["within"]) for s in layer2])
        past = seed_range([sum(s["past"]) / len(s["past"]) for s in layer2])
        parts.append(text(lang, "extrapolation.attention_seeds_model", model=names[pe], within=within, past=past))
    return {"models": separator.join(parts)}


def captions(lang: str, place: str) -> list[str]:
    """The ablation captions for one place on the page, in ``lang``; none without the file."""
    data = ablations()
    if data is None:
        return []
    return [text(lang, f"extrapolation.{key}", **numbers(data, name, lang))
            for key, name in PLACES.get(place, ()) if name in data["ablations"]]  # fmt: skip
