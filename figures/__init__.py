"""Figure builders: numpy arrays in, ``ReadOnlyFigure`` (Plotly's format) out. No Streamlit, no math beyond layout."""
