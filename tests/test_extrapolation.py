"""Train short, test long: the Markov source, the causal LM, RoPE scaling inside it, and the shipped curves."""

import io
import json
import math

import pytest
import torch

from posenc.rope import rope_inv_freq
from posenc.toy import extrapolate, markov
from posenc.toy.lm import CausalLM, LMConfig, load_lm, round_lm_to_float16, save_lm, token_losses
from posenc.toy.model import ASSETS, PE_CHOICES

RESULTS = ASSETS / "extrapolation.json"
CHECKPOINTS = ASSETS / "extrapolation"


def _model(pe: str, max_len: int = 8) -> CausalLM:
    torch.manual_seed(0)
    return CausalLM(LMConfig(pe=pe, d_model=16, heads=2, max_len=max_len)).eval()


def test_the_source_rows_are_distributions_and_the_floor_is_their_log():
    source = markov.make_source()
    assert source.table.shape == (markov.VOCAB**markov.ORDER, markov.VOCAB)
    torch.testing.assert_close(source.table.sum(-1), torch.ones(len(source.table), dtype=torch.float64))
    tokens = markov.sample(source, 3, 12, torch.Generator().manual_seed(5))
    floor = markov.true_loss(source, tokens)
    for b in range(3):  # a slow loop over positions, from the table itself
        for t in range(1, 12):
            if t < markov.ORDER:
                expected = math.log(markov.VOCAB)
            else:
                a, c, d = tokens[b, t - 3 : t].tolist()
                expected = -math.log(float(source.table[(a * markov.VOCAB + c) * markov.VOCAB + d, tokens[b, t]]))
            assert floor[b, t - 1].item() == pytest.approx(expected, abs=1e-9)


def test_samples_follow_the_table():
    """Next-token frequencies after the most common context match its row of the table."""
    source = markov.make_source()
    tokens = markov.sample(source, 3000, 64, torch.Generator().manual_seed(0))
    contexts = markov.context_index(tokens)  # [B, L − K]
    nexts = tokens[:, markov.ORDER :]
    common = torch.bincount(contexts.flatten()).argmax()
    counts = torch.bincount(nexts[contexts == common], minlength=markov.VOCAB).double()
    assert counts.sum() > 800
    torch.testing.assert_close(counts / counts.sum(), source.table[common], atol=0.05, rtol=0)


def test_the_source_is_the_same_on_every_call():
    torch.testing.assert_close(markov.make_source().table, markov.make_source().table, atol=0, rtol=0)


@pytest.mark.parametrize("pe", PE_CHOICES)
def test_every_encoding_is_causal_and_runs_past_the_training_length(pe):
    """A later token never changes an earlier prediction, at 3 × the learned table's length too."""
    model = _model(pe)
    tokens = torch.randint(0, 8, (2, 24), generator=torch.Generator().manual_seed(1))
    changed = tokens.clone()
    changed[:, 15:] = (changed[:, 15:] + 1) % 8
    with torch.no_grad():
        before, after = model(tokens).logits, model(changed).logits  # [B, L, V]
    torch.testing.assert_close(before[:, :15], after[:, :15], atol=1e-5, rtol=0)
    assert not torch.allclose(before[:, 15:], after[:, 15:])


def test_the_learned_table_is_clamped_to_its_last_row():
    model = _model("learned", max_len=8)
    table = model.embed_positions(20)
    assert table.shape == (20, 16)
    torch.testing.assert_close(table[:8], model.positions.table.weight)
    torch.testing.assert_close(table[8:], model.positions.table.weight[-1].expand(12, -1))


def test_unscaled_rope_scaling_is_plain_rope():
    model = _model("rope")
    tokens = torch.randint(0, 8, (2, 30), generator=torch.Generator().manual_seed(2))
    plain = extrapolate.rope_scaling("plain", 1.0, model.config, 30)
    torch.testing.assert_close(token_losses(model, tokens, plain), token_losses(model, tokens), atol=1e-5, rtol=0)


def test_ntk_is_the_static_ntk_base_for_the_evaluated_length():
    """NTK-aware at length L: base' = base · (L / L_train)^(D/(D−2)), written out independently here."""
    config = LMConfig(pe="rope", max_len=64)
    inv_freq, factor = extrapolate.rope_scaling("ntk", 8.0, config, 512)
    dim = config.d_model // config.heads
    expected = rope_inv_freq(dim, 10000.0 * 8 ** (dim / (dim - 2)), dtype=torch.float64)
    torch.testing.assert_close(inv_freq.double(), expected, atol=1e-7, rtol=1e-6)
    assert factor == 1.0


