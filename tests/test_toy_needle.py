"""The needle task (posenc.toy.needle) and its experiment's pieces (posenc.toy.retrieval), checked by counting
tokens in the sequences and against the LM's own per-token losses."""

import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.toy import markov, needle, retrieval
from posenc.toy.extrapolate import clamp_far_buckets
from posenc.toy.lm import CausalLM, LMConfig, load_lm, token_losses

SOURCE = markov.make_source()


@settings(max_examples=40, deadline=None)
@given(tokens=st.integers(5, 200), depth=st.one_of(st.none(), st.floats(0, 1)), seed=st.integers(0, 2**31))
def test_one_needle_one_question_and_the_answer_is_the_needle_value(tokens, depth, seed):
    batch, positions, values = needle.needle_batch(SOURCE, 6, tokens, torch.Generator().manual_seed(seed), depth)
    assert batch.shape == (6, tokens)
    for row, n, value in zip(batch, positions.tolist(), values.tolist(), strict=True):
        markers = (row == needle.MARKER).nonzero().flatten().tolist()
        assert markers == [n, tokens - 2]  # the needle's marker, then the question
        value_places = (row >= needle.FIRST_VALUE).nonzero().flatten().tolist()
        assert value_places == [n + 1, tokens - 1]  # the needle's value and the answer, nowhere else
        assert row[n + 1] == row[-1] == value and needle.FIRST_VALUE <= value < needle.VOCAB
        rest = [t for i, t in enumerate(row.tolist()) if i not in (n, n + 1, tokens - 2, tokens - 1)]
        assert all(0 <= t < markov.VOCAB for t in rest)
        assert 0 <= n <= tokens - 4  # the needle ends before the question
        if depth is not None:
            assert n == round(depth * (tokens - 4))


def test_depth_zero_is_the_first_token_and_one_is_just_before_the_question():
    assert needle.needle_position(0.0, 65) == 0
    assert needle.needle_position(1.0, 65) == 61  # marker at 61, value at 62, question at 63, answer 64
    assert needle.answer_distance(61, 65) == 1
    assert needle.answer_distance(0, 65) == 62


def test_random_needles_reach_every_position():
    _, positions, _ = needle.needle_batch(SOURCE, 4000, 12, torch.Generator().manual_seed(3))
    assert sorted(set(positions.tolist())) == list(range(0, 9))


@pytest.mark.parametrize("depth", [-0.1, 1.5, float("nan")])
def test_a_depth_outside_zero_to_one_is_refused(depth):
    with pytest.raises(ValueError, match="depth"):
        needle.needle_position(depth, 65)


def test_the_training_loss_is_the_text_loss_plus_the_answer_loss():
    torch.manual_seed(0)
    model = CausalLM(LMConfig(pe="rope", vocab=needle.VOCAB))
    batch, _, _ = needle.needle_batch(SOURCE, 5, 40, torch.Generator().manual_seed(1))
    losses = token_losses(model, batch)  # [B, T − 1]: the LM's own per-token cross-entropy
    expected = losses[:, :-1].mean() + losses[:, -1].mean()
    assert torch.allclose(retrieval.training_loss(model, batch), expected)


def test_the_evaluation_set_is_fixed_and_each_depth_has_its_own():
    first, places = retrieval.evaluation_batch(64, 2, 8)
    again, _ = retrieval.evaluation_batch(64, 2, 8)
    _, other_places = retrieval.evaluation_batch(64, 3, 8)
    assert torch.equal(first, again)
    assert (places == needle.needle_position(retrieval.DEPTHS[2], 65)).all()
    assert (other_places == needle.needle_position(retrieval.DEPTHS[3], 65)).all()


def test_answer_scores_a_model_that_copies_the_needle_as_always_right():
    """A stand-in 'model' whose logits put all weight on the token after the first marker: accuracy 1, loss ≈ 0."""

    class Copier(torch.nn.Module):
        def forward(self, inputs, rope=None):
            logits = torch.full((*inputs.shape, needle.VOCAB), -30.0)
            first = (inputs == needle.MARKER).float().argmax(-1)  # the needle's marker
            value = inputs[torch.arange(len(inputs)), first + 1]
            logits[torch.arange(len(inputs)), -1, value] = 30.0
            return type("Out", (), {"logits": logits})()

    batch, _ = retrieval.evaluation_batch(64, 1, 16)
    correct, loss = retrieval.answer(Copier(), batch)
    assert correct.all() and (loss < 1e-6).all()


def test_a_tiny_run_trains_finetunes_evaluates_and_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(retrieval, "LENGTHS", (16, 32))
    monkeypatch.setattr(retrieval, "DEPTHS", (0.0, 1.0))
    monkeypatch.setattr(retrieval, "PE_CHOICES", ("rope", "t5"))
    monkeypatch.setattr(retrieval, "SCALINGS", ("linear",))
    monkeypatch.setattr(retrieval, "FINETUNES", ("plain",))
    config = retrieval.RetrievalConfig(
        train_len=16,
        steps=3,
        batch_size=4,
        seeds=(0,),
        finetune_length=32,
        finetune_steps=2,
        finetune_batch=2,
        eval_sequences=4,
        long_eval_sequences=2,
    )
    for name, seed, _ in retrieval.plan(config):
        retrieval.run_task(name, seed, config, tmp_path, None)
    written = retrieval.write_results(config, tmp_path, tmp_path, "python -m posenc.toy.retrieval")
    stored = json.loads((tmp_path / "retrieval.json").read_text())
    assert stored == json.loads(json.dumps(written))
    assert set(stored["runs"]) == {"rope", "t5", "t5_clamped", "linear", "yarn_no_factor", "ft_plain"}
    cell = stored["runs"]["rope"]["0"]["32"]
    assert len(cell["accuracy"]) == 2 and all(0 <= a <= 1 for a in cell["accuracy"])
    assert cell["distance"] == [needle.answer_distance(0, 33), 1]
    assert stored["training"]["ft_plain"]["0"]["finetune_length"] == 32


@pytest.mark.parametrize("line", ["rope", "alibi", "t5_clamped", "linear", "ft_yarn"])
def test_the_shipped_seed_0_models_give_the_shipped_numbers(line, monkeypatch):
    """The recipe reproduces its file: seed 0's shipped models, evaluated again here at 64 and 256 tokens, give the
    accuracies and answer losses the JSON holds (same evaluation sequences, one thread)."""
    shipped = retrieval.ASSETS / "retrieval.json"
    if not shipped.exists():
        pytest.skip("the needle experiment has not been run")
    torch.set_num_threads(1)
    data = json.loads(shipped.read_text())
    config = retrieval.RetrievalConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in data["config"].items()})
    model, extra = load_lm(retrieval.ASSETS / "retrieval" / f"{retrieval.checkpoint_name(line)}.pt")
    if line == "t5_clamped":
        model = clamp_far_buckets(model, config.train_len)
    monkeypatch.setattr(retrieval, "LENGTHS", (64, 256))
    again = retrieval.evaluate_line(model, line, config, extra)
    for length in ("64", "256"):
        stored = data["runs"][line]["0"][length]
        assert again[length]["accuracy"] == stored["accuracy"]
        assert again[length]["answer_loss"] == pytest.approx(stored["answer_loss"], abs=2e-5)
