"""Positional Encoding Lab — Streamlit entry point."""

import streamlit as st

st.set_page_config(page_title="Positional Encoding Lab", page_icon=":material/timeline:", layout="wide")
st.title("Positional Encoding Lab")
st.write("How do transformers know where a token is? The topic pages are on their way.")
