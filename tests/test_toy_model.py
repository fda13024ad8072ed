"""The toy encoder–decoder: shapes, what positional encoding changes, training, and the shipped checkpoints."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from posenc.toy import data
from posenc.toy.model import (
    PE_CHOICES,
    ToyConfig,
    ToyTransformer,
    answer,
    exact_match,
    load_checkpoint,
    save_checkpoint,
)
from posenc.toy.train import TrainConfig, loss_and_accuracy, main, train

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "toy"
WITH_PE = [pe for pe in PE_CHOICES if pe != "none"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # tests/conftest.py


def _model(pe: str, seed: int = 0) -> ToyTransformer:
    torch.manual_seed(seed)
    return ToyTransformer(ToyConfig(pe=pe)).eval()


@pytest.mark.parametrize("pe", PE_CHOICES)
def test_shapes_and_every_map_is_a_distribution(pe):
    model = _model(pe)
    batch = data.make_batch([data.Expression(21, "+", 211), data.Expression(5, "-", 907)])
    out = model(batch.source, batch.decoder_input)
    b, s = batch.source.shape
    t = batch.decoder_input.shape[1]
    assert out.logits.shape == (b, t, data.VOCAB_SIZE)
    assert [m.shape for m in out.encoder_self] == [(b, 4, s, s)] * 2
    assert [m.shape for m in out.decoder_self] == [(b, 4, t, t)] * 2
    assert [m.shape for m in out.cross] == [(b, 4, t, s)] * 2
    for maps in (out.encoder_self, out.decoder_self, out.cross):
        for weights in maps:
            torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]))
    padding = batch.source == data.PAD  # "5-907=" is one token shorter than "21+211="
    assert padding[1, -1]
    for weights in out.encoder_self + out.cross:
        assert torch.all(weights[1, :, :, -1] == 0)  # nobody attends to padding
    future = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
    for weights in out.decoder_self:
        assert torch.all(weights[..., future] == 0)  # the decoder never sees later answer tokens


def _repeated_rows(model: ToyTransformer, text: str = "21+211=") -> list[float]:
    """Largest |difference| between the encoder attention rows of the three "1" tokens, per layer."""
    result = answer(model, text)
    ones = [i for i, token in enumerate(result.source_tokens) if token == "1"]
    assert ones == [1, 4, 5]
    return [float((maps[:, ones[0]] - maps[:, other]).abs().max()) for maps in result.encoder_self for other in ones]


def test_without_pe_identical_tokens_get_identical_attention_rows_exactly():
    assert max(_repeated_rows(_model("none"))) == 0.0


@pytest.mark.parametrize("pe", WITH_PE)
def test_with_pe_identical_tokens_get_different_attention_rows(pe):
    differences = _repeated_rows(_model(pe))
    assert differences[0] == 0.0  # a row against itself
    assert min(d for d in differences if d != 0.0) > 1e-4


@pytest.mark.parametrize("pe", ["none", "rope"])
def test_without_pe_a_shuffled_encoder_input_gives_shuffled_maps(pe):
    """No PE: the encoder is permutation-equivariant. With PE it is not."""
    model = _model(pe)
    source = torch.tensor([data.encode_source(data.Expression(347, "+", 86))])
    order = torch.tensor([6, 2, 0, 5, 1, 3, 4])
    _, maps = model.encode(source)
    _, shuffled = model.encode(source[:, order])
    difference = (maps[-1][:, :, order][:, :, :, order] - shuffled[-1]).abs().max()
    assert (difference < 1e-6) if pe == "none" else (difference > 1e-4)


@pytest.mark.parametrize("text", ["", "abc", "1++2", "12345+1=", "1" * 50])
def test_answer_rejects_bad_expressions_with_a_message(text):
    with pytest.raises(ValueError, match="21\\+211="):
        answer(_model("none"), text)


def test_answer_returns_text_and_maps_for_every_token():
    result = answer(_model("t5"), "907-45=")
    assert result.source_tokens == list("907-45=")
    assert result.target_tokens[0] == "<s>"
    t, s = len(result.target_tokens), len(result.source_tokens)
    assert [m.shape for m in result.cross] == [(4, t, s)] * 2
    assert [m.shape for m in result.decoder_self] == [(4, t, t)] * 2
    assert result.correct == (result.text == "862")


@pytest.mark.parametrize("pe", ["rope", "sinusoidal"])
def test_a_few_training_steps_lower_the_loss(pe):
    torch.manual_seed(0)
    model = ToyTransformer(ToyConfig(pe=pe, d_model=32))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    fixed = data.make_batch(data.sample_training(64, torch.Generator().manual_seed(0)))
    before = loss_and_accuracy(model, fixed)[0].item()
    for _ in range(25):
        loss, _ = loss_and_accuracy(model, fixed)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss_and_accuracy(model, fixed)[0].item() < 0.7 * before


def test_training_is_deterministic():
    config = TrainConfig(pe="alibi", steps=3, batch_size=16, eval_every=100, d_model=32)
    first, _ = train(config, final_eval_limit=20, log=open("/dev/null", "w"))  # noqa: SIM115
    second, _ = train(config, final_eval_limit=20, log=open("/dev/null", "w"))  # noqa: SIM115
    for (name, a), b in zip(first.state_dict().items(), second.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


def test_the_command_writes_a_small_checkpoint_and_metrics(tmp_path, capsys):
    arguments = ["--pe", "rope", "--steps", "2", "--batch-size", "8", "--final-eval-limit", "10"]
    metrics = main([*arguments, "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "rope.json").read_text())
    assert saved == metrics
    for key in ("held_out_accuracy", "out_of_length_accuracy", "steps", "seconds", "seed", "config"):
        assert key in saved
    assert saved["steps"] == 2
    assert (tmp_path / "rope.pt").stat().st_size < 1_000_000
    model = load_checkpoint(tmp_path / "rope.pt")
    assert model.config.pe == "rope"
    assert "held-out" in capsys.readouterr().err


def test_a_saved_checkpoint_loads_to_the_same_answers(tmp_path):
    model = _model("learned")
    save_checkpoint(model, tmp_path / "m.pt")
    loaded = load_checkpoint(tmp_path / "m.pt")
    source = data.make_batch(data.held_out_expressions(limit=50)).source
    torch.testing.assert_close(loaded.encode(source)[0], model.encode(source)[0], atol=0.05, rtol=0.05)


@pytest.mark.parametrize("pe", PE_CHOICES)
def test_shipped_checkpoint_reaches_its_stated_accuracy(pe):
    checkpoint, metrics_file = ASSETS / f"{pe}.pt", ASSETS / f"{pe}.json"
    if not checkpoint.exists():
        pytest.skip(f"{checkpoint.name} has not been trained yet")
    assert checkpoint.stat().st_size < 1_000_000
    metrics = json.loads(metrics_file.read_text())
    model = load_checkpoint(checkpoint)
    assert model.config.pe == pe
    sample = data.held_out_expressions(limit=1000, seed=123)
    measured = exact_match(model, sample)
    # 1,000 of ≈ 20,000 held-out expressions: the sample's accuracy lies within a few points of the whole split's
    assert abs(measured - metrics["held_out_accuracy"]) < 0.03, (measured, metrics["held_out_accuracy"])


@pytest.mark.parametrize("pe", PE_CHOICES)
def test_shipped_checkpoint_repeated_digits_are_equal_only_without_pe(pe):
    if not (ASSETS / f"{pe}.pt").exists():
        pytest.skip(f"{pe}.pt has not been trained yet")
    differences = _repeated_rows(load_checkpoint(ASSETS / f"{pe}.pt"))
    if pe == "none":
        assert max(differences) == 0.0
    else:
        assert min(d for d in differences if d != 0.0) > 1e-3


def test_the_toy_package_never_imports_streamlit():
    code = "import sys, posenc.toy.data, posenc.toy.model, posenc.toy.train; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1], check=True)
