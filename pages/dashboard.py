"""Dashboard: every stored run, the trend per dataset, one run in detail, run A against run B."""

from jeval_app.views import dashboard_page
from jeval_app.views.boundary import boundary
from jeval_app.views.frame import frame


def page() -> None:
    frame("Dashboard")
    with boundary():
        dashboard_page.body()


page()
