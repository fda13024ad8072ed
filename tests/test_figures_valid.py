"""Every figure a page sends is valid Plotly: ``figures.common.ReadOnlyFigure`` skips Plotly's validators when a
figure is built (they cost more than building it), so this checks, once, what they would have refused: an unknown
property, a value of the wrong kind or out of range, in every figure of every page, at its defaults and at the
smallest settings a link can ask for, in English and Chinese."""

import plotly.graph_objects as go
import pytest
from conftest import figures

from ui.menu import PAGES

SMALLEST = {"dim": "2", "length": "2", "heads": "1", "base": "10"}


def figure_pages() -> list[str]:
    return [page.path for page in PAGES if page.path != "pages/glossary.py"]


@pytest.mark.parametrize("query", [{}, {"lang": "zh", **SMALLEST}], ids=["defaults", "smallest-zh"])
@pytest.mark.parametrize("path", figure_pages())
def test_every_figure_a_page_sends_is_valid_plotly(open_page, path, query):
    at = open_page(path, query=query)
    assert not at.exception
    sent = figures(at)
    for figure in sent:
        go.Figure(figure)  # validated: raises ValueError naming the property it refuses
    if path != "pages/home.py" or not query:
        assert sent or path in NO_FIGURES, f"{path} sent no figure"


NO_FIGURES = {"pages/model_rope.py", "pages/rope_layers.py"}  # their pictures are live charts and tables
