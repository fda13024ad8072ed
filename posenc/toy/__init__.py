"""A toy encoder–decoder transformer that learns "21+211=232", with every positional encoding of ``posenc``.

- :mod:`posenc.toy.data` — the character vocabulary, the full grammar, splits, and ``parse_expression``;
- :mod:`posenc.toy.model` — the model (attention logits from :func:`posenc.attention_scores`) and ``answer``;
- :mod:`posenc.toy.train` — the command-line trainer that writes ``assets/toy/<pe>.pt`` and ``<pe>.json``.

Nothing here imports Streamlit.
"""
