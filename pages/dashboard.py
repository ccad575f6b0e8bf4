"""Dashboard: every stored run, the trend per dataset, one run in detail, run A against run B."""

from pages.app.views import dashboard_page
from pages.app.views.boundary import boundary
from pages.app.views.frame import frame


def page() -> None:
    frame("Dashboard")
    with boundary():
        dashboard_page.body()


page()
