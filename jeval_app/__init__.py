"""The app behind the page scripts in pages/: session state, shared resources, views.

Nothing here is a page (Streamlit lists only the scripts app.py names); jeval_core never
imports it.
"""
