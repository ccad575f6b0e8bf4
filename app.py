"""jeval playground: navigation and the judge settings in the sidebar; nothing else.

`streamlit run app.py` imports this file, finds the App at the bottom and serves with it;
each visitor's run then executes this file as the page script (as `__main__`). Installed,
`jeval app` serves this same file (the wheel holds it with pages/ in jeval_app/site/).
"""

import streamlit as st

from jeval_core.inputs import bundled


def _to_playground() -> None:
    """`/play`, `/live`: open the Playground with whatever the address carried (a share link)."""
    st.switch_page("pages/playground.py", query_params=st.query_params.to_dict())


def main() -> None:
    from jeval_app import case, sidebar

    st.set_page_config(page_title="jeval playground", page_icon=str(bundled.path("icon.png")),
                       layout="wide")
    st.logo(str(bundled.path("logo.png")), size="large")
    case.ensure_case()  # before the sidebar: a share link may choose the judge
    # st.navigation comes before any widget of this file: a widget's id includes the hash of
    # the script that draws it, and this file's must be the same on every run.
    # Streamlit serves the default page at `/`; its url_path is only reserved. None of the
    # url_paths below may be a file name in pages/: Streamlit also scans pages/ the v1 way
    # (AppTest on every rerun, a fresh server on its first request), and a request for
    # "playground" would then run pages/playground.py alone, without this file's sidebar.
    # `/play` and `/live` (the Playground's addresses in links) are hidden pages opening it.
    playground = st.Page("pages/playground.py", title="Playground", default=True,
                         url_path="home")
    dataset = st.Page("pages/dataset.py", title="Dataset", url_path="datasets")
    compare = st.Page("pages/compare.py", title="Compare", url_path="judges")
    page = st.navigation([
        playground,
        dataset,
        compare,
        st.Page("pages/dashboard.py", title="Dashboard", url_path="runs"),
        st.Page("pages/metrics.py", title="Metrics", url_path="evaluators"),
        # `/play` and `/live` (the hosted judge's live mode): the Playground, the case kept
        st.Page(_to_playground, title="Play", url_path="play", visibility="hidden"),
        st.Page(_to_playground, title="Live", url_path="live", visibility="hidden"),
    ])
    # Compare picks its own judges, Metrics and Dashboard judge nothing: no judge radio there
    if page is playground or page is dataset:
        sidebar.judge_settings()
    elif page is compare:
        sidebar.hosted_connection()
    if page is playground:
        sidebar.presentation_toggle()
    page.run()


if __name__ == "__main__":  # a visitor's run
    main()
else:  # imported by `streamlit run app.py` (or an ASGI server) to serve the app
    from starlette.middleware import Middleware

    from jeval_app.server import PageStyle, lifespan

    app = st.App(__file__, lifespan=lifespan, middleware=[Middleware(PageStyle)])
