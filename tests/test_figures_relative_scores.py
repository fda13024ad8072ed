"""Figure builders of the Transformer-XL / DeBERTa / NoPE page, without Streamlit: shapes, titles, data in = shown."""

from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from figures import relative_scores as fig
from figures.common import SIGNED_COLORS, ReadOnlyFigure
from posenc.deberta import deberta_illustration
from posenc.nope import causal_first_token_weight, distance_from_last, nope_identical_tokens
from posenc.transformer_xl import XL_TERM_LABELS, xl_illustration
from ui.i18n import LANGUAGES, text

EN = {key: text("en", f"relative_scores.{key}") for key in fig.LABEL_KEYS}
TABLE_EN = {key: text("en", f"relative_scores.{key}") for key in fig.comparison_label_keys()}


def is_f32(values) -> bool:
    return isinstance(values, np.ndarray) and values.dtype == np.float32


def test_module_never_imports_streamlit():
    source = Path(fig.__file__).read_text()
    assert "import streamlit" not in source and "from streamlit" not in source


@pytest.mark.parametrize(("length", "expected"), [(2, 2), (48, 48), (49, 48), (4096, 48)])
def test_window_length(length, expected):
    assert fig.window_length(length) == expected


@pytest.mark.parametrize(("length", "expected"), [(2, 1), (64, 63), (4096, fig.OFFSET_SPAN_MAX)])
def test_offset_span(length, expected):
    assert fig.offset_span(length) == expected


@pytest.mark.parametrize(("length", "expected"), [(2, 2), (300, 300), (4096, fig.NOPE_MAX_LENGTH)])
def test_nope_length(length, expected):
    assert fig.nope_length(length) == expected


@pytest.mark.parametrize(("length", "cols"), [(5, 3), (48, 3), (200, 2)])
def test_score_grid_shows_each_panel_on_one_symmetric_scale(length, cols):
    shown = xl_illustration(fig.window_length(length), 16)
    parts = [part[0].numpy() for part in (*shown.relative.terms(), shown.relative.total)]
    panels = [*zip(XL_TERM_LABELS, parts[:4], strict=True), ("sum", parts[4])]
    figure = fig.score_grid(panels, "XL", length, EN, cols=cols)
    assert isinstance(figure, ReadOnlyFigure) and len(figure.data) == 5
    limit = max(float(np.abs(p).max()) for p in parts)
    for trace, part in zip(figure.data, parts, strict=True):
        assert is_f32(trace.z)
        np.testing.assert_allclose(trace.z, part.astype(np.float32))
        assert trace.zmin == pytest.approx(-limit) and trace.zmax == pytest.approx(limit)
        assert trace.colorscale == go.Heatmap(colorscale=SIGNED_COLORS).colorscale
    titles = [annotation.text.replace("<br>", " ") for annotation in figure.layout.annotations]  # titles wrap
    assert titles == [*XL_TERM_LABELS, "sum"]
    assert ("Window" in figure.layout.title.text) == (length > fig.MATRIX_WINDOW)


def test_score_grid_own_scales():
    panels = [("big", np.array([[4.0, -1.0], [0.0, 2.0]])), ("small", np.array([[0.1, -0.3], [0.2, 0.0]]))]
    figure = fig.score_grid(panels, "scales", 2, EN, shared_scale=False)
    assert [trace.zmax for trace in figure.data] == [4.0, pytest.approx(0.3)]
    assert [trace.zmin for trace in figure.data] == [-4.0, pytest.approx(-0.3)]
    assert not any(trace.showscale for trace in figure.data)
    assert "own colour scale" in figure.layout.title.text


def test_toy_labels_escape_the_start_token():
    figure = fig.toy_first_step_weight(np.ones((1, 2, 2)), ["<s>", "1"], np.ones(2), 2, EN)
    assert figure.layout.xaxis.ticktext[0] == "0 (&lt;s&gt;)"
    assert "<s>" not in figure.layout.title.text


def test_score_grid_of_all_zero_panels_still_has_a_scale():
    figure = fig.score_grid([("zero", np.zeros((3, 3)))], "zeros", 3, EN)
    assert figure.data[0].zmax == 1.0


