"""The home page's lesson as properties: attention without positions is permutation-equivariant."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.permutation import output_differences, single_head_self_attention, split_words

WORDS = ["Tom", "likes", "apple", ",", "but", "hates", "orange", "the", "cat"]


@settings(max_examples=30, deadline=None)
@given(tokens=st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), data=st.data())
def test_reordering_tokens_only_reorders_outputs_and_attention(tokens, data):
    order = data.draw(st.permutations(range(len(tokens))))
    shuffled = [tokens[i] for i in order]
    plain = single_head_self_attention(tokens, dim=16)
    moved = single_head_self_attention(shuffled, dim=16)
    index = torch.tensor(order)
    torch.testing.assert_close(moved.outputs, plain.outputs[index], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(moved.weights, plain.weights[index][:, index], rtol=1e-12, atol=1e-12)


def test_positions_break_the_symmetry():
    a = split_words("Tom likes apple, but hates orange")
    b = split_words("Tom hates orange, but likes apple")
    assert max(d for _, d in output_differences(a, b, with_positions=False)) < 1e-12
    assert min(d for _, d in output_differences(a, b, with_positions=True)) > 0.05


def test_the_home_head_has_no_causal_mask_and_a_masked_one_would_see_the_order():
    """home.largest_change: "in an attention layer with no causal mask (an encoder)". The head attends to later
    tokens too; a causal mask's weights (the same scores' softmax over keys j ≤ i: these weights cut to the lower
    triangle and renormalised) are no longer the reordered sentence's weights shuffled."""
    a, b = split_words("Tom likes apple, but hates orange"), split_words("Tom hates orange, but likes apple")
    order = torch.tensor([b.index(token) for token in a])  # where each word of A stands in B (all distinct)
    plain_a, plain_b = single_head_self_attention(a).weights, single_head_self_attention(b).weights
    assert torch.triu(plain_a, diagonal=1).sum(-1)[0] > 0.5  # the first word puts most of its weight on later ones

    def causal(weights: torch.Tensor) -> torch.Tensor:
        lower = torch.tril(weights)
        return lower / lower.sum(-1, keepdim=True)

    torch.testing.assert_close(plain_b[order][:, order], plain_a, rtol=1e-12, atol=1e-12)
    assert (causal(plain_b)[order][:, order] - causal(plain_a)).abs().max() > 0.1


def test_repeated_word_gets_identical_rows_without_positions():
    tokens = split_words("the cat saw the dog")
    weights = single_head_self_attention(tokens).weights
    assert (weights[0] - weights[3]).abs().max().item() == 0.0
    positioned = single_head_self_attention(tokens, with_positions=True).weights
    assert (positioned[0] - positioned[3]).abs().max().item() > 1e-3


@pytest.mark.parametrize(
    "text, message",
    [("", "at least one word"), ("<> ~~ &&", "at least one word"), ("a " * 30, "at most 24")],
)
def test_split_words_rejects_unusable_sentences(text, message):
    with pytest.raises(ValueError, match=message):
        split_words(text)


def test_split_words_keeps_words_and_punctuation_only():
    assert split_words("Tom <b>likes</b> apple!") == ["Tom", "b", "likes", "b", "apple", "!"]
    with pytest.raises(ValueError, match="same words"):
        output_differences(["a", "b"], ["a", "c"])
