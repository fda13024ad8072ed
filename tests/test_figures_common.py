"""figures.common: the SentFigure the app sends carries exactly the JSON of the validated ReadyFigure tests build."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import pytest
import streamlit as st
from conftest import PAGE_FILES, figures
from plotly.basedatatypes import BaseFigure

import figures.common as common


def _sent_json(figure) -> dict:
    return json.loads(pio.to_json(figure.to_dict(), validate=False))


@pytest.mark.parametrize("path", PAGE_FILES)
def test_every_page_sends_the_same_figures_with_and_without_validation(path, open_page, monkeypatch):
    monkeypatch.setattr(common, "VALIDATE", False)
    fast = figures(open_page(path))
    st.cache_resource.clear()  # cached figures were built without validation: build them again with it
    st.cache_data.clear()
    monkeypatch.setattr(common, "VALIDATE", True)
    validated = figures(open_page(path))
    if path not in ("pages/glossary.py",):
        assert fast, "the page sent no figure"
    assert fast == validated


def _animated(validate: bool, monkeypatch):
    monkeypatch.setattr(common, "VALIDATE", validate)
    x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
    frames = [{"name": str(t), "data": [{"type": "scatter", "x": x, "y": x * t}], "traces": [0]} for t in range(3)]
    return common.figure([{"type": "scatter", "x": x, "y": x}], common.layout("t", "x", "y"), frames)


def test_frames_are_sent_as_plotly_sends_them(monkeypatch):
    fast, validated = _animated(False, monkeypatch), _animated(True, monkeypatch)
    sent = _sent_json(fast)
    assert sent == _sent_json(validated)
    assert [frame["name"] for frame in sent["frames"]] == ["0", "1", "2"]
    assert sent["frames"][2]["data"][0]["y"]["dtype"] == "f4"  # float32 arrays travel as base64 typed arrays


def _plain(value) -> bool:
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    return value is None or type(value) in (str, int, float, bool)


def test_the_sent_dict_is_made_once_of_plain_json_values(monkeypatch):
    fast = _animated(False, monkeypatch)
    assert isinstance(fast, BaseFigure)  # what st.plotly_chart accepts without validating it again
    assert fast.to_dict() is fast.to_dict()
    assert _plain(fast.to_dict())  # no numpy left: the encoder needs no cleaning walk on every rerun


def test_validation_catches_a_misspelt_property(monkeypatch):
    monkeypatch.setattr(common, "VALIDATE", True)
    with pytest.raises(ValueError, match="colr"):
        common.figure([{"type": "scatter", "x": [1], "y": [1], "colr": "red"}], common.layout("t", "x", "y"))
