"""Every figure a page sends is valid Plotly, sent as Plotly sends it: ``figures.common.ReadOnlyFigure`` is built
without Plotly (its validators and encoder cost more than building the figure), so this checks, once, what the
validators would have refused (an unknown property, a value of the wrong kind or out of range) and that what is sent
is Plotly's own encoding of the same traces and layout, in every figure of every page, at its defaults and at the
smallest settings a link can ask for, in English and Chinese."""

import json

import plotly.graph_objects as go
import plotly.io as pio
import pytest
from conftest import figures

from figures.common import ReadOnlyFigure
from ui.menu import PAGES

SMALLEST = {"dim": "2", "length": "2", "heads": "1", "base": "10"}


def figure_pages() -> list[str]:
    return [page.path for page in PAGES if page.path != "pages/glossary.py"]


@pytest.mark.parametrize("query", [{}, {"lang": "zh", **SMALLEST}], ids=["defaults", "smallest-zh"])
@pytest.mark.parametrize("path", figure_pages())
def test_every_figure_a_page_sends_is_valid_plotly(open_page, path, query, monkeypatch):
    built = []  # every figure the page's run sent (built now or cached before), as its builder handed it over
    to_dict = ReadOnlyFigure.to_dict
    monkeypatch.setattr(ReadOnlyFigure, "to_dict", lambda figure: built.append(figure) or to_dict(figure))
    at = open_page(path, query=query)
    assert not at.exception
    sent = figures(at)
    for figure in sent:
        go.Figure(figure)  # validated: raises ValueError naming the property it refuses
    monkeypatch.undo()
    for figure in built:  # Plotly's own encoding of the same parts is the reference (less its default template)
        plotly = json.loads(pio.to_json(go.Figure(*figure._parts, _validate=False).to_dict(), validate=False))
        plotly["layout"].pop("template", None)
        assert figure.to_dict() == plotly
    assert len(built) >= len(sent)
    if path != "pages/home.py" or not query:
        assert sent or path in NO_FIGURES, f"{path} sent no figure"


NO_FIGURES = {"pages/model_rope.py", "pages/rope_layers.py"}  # their pictures are live charts and tables
