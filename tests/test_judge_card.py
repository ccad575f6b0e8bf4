"""The judge card (the Playground's "How far to trust" popover): held-out figures per question
type and source, and where each source's labels come from."""

from __future__ import annotations

import re

from jeval_app.views import report


def _as_read() -> str:
    """The card as it reads on screen (markdown escapes undone)."""
    return re.sub(r"\\(.)", r"\1", report.judge_card("local"))


def test_the_local_judges_card_says_where_each_sources_labels_come_from():
    card = _as_read()
    assert "*ordinary:steps*: team-written retrievals where most chunks answer" in card
    assert "*real:hotpotqa*: human-labelled public data (hotpotqa)" in card


def test_the_local_judges_card_shows_a_row_per_measured_source():
    card = _as_read()
    assert "| ordinary:steps | 167 |" in card and "| real:squad | 723 |" in card
