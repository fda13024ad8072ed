"""Figure builders: numpy arrays in, ``plotly.graph_objects.Figure`` out. No Streamlit, no math beyond layout."""
