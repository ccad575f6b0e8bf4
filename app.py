"""jeval playground: navigation and the judge settings in the sidebar; nothing else.

`streamlit run app.py` imports this file, finds the App at the bottom and serves with it;
each visitor's run then executes this file as the page script (as `__main__`).
"""

from pathlib import Path

import streamlit as st

ASSETS = Path(__file__).resolve().parent / "assets"


def _to_playground() -> None:
    """`/live`: open the Playground with whatever the address carried (a share link)."""
    st.switch_page("pages/playground.py", query_params=st.query_params.to_dict())


def main() -> None:
    from pages.app import case, sidebar

    st.set_page_config(page_title="jeval playground", page_icon=str(ASSETS / "icon.png"),
                       layout="wide")
    st.logo(str(ASSETS / "logo.png"), size="large")
    case.ensure_case()  # before the sidebar: a share link may choose the judge
    # st.navigation comes before any widget of this file: a widget's id includes the hash of
    # the script that draws it, and this file's must be the same on every run.
    # The default page's path is given as "play": left to Streamlit, or given as anything
    # else ("playground" was tried), a rerun after a sidebar widget lost the whole sidebar in
    # AppTest (seen, not explained). Streamlit serves the default page at `/` only, so
    # `/play` itself still answers "Page not found"; `/live` (the Playground's old address)
    # is a hidden page below that opens it.
    playground = st.Page("pages/playground.py", title="Playground", default=True,
                         url_path="play")
    page = st.navigation([
        playground,
        st.Page("pages/dataset.py", title="Dataset", url_path="datasets"),
        st.Page("pages/compare.py", title="Compare", url_path="judges"),
        st.Page("pages/dashboard.py", title="Dashboard", url_path="runs"),
        st.Page("pages/metrics.py", title="Metrics", url_path="evaluators"),
        # `/live` (where the hosted judge's live mode is): the Playground, the case kept
        st.Page(_to_playground, title="Live", url_path="live", visibility="hidden"),
    ])
    # Compare picks its own judges, Metrics and Dashboard judge nothing: no judge radio there
    if page.title in ("Playground", "Dataset"):
        sidebar.judge_settings()
    elif page.title == "Compare":
        sidebar.hosted_connection()
    if page.title == "Playground":
        sidebar.presentation_toggle()
    page.run()


if __name__ == "__main__":  # a visitor's run
    main()
else:  # imported by `streamlit run app.py` (or an ASGI server) to serve the app
    from starlette.middleware import Middleware

    from pages.app.server import PageStyle, lifespan

    app = st.App(__file__, lifespan=lifespan, middleware=[Middleware(PageStyle)])