@pytest.mark.parametrize("length", [2, 30, 100])
def test_nope_attention_pair_blanks_the_masked_future(length):
    causal = nope_identical_tokens(length, 8, causal=True).weights
    both = nope_identical_tokens(length, 8, causal=False).weights
    figure = fig.nope_attention_pair(causal, both, length, EN)
    shown = min(length, fig.MATRIX_WINDOW)
    left, right = np.asarray(figure.data[0].z), np.asarray(figure.data[1].z)
    assert left.shape == right.shape == (shown, shown)
    assert np.isnan(left[np.triu_indices(shown, k=1)]).all()
    np.testing.assert_allclose(np.tril(np.nan_to_num(left)), np.tril(causal.numpy()[:shown, :shown]), atol=1e-7)
    np.testing.assert_allclose(right, both.numpy()[:shown, :shown], atol=1e-7)


@pytest.mark.parametrize("with_closed_form", [True, False])
def test_nope_position_signal_lines(with_closed_form):
    causal = nope_identical_tokens(12, 8, causal=True)
    both = nope_identical_tokens(12, 8, causal=False)
    closed = causal_first_token_weight(12) if with_closed_form else None
    figure = fig.nope_position_signal(
        causal.weights[:, 0],
        both.weights[:, 0],
        closed,
        distance_from_last(causal.outputs),
        distance_from_last(both.outputs),
        EN,
    )
    assert len(figure.data) == (5 if with_closed_form else 4)
    assert all(is_f32(trace.y) for trace in figure.data)
    np.testing.assert_allclose(figure.data[0].y, causal.weights[:, 0].numpy(), atol=1e-7)
    assert figure.data[-1].y[1:].max() < 1e-6  # bidirectional: every position after the first, the same output


def test_toy_first_step_weight_plots_column_zero_per_head():
    weights = np.random.default_rng(0).random((4, 5, 5))
    reference = causal_first_token_weight(5).numpy()
    figure = fig.toy_first_step_weight(weights, ["<s>", "1", "2", "2", "1"], reference, 1, EN)
    assert len(figure.data) == 5
    for head in range(4):
        np.testing.assert_allclose(figure.data[head].y, weights[head, :, 0].astype(np.float32))
    np.testing.assert_allclose(figure.data[-1].y, reference.astype(np.float32))
    assert list(figure.layout.xaxis.ticktext) == ["0 (&lt;s&gt;)", "1 (1)", "2 (2)", "3 (2)", "4 (1)"]
    assert "layer 1" in figure.layout.title.text.replace("\u00a0", " ")  # the number stays beside its word


def by_family(table) -> dict[str, dict[str, str]]:
    """The comparison's rows by family, the first column, which names each row: {family: {column: cell}}."""
    assert table.columns[0] == "family" and table.row_headers
    return {row[0]: dict(zip(table.columns[1:], row[1:], strict=True)) for row in table.rows}


def test_comparison_table_reads_toy_numbers_from_metrics():
    metrics = [
        {"pe": "none", "held_out_accuracy": 0.0125, "out_of_length_accuracy": 0.0},
        {"pe": "alibi", "held_out_accuracy": 0.99, "out_of_length_accuracy": 0.4567},
    ]
    table = fig.comparison_table(metrics, TABLE_EN)
    rows = by_family(table)
    headers = [TABLE_EN[f"col_{column}"] for column in fig.COMPARISON_COLUMNS[1:]]
    assert list(table.columns[1:]) == [header.format(train="–", long="–") for header in headers]  # no length file
    assert len(table.rows) == len(rows) == len(fig.FAMILIES) == 9
    assert rows["No PE (NoPE)"]["toy: held-out 3-digit"] == "1.2%"
    assert rows["ALiBi"]["toy: 4-digit (longer than training)"] == "45.7%"
    assert rows["RoPE"]["toy: held-out 3-digit"] == "not trained yet"
    for family in ("Shaw et al.", "Transformer-XL / XLNet", "DeBERTa"):
        assert rows[family]["toy: held-out 3-digit"] == "not in the toy"
    assert all(row["absolute or relative"] != "" and row["well-known models"] != "" for row in rows.values())


