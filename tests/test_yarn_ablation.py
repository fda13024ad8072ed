"""extrapolation.yarn_ablation_note ("The cost comes from the frequencies"), held to assets/toy/yarn_ablation.json
for every seed, and the ablation's models held to the experiment's: each seed's plain-YaRN numbers equal
extrapolation.json's, so the retrained RoPE models are the ones the page's curves measured."""

import json
import math

import pytest

from posenc.toy.model import ASSETS

ABLATION, MARKOV = ASSETS / "yarn_ablation.json", ASSETS / "extrapolation.json"
pytestmark = pytest.mark.skipif(not ABLATION.exists() or not MARKOV.exists(), reason="the ablation has not run")


@pytest.fixture(scope="module")
def ablation() -> dict:
    return json.loads(ABLATION.read_text())


def test_every_seed_was_measured(ablation):
    assert sorted(ablation["seeds"]) == ["0", "1", "2"] and ablation["length"] == 512


def test_the_ablations_models_are_the_experiments(ablation):
    markov = json.loads(MARKOV.read_text())
    for seed, found in ablation["seeds"].items():
        shipped = markov["runs"]["yarn"][seed]["curves"]["512"]
        assert found["yarn"]["excess_within"] == pytest.approx(shipped["excess_within"], abs=1e-4), seed
        assert found["yarn"]["excess_past"] == pytest.approx(shipped["excess_past"], abs=1e-4), seed


def test_the_cost_on_the_first_positions_comes_from_the_frequencies(ablation):
    """In every seed the frequencies alone cost at least 90 % of what YaRN costs there, the factor alone at most
    10 %, and the factors are 1 and 0.1·ln 8 + 1."""
    for seed, found in ablation["seeds"].items():
        whole = found["yarn"]["excess_within"]
        assert found["yarn_frequencies_only"]["excess_within"] >= 0.9 * whole, seed
        assert found["factor_only"]["excess_within"] <= 0.1 * whole, seed
        assert found["yarn_frequencies_only"]["attention_factor"] == 1.0
        assert found["factor_only"]["attention_factor"] == pytest.approx(0.1 * math.log(8) + 1)
