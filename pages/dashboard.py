"""Dashboard (being built)."""
import streamlit as st

st.title("Dashboard")