def test_comparison_table_quotes_the_length_experiment():
    """The length column: loss at the training length → at the longest evaluated length (×ratio), per encoding the
    experiment trained; families it did not train say so; without the file the column says it is missing."""
    curves = {n: {"loss": loss} for n, loss in ((32, 9.0), (64, 1.25), (128, 1.6), (512, 2.5))}
    other = {n: {"loss": loss} for n, loss in ((32, 9.0), (64, 1.35), (128, 1.6), (512, 2.3))}  # a second seed
    found = {"train_len": 64, "eval_lengths": [32, 64, 128, 512], "models": {"alibi": {"curves": {}}}}
    found["models"]["alibi"]["curves"] = {str(n): value for n, value in other.items()}  # seed 0 only: not read
    found["runs"] = {"alibi": {str(seed): {"curves": {str(n): value for n, value in losses.items()}}
                               for seed, losses in enumerate((curves, curves, other))}}  # fmt: skip
    table = fig.comparison_table([], TABLE_EN, found)
    rows = by_family(table)
    column = "toy LM: loss at 64 → 512 tokens"
    assert column in table.columns[1:]
    assert list(table.columns).index(column) == list(table.columns).index("beyond training length (literature)") + 1
    assert rows["ALiBi"][column] == "1.28 → 2.43 (×1.90)"  # the seeds' means: (1.25·2 + 1.35)/3, (2.5·2 + 2.3)/3
    assert rows["RoPE"][column] == "not trained yet"
    assert rows["DeBERTa"][column] == "not in the toy"
    train, longest, losses = fig.length_evidence(found)
    assert (train, longest) == (64, 512) and losses["alibi"] == pytest.approx((3.85 / 3, 7.3 / 3))
    missing = by_family(fig.comparison_table([], TABLE_EN, None))
    assert {row["toy LM: loss at – → – tokens"] for row in missing.values()} == {"not trained yet", "not in the toy"}
    assert fig.length_evidence(None) is None


def test_deberta_panels_fit_the_grid():
    parts = [
        part[0].numpy() for part in (*deberta_illustration(10, 8, 2).terms(), deberta_illustration(10, 8, 2).total)
    ]
    figure = fig.score_grid([(str(n), part) for n, part in enumerate(parts)], "DeBERTa", 10, EN)
    assert len(figure.data) == 4 and figure.layout.height >= 2 * 330  # two rows, each at least 330 px


def test_comparison_table_fills_in_the_symbols():
    table = fig.comparison_table([], TABLE_EN)
    rows = by_family(table)
    assert rows["Transformer-XL / XLNet"]["learned parameters"] == "W_{k,R} per layer, u and v per head"
    assert "R_{i−j}" in rows["Transformer-XL / XLNet"]["where position enters"]
    assert not [cell for row in rows.values() for cell in row.values() if "{" in cell and "_{" not in cell]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_builders_use_the_translated_words(lang):
    """Every title, axis title, legend name and table header comes from the labels, none stays English."""
    words = {key: text(lang, f"relative_scores.{key}") for key in fig.LABEL_KEYS}
    causal = nope_identical_tokens(60, 8, causal=True)
    both = nope_identical_tokens(60, 8, causal=False)
    charts = [
        fig.score_grid([("a", np.ones((60, 60)))], "XL", 60, words),
        fig.nope_attention_pair(causal.weights, both.weights, 60, words),
        fig.nope_position_signal(
            causal.weights[:, 0],
            both.weights[:, 0],
            causal_first_token_weight(60),
            distance_from_last(causal.outputs),
            distance_from_last(both.outputs),
            words,
        ),
        fig.toy_first_step_weight(np.ones((2, 3, 3)), ["<s>", "1", "2"], np.ones(3), 1, words),
    ]
    english = [
        "Window",
        "Colours",
        "Row δ",
        "key position",
        "Which row",
        "offset",
        "causal",
        "bidirectional",
        "Attention weights",
        "closed form",
        "What a position",
        "head ",
        "weight on",
        "decoder step",
    ]
    for chart in charts:
        shown = chart.to_json()
        assert not [word for word in english if word in shown], chart.layout.title.text
    table = fig.comparison_table([], {key: text(lang, f"relative_scores.{key}") for key in fig.comparison_label_keys()})
    assert not set(table.columns) & set(TABLE_EN.values())
    assert [row[5] for row in table.rows].count(text(lang, "relative_scores.toy_not_in_toy")) == 3
    assert text(lang, "relative_scores.col_toy_length").format(train="–", long="–") in table.columns
    assert TABLE_EN["col_toy_length"].format(train="–", long="–") not in table.columns
