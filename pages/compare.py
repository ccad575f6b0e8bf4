"""Compare (being built)."""
import streamlit as st

st.title("Compare")