def test_the_attention_factor_multiplies_the_logits_by_its_square():
    """YaRN's factor on cos and sin = q and k scaled by it: the same loss as a model with scaled query/key weights."""
    model = _model("rope")
    tokens = torch.randint(0, 8, (1, 20), generator=torch.Generator().manual_seed(3))
    inv_freq = rope_inv_freq(8, 10000.0)
    scaled = _model("rope")
    with torch.no_grad():
        for block in scaled.blocks:
            for layer in (block.attention.query, block.attention.key):
                layer.weight.mul_(1.5)
                layer.bias.mul_(1.5)
    torch.testing.assert_close(
        token_losses(model, tokens, (inv_freq, 1.5)), token_losses(scaled, tokens, (inv_freq, 1.0)), atol=1e-5, rtol=0
    )


def test_yarn_with_the_papers_ramp_follows_the_papers_equations():
    """arXiv 2309.00071 eqs. 17–18, written out here: r_i = L·θ_i/2π turns in the training length, γ(r) = clamp((r − β)
    /(α − β), 0, 1) with α = 1, β = 32 … read as γ = clamp((r − 1)/(32 − 1)), θ'_i = (1 − γ_i)·θ_i/s + γ_i·θ_i."""
    config = LMConfig(pe="rope", max_len=64)
    dim = config.d_model // config.heads
    theta = [10000.0 ** (-2 * i / dim) for i in range(dim // 2)]
    inv_freq, factor = extrapolate.rope_scaling("yarn_paper", 8.0, config, 512)
    expected = []
    for t in theta:
        gamma = min(max((64 * t / (2 * math.pi) - 1) / 31, 0.0), 1.0)
        expected.append((1 - gamma) * t / 8 + gamma * t)
    torch.testing.assert_close(inv_freq.double(), torch.tensor(expected, dtype=torch.float64), atol=1e-9, rtol=1e-6)
    assert factor == pytest.approx(0.1 * math.log(8) + 1)


def test_the_two_yarn_ramps_differ_on_the_fastest_pair_because_no_pair_turns_32_times():
    """With 8 pairs and 64 training tokens the fastest pair turns 64/2π ≈ 10 times (fewer than β_fast = 32):
    the paper's ramp interpolates it in part, transformers' range, rounded down to pair 0, keeps it whole."""
    config = LMConfig(pe="rope", max_len=64)
    hf, _ = extrapolate.rope_scaling("yarn", 8.0, config, 512)
    paper, _ = extrapolate.rope_scaling("yarn_paper", 8.0, config, 512)
    theta0 = 1.0
    assert 64 * theta0 / (2 * math.pi) < 32
    assert float(hf[0]) == pytest.approx(theta0)  # kept whole
    assert float(paper[0]) < 0.5 * theta0  # interpolated by about 70 %


def test_clamped_t5_gives_every_far_key_the_bias_of_the_last_trained_distance():
    torch.manual_seed(0)
    model = CausalLM(LMConfig(pe="t5", max_len=64)).eval()
    clamped = extrapolate.clamp_far_buckets(model, 64)
    before, after = model.bias(300), clamped.bias(300)  # [H, Q, K]
    for query, key in [(299, 0), (299, 150), (200, 100), (80, 10)]:  # distances ≥ 64
        torch.testing.assert_close(after[:, query, key], before[:, 63, 0])  # the bias of distance 63
    for query, key in [(299, 299), (299, 290), (100, 37), (63, 0)]:  # distances < 64: unchanged
        torch.testing.assert_close(after[:, query, key], before[:, query, key])


def test_the_excess_past_the_training_length_averages_loss_minus_floor_on_the_later_positions():
    losses, floor = torch.rand(5, 100, dtype=torch.float64) + 1, torch.rand(5, 100, dtype=torch.float64)
    summary = extrapolate.summarise(losses, floor, train_len=64)
    gap = (losses - floor).numpy()
    assert summary["excess_past"] == pytest.approx(gap[:, 64:].mean(), abs=1e-5)
    assert summary["excess_within"] == pytest.approx(gap[:, :64].mean(), abs=1e-5)
    assert summary["loss"] - summary["floor"] == pytest.approx(gap.mean(), abs=2e-5)
    assert extrapolate.summarise(losses[:, :64], floor[:, :64])["excess_past"] is None


def test_every_task_of_the_plan_waits_only_for_tasks_the_plan_makes():
    config = extrapolate.ExperimentConfig()
    tasks = extrapolate.plan(config, ("train", "eval"))
    keys = {task.key for task in tasks}
    assert len(keys) == len(tasks)
    for task in tasks:
        assert set(task.needs) <= keys, task.key
    evaluated = {task.key for task in tasks if task.kind == "evaluate"}
    assert len(evaluated) == len(config.seeds) * len(extrapolate.eval_lines())


def test_a_few_steps_lower_the_loss_and_the_checkpoint_round_trips(tmp_path):
    config = extrapolate.ExperimentConfig(train_len=16, batch_size=8, warmup=2)
    source = markov.make_source()
    tokens = markov.sample(source, 16, 17, torch.Generator().manual_seed(9))
    torch.manual_seed(config.seed)
    untrained = CausalLM(LMConfig(pe="alibi", max_len=16)).eval()
    model, info = extrapolate.train_model("alibi", config, source, log=io.StringIO(), steps=30)
    with torch.no_grad():
        assert token_losses(model, tokens).mean() < token_losses(untrained, tokens).mean() - 0.05
    assert info["steps"] == 30
    save_lm(model, tmp_path / "m.pt", {"factor": 2.0})
    loaded, extra = load_lm(tmp_path / "m.pt")
    assert extra == {"factor": 2.0}
    with torch.no_grad():
        torch.testing.assert_close(loaded(tokens).logits, round_lm_to_float16(model)(tokens).logits)


shipped = pytest.mark.skipif(not RESULTS.exists(), reason="the extrapolation experiment has not been run")


@shipped
@pytest.mark.parametrize("pe, length", [("alibi", 64), ("alibi", 512)])  # one model at two lengths
def test_a_shipped_checkpoint_reproduces_its_curve(pe, length):
    """Reload a shipped model, evaluate it on the fixed evaluation set, and find the number in the JSON."""
    recorded = json.loads(RESULTS.read_text())["models"][pe]["curves"][str(length)]
    model, _ = load_lm(CHECKPOINTS / f"{pe}.pt")
    source = markov.make_source()
    tokens = extrapolate.evaluation_tokens(length, source)
    summary = extrapolate.summarise(extrapolate.evaluate(model, tokens), markov.true_loss(source, tokens))
    assert summary["floor"] == pytest.approx(recorded["floor"], abs=1e-5)
    assert summary["loss"] == pytest.approx(recorded["loss"], abs=2e-3)


@shipped
def test_the_shipped_yarn_curve_is_reproduced():
    recorded = json.loads(RESULTS.read_text())["rope_scaling"]["yarn"]["curves"]["256"]
    model, _ = load_lm(CHECKPOINTS / "rope.pt")
    source = markov.make_source()
    tokens = extrapolate.evaluation_tokens(256, source)
    summary = extrapolate.summarise(extrapolate.evaluate(model, tokens, "yarn"), markov.true_loss(source, tokens))
    assert summary["loss"] == pytest.approx(recorded["loss"], abs=2e-3)


@shipped
def test_the_results_file_records_how_it_was_made():
    data = json.loads(RESULTS.read_text())
    assert data["train_len"] == 64 and max(data["eval_lengths"]) >= 8 * data["train_len"]
    assert max(data["lengths"]) >= 2048 and data["recipe"]["cpu_seconds"] > 0
    for pe in PE_CHOICES:
        training = data["models"][pe]["training"]
        assert training["steps"] == data["config"]["steps"] and training["cpu_seconds"] > 0
        for seed, run in data["runs"][pe].items():
            assert run["training"]["steps"] == data["config"]["steps"] and run["training"]["seed"] == int(seed)
    assert set(data["rope_scaling"]) == set(extrapolate.SCALINGS)
    assert set(data["rope_finetuned"]) == set(extrapolate.FINETUNES)
    for method in extrapolate.FINETUNES:  # every seed of a fine-tune used the rate chosen on seed 0
        chosen = data["finetune_sweep"][method]["chosen_lr"]
        assert {run["training"]["lr"] for run in data["runs"][f"ft_{method}"].values()} == {chosen}
    total = sum(p.stat().st_size for p in CHECKPOINTS.glob("*.pt"))
    assert total < 5_000_000


@shipped
def test_the_fine_tunes_are_evaluated_past_their_own_length():
    data = json.loads(RESULTS.read_text())
    for method in extrapolate.FINETUNES:
        for run in data["runs"][f"ft_{method}"].values():
            assert run["training"]["finetune_length"] == 512
            assert {"1024", "2048"} <= set(run["curves"])


@shipped
def test_the_shipped_clamped_t5_curve_is_reproduced():
    recorded = json.loads(RESULTS.read_text())["runs"]["t5_clamped"]["0"]["curves"]["256"]
    model = extrapolate.clamp_far_buckets(load_lm(CHECKPOINTS / "t5.pt")[0], 64)
    source = markov.make_source()
    tokens = extrapolate.evaluation_tokens(256, source)
    summary = extrapolate.summarise(extrapolate.evaluate(model, tokens), markov.true_loss(source, tokens))
    assert summary["excess_past"] == pytest.approx(recorded["excess_past"], abs=2e-3)
