"""Drawing a Report: the summary band, per-question bars and tables, the request itself.

Everything the user typed is shown through inert elements (dataframes, code blocks, chart
tooltips, st.text) or, inside our own markdown, escaped by `inert` (highlighted words, chunk
cards): never as markdown or HTML of its own, so `<script>` or `**bold**` stays literal text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pyarrow as pa
import streamlit as st

from jeval_app.state import REQUEST_OPEN, VERBATIM_OPEN, WHY_OPEN
from jeval_app.style import CHUNK_BOX
from jeval_app.views import verdict
from jeval_app.views.text import chunk_source, inert, plural
from jeval_core import Case, Report, export, judges
from jeval_core.address import Address
from jeval_core.analysis import ranking
from jeval_core.evaluators import Evaluator
from jeval_core.judges.card import card as measured_card
from jeval_core.judges.card import source_note
from jeval_core.request import one_call_per_question
from jeval_core.results import UNSURE, Result, is_yes
from jeval_core.scoring import DetailRow

BAR_STEP = 22  # px per bar of a chart

FOCUS = "#f0ad4e"


def chunk_edges(chunk_colours: dict[str, bool | None], focused: str | None = None) -> None:
    """A coloured edge on each judged chunk in the editor, and a frame around the focused one.

    Only our own ids (hex) and colours go into this HTML: never any text a visitor typed.
    """
    rules = [f".st-key-{CHUNK_BOX}{uid} {{ border-left: 5px solid {verdict.HEX[yes]}; "
             "padding-left: 0.5rem; }"
             for uid, yes in chunk_colours.items() if re.fullmatch(r"[0-9a-f]{8}", uid)]
    if focused is not None and re.fullmatch(r"[0-9a-f]{8}", focused):
        rules.append(f".st-key-{CHUNK_BOX}{focused} {{ box-shadow: 0 0 0 2px {FOCUS}; "
                     "background: rgba(240, 173, 78, 0.10); border-radius: 0.5rem; }")
    st.html("<style>" + "\n".join(rules) + "</style>")


def chunk_rows(report: Report) -> dict[int, DetailRow]:
    """The per-chunk row (p, verdict, evidence) by chunk position, from the first evaluator
    that judges whole chunks (chunk_relevance, else contextual_precision)."""
    for name, result in report.results.items():
        if result.skipped:
            continue
        rows = report.rows(name)
        by_pos = {row.address.chunk: row for row in rows
                  if row.address.whole_chunk and row.address.chunk is not None}
        if by_pos and len(by_pos) == len(rows):
            return by_pos
    return {}


def chip(name: str, result: Result, stale: bool) -> str:
    """One evaluator as a coloured badge: name, score, pass/fail (markdown of our own text)."""
    word = verdict.of_result(result)
    if result.skipped:
        return f":{verdict.colour(word)}-badge[{inert(name)} · {word}]"
    return f":{verdict.colour(word, stale)}-badge[{inert(name)} {result.score or 0.0:.2f} {word}]"


def summary(report: Report, chunks: int, blank: tuple[int, ...], stale: bool,
            big: bool = False, note: str | None = None, agreed: str | None = None) -> None:
    """The verdict at a glance: the case's PASS/FAIL, a chip per evaluator, chunk counts,
    judge and cost. Three elements: an edit redraws it, and each element costs the browser.
    `note` marks verdicts that stand in for another judge's ("local judge — hosted answer
    pending"), our own text; `agreed` is the line on the person's labels (markdown, inert)."""
    passed = report.passed
    with st.container(border=True, key="summary", horizontal=True, wrap=False,
                      vertical_alignment="center", gap="medium"):
        word = verdict.of_case(passed)
        size = "#" if big else "##"
        # the labels' line sits under the verdict word: the band grows no taller for it
        st.markdown(f"{size} :{verdict.colour(word, stale)}[{word}]"
                    + (" :gray[stale]" if stale else "") + (f"\n\n{agreed}" if agreed else ""),
                    width="content")
        lines = [" ".join(chip(n, r, stale) for n, r in report.results.items())]
        per_chunk = chunk_rows(report)
        if per_chunk and not stale:
            unsure = sum(1 for r in per_chunk.values() if r.unsure)
            relevant = sum(1 for r in per_chunk.values() if r.yes and not r.unsure)
            noise = len(per_chunk) - relevant - unsure
            counts = f"**{relevant}** relevant · **{noise}** noise " + (
                "chunk" if noise == 1 else "chunks")
            if unsure:
                counts += f" · **{unsure}** unsure"
            if blank:
                counts += f" · {len(blank)} blank (not judged)"
            lines.append(counts + f" of {plural(chunks, 'retrieved chunk', 'retrieved chunks')}")
        cost = (f"billed ${report.cost_usd:.6f}" if report.usage.input_tokens
                else f"free here; ~${report.packed.cost_usd:.6f} on Jev")
        # a judge that asks one question per request (your own model) sent as many requests
        requests = max(report.usage.requests, 1)
        asked = (f"{plural(len(report.packed.asked), 'question', 'questions')} in "
                 f"{plural(requests, 'request', 'requests')}"
                 if report.packed.asked else "nothing to ask: no request sent, nothing billed")
        profile = (f" (calibration profile {inert(report.calibration)})"
                   if report.calibration else "")
        lines.append(f"judge **{inert(report.judge)}**{profile} · "
                     + (f"{cost} · " if report.packed.asked else "") + asked
                     + (f" · :orange-badge[{inert(note)}]" if note else ""))
        st.markdown("  \n".join(lines))


def per_question_panel(report: Report) -> None:
    """The requests of a judge that asks one question per request (your own model): the
    prompt template, then per case the requests, input tokens, the cached part, the cost."""
    from jeval_core.judges import openai_prompt

    usage = report.usage
    cached = f", {usage.cached_tokens:,} from the prefix cache" if usage.cached_tokens else ""
    box = st.expander(f"The requests: {plural(usage.requests, 'request', 'requests')}, "
                      f"{usage.input_tokens:,} input tokens{cached}", key=REQUEST_OPEN,
                      on_change="rerun")
    if not box.open:
        return
    with box:
        with st.container(horizontal=True, gap="medium"):
            st.metric("requests", f"{usage.requests:,}",
                      help="one per question (or one list of prompts on /completions)")
            st.metric("input tokens", f"{usage.input_tokens:,}", help="as the server counted")
            st.metric("cached tokens", f"{usage.cached_tokens:,}",
                      help="read from the server's prefix cache, where it says: the case's "
                           "state is the same prefix in every request")
            if report.price_per_billion_input_tokens:
                st.metric("cost", f"${report.cost_usd:.6f}", help="at the price set")
        st.caption("The prompt template (jeval_core/judges/openai_prompt.py): the state is "
                   "an identical prefix for every question of the case; the question is the "
                   "one Jev receives, verbatim")
        st.code(openai_prompt.shown_template(), language=None, wrap_lines=True)
        first = next(iter(report.packed.asked.values()), None)
        if first is not None:
            st.caption("The first question's user message, as sent")
            st.code(openai_prompt.user_text(report.packed.state, first), language=None,
                    height=300, wrap_lines=True)


def trust(report: Report) -> None:
    """One click away: how far this judge agrees with human labels (the judge card): an
    offline judge's, or your model's once bench/calibrate.py measured it."""
    if report.approximates or measured_card(report.judge, report.model).measured:
        with st.popover(f"How far to trust the {report.judge} judge", width="content"):
            st.markdown(judge_card(report.judge, report.model))


@st.cache_data(show_spinner=False)
def judge_card(judge: str, model: str | None = None) -> str:
    """How far this judge agrees with human labels on held-out data (markdown of our own
    figures, so it is drawn as one element and computed once per process); the openai
    judge's per model."""
    found = measured_card(judge, model)
    if not found.measured:
        return f"The **{inert(judge)}** judge has not been measured against labels here."
    who = f"{inert(judge)} judge" + (f" with {inert(found.model)}" if found.model else "")
    # One table per question type: the question's name in a column of its own, repeated on
    # every row, pushed F1, AUC and the unsure band out of the popover at 1280 px.
    rows: list[str] = []
    for question in dict.fromkeys(r.question for r in found.rows):
        rows += ["", f"**{question}**", "",
                 "| held-out data | answers | accuracy | always no | F1 | AUC | unsure |",
                 "|---|---:|---:|---:|---:|---:|---|"]
        for r in (r for r in found.rows if r.question == question):
            auc = "—" if r.auc is None else f"{r.auc:.2f}"
            band = ("none" if r.unsure[0] == r.unsure[1]
                    else f"{r.unsure[0]:.2f}–{r.unsure[1]:.2f}")
            rows.append(f"| {inert(r.source)} | {r.answers} | {r.accuracy:.2f} | "
                        f"{r.always_no:.2f} | {r.f1:.2f} | {auc} | {band} |")
    sources = dict.fromkeys(r.source for r in found.rows)
    legend = "Held-out data: " + "; ".join(f"*{inert(s)}*: {inert(source_note(s))}"
                                           for s in sources) + "."
    examples = (f" It meets {found.examples_met[0]} of {found.examples_met[1]} stated truths "
                "of the built-in examples." if found.examples_met else "")
    return (f"**How far the {who} agrees with human labels** it was not fitted "
            "on, per question type and source, next to answering *no* to every question. "
            "A verdict whose p falls in the unsure band (where held-out verdicts were right "
            "less than 65% of the time) is shown as *unsure*; scores and pass/fail still "
            "follow p ≥ 0.5." + examples + "\n\n" + "\n".join(rows)
            + f"\n\n{legend}\n\nReproduce: `{found.command}`")


def bar_labels(rows: list[DetailRow]) -> list[str]:
    """A short, unique label per row: `context[2]`, or `output (ha3)` when names repeat."""
    names = [r.judged for r in rows]
    return [n if names.count(n) == 1 else f"{n} ({r.id})" for n, r in zip(names, rows,
                                                                          strict=True)]


def detail(report: Report, name: str, focus: int | None = None,
           on_pick: Callable[[str], None] | None = None) -> None:
    """One evaluator's bars with the 0.5 line (its rows are in the questions table), and why.
    The focused chunk's bars are framed and the others dimmed; a click on a bar calls
    `on_pick` with the chart's key (its selection is in session state)."""
    raw = report.rows(name)
    labels = bar_labels(raw)
    bars = []
    for label, r in zip(labels, raw, strict=True):
        mine = focus is not None and r.address.chunk == focus
        bars.append({"bar": label, "judged": r.judged, "p": r.p, "verdict": r.verdict,
                     "text": r.text, "focused": mine, "dim": focus is not None and not mine})
    key = f"bars_{name}"
    st.vega_lite_chart(chart(bars, report.evaluator(name)), width="stretch", key=key,
                       on_select=(lambda: on_pick(key)) if on_pick else "ignore",
                       selection_mode="pick" if on_pick else None)
    if judges.known(report.judge) and judges.entry(report.judge).explains:
        why(raw)


def question_rows(report: Report) -> list[dict]:
    """One row per question as sent (shared ones once): id, what it refers to, p, verdict."""
    return [row for row, _ in _question_rows(report)]


def _question_rows(report: Report) -> list[tuple[dict, Address]]:
    """The question rows, each with the address of what it judges."""
    out, seen = [], set()
    wire_ids = report.packed.wire_ids
    for name, result in report.results.items():
        if result.skipped:
            continue
        rows = report.rows(name)
        places = ranking.standing([row.p for row in rows])
        for row, place in zip(rows, places, strict=True):
            wid = wire_ids.get(row.id, row.id)
            if wid in seen:
                continue
            seen.add(wid)
            text = one_line_short(row.text, 80)
            out.append(({"id": wid, "p": row.p, "verdict": row.verdict,
                         "standing": f"{place} of {len(rows)}",
                         "refers to": f"{row.judged}: {text}" if text else row.judged,
                         "question": row.question, "evaluator": name}, row.address))
    return out


def one_line_short(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def questions_table(report: Report, focus: int | None = None) -> None:
    """The questions as a sortable, searchable table (the focused chunk's rows selected);
    the verbatim block one click away."""
    pairs = _question_rows(report)
    rows = [row for row, _ in pairs]
    mine = [i for i, (_, address) in enumerate(pairs)
            if focus is not None and address.chunk == focus]
    if rows:
        selected = {"key": f"questions_focus_{focus}", "on_select": "rerun",
                    "selection_mode": "multi-row",
                    "selection_default": {"selection": {"rows": mine}}} if mine else {}
        st.dataframe(
            pa.Table.from_pylist(rows), hide_index=True, width="stretch", **selected,
            column_config={"id": st.column_config.TextColumn("id", width="small"),
                           "p": st.column_config.NumberColumn("p(yes)", format="%.2f",
                                                              width="small"),
                           "standing": st.column_config.TextColumn(
                               "standing", width="small", help="where p stands among the "
                               "evaluator's items (1 = highest); p itself is each item's own"),
                           # what was judged is read first; the question's template
                           # repeats, and the verbatim block below has it whole
                           "question": st.column_config.TextColumn("question", width="medium"),
                           "refers to": st.column_config.TextColumn("refers to", width=380)})
    box = st.expander("The questions verbatim, as sent (copy with the button on the block)",
                      key=VERBATIM_OPEN, on_change="rerun")
    if box.open:  # drawn only when opened: nothing to draw per edit otherwise
        with box:
            questions(report)


def judges_table(reports: dict[str, Report]) -> None:
    """p per question from each judge in columns, whether they agree, and where they do not."""
    names = list(reports)
    base = question_rows(reports[names[0]])
    table = []
    for row in base:
        line: dict = {"id": row["id"]}
        verdicts = []
        for judge in names:
            p = reports[judge].answers.get(row["id"])
            line[f"p {judge}"] = p
            verdicts.append(None if p is None else is_yes(p))
        known = [v for v in verdicts if v is not None]
        line["agree"] = "yes" if len(set(known)) <= 1 else "NO"
        line["refers to"] = row["refers to"]
        table.append(line)
    agree = sum(1 for r in table if r["agree"] == "yes")
    st.markdown(f"**{' / '.join(inert(n) for n in names)}** agree on **{agree} of "
                f"{plural(len(table), 'question', 'questions')}**; the case verdicts: "
                + ", ".join(f"{inert(n)} {verdict.of_case(r.passed)}"
                            for n, r in reports.items()))
    config = {f"p {j}": st.column_config.NumberColumn(f"p {j}", format="%.2f")
              for j in names}
    st.dataframe(table, hide_index=True, width="stretch", column_config=config)


def exports(report: Report, case: Case, case_payload: dict) -> None:
    """The scored case as JSON (every result) and every detail row as CSV, formula-safe; a
    row about a chunk carries the chunk's id, source, retriever score and rank."""
    row = st.container(horizontal=True)
    scored = {"case": case_payload, "report": report.to_dict()}
    row.download_button("Download the scored case (JSON)",
                        lambda: json.dumps(scored, indent=2, ensure_ascii=False),
                        file_name="scored_case.json", mime="application/json",
                        width="stretch", on_click="ignore")
    row.download_button("Download every detail row (CSV)", lambda: detail_csv(report, case),
                        on_click="ignore", file_name="scored_rows.csv", mime="text/csv",
                        width="stretch",
                        help="text cells that would run as spreadsheet formulas are made inert")


def detail_csv(report: Report, case: Case) -> str:
    """Every detail row, formula-safe; a row about a chunk (or a sentence of one) carries the
    chunk's id, source, retriever score and rank when the case has them."""
    rows = [{"evaluator": name, "id": row.id, "judged": row.judged, "text": row.text,
             "p": row.p, "verdict": row.verdict, "question": row.question,
             "why": ", ".join(t for _, _, t in row.evidence),
             **export.chunk_cells(None if row.address.chunk is None
                                  else case.chunk_meta(row.address.chunk))}
            for name, result in report.results.items() if not result.skipped
            for row in report.rows(name)]
    columns = ["evaluator", "id", "judged", "text", "p", "verdict", "why", "question"]
    if case.context_meta:
        columns[3:3] = export.CHUNK_COLUMNS
    return export.to_csv(rows, columns)


def present_chunks(case: Case, per_chunk: dict[int, DetailRow]) -> None:
    """Presentation mode: each chunk as a card with its verdict and the words that drove p,
    and where the pipeline found it when the case says."""
    for pos, text in enumerate(case.context):
        row = per_chunk.get(pos)
        with st.container(border=True):
            where = Address.of_chunk(pos)
            source = chunk_source(case.chunk_meta(pos))
            if row is None:
                st.markdown(f"**{where}** :gray-badge[blank · not judged]")
            else:
                colour = "green" if row.yes else "gray"
                st.markdown(f"**{where}** :{colour}-badge[p {row.p:.2f} · "
                            f"{inert(row.verdict)}]  \n" + highlighted(text, row.evidence))
            if source:
                st.caption(source)


def why(rows: list[DetailRow]) -> None:
    """Each judged text with the words that drove its p highlighted (judges that explain)."""
    shown = [r for r in rows if r.evidence and r.text]
    if not shown:
        return
    box = st.expander("Why: the words that drove each p", key=WHY_OPEN, on_change="rerun")
    if not box.open:
        return
    with box:
        for r in shown:
            st.markdown(f"**{inert(r.judged)}** · p {r.p:.2f} · {inert(r.verdict)}  \n"
                        + highlighted(r.text, r.evidence))


TRAILING = set(".,:;!?)]}%'\"…")  # kept inside a highlight: its padding would gap them


def highlighted(text: str, spans: tuple[tuple[int, int, str], ...]) -> str:
    """Markdown of `text`, inert, with each span on an orange background. Punctuation right
    after a span joins it: the background's padding would otherwise open a gap before it
    ("Price :")."""
    out, at = [], 0
    for start, end, _ in sorted(spans):
        if start < at or end > len(text):
            continue
        while end < len(text) and text[end] in TRAILING:
            end += 1
        out.append(inert(text[at:start]))
        out.append(f":orange-background[{inert(text[start:end])}]")
        at = end
    out.append(inert(text[at:]))
    return "".join(out)


def questions(report: Report) -> None:
    """Every question exactly as sent (shared ones once), with its id and the judge's p(yes)."""
    lines = [f"{q['id']}  p={q['p']:.2f}  {q['question']}" if q["p"] is not None
             else f"{q['id']}  {q['question']}" for q in report.questions()]
    st.code("\n".join(lines), language=None, wrap_lines=True)


def chart(rows: list[dict], evaluator: Evaluator) -> dict:
    """Horizontal bars of p(yes), one labelled row per judged item, coloured by verdict,
    with the 0.5 line. Every bar keeps its label, however many there are.

    A Vega-Lite spec written out (no chart library to build and validate it on every edit);
    `rows` carry bar, judged, p, verdict and text.
    """
    yes_colour = verdict.GOOD if evaluator.higher_is_better else verdict.BAD
    bars = {
        "mark": {"type": "bar", "strokeWidth": 3},
        # a click picks a bar (the page focuses its chunk); the focus itself comes with the data
        "params": [{"name": "pick", "select": {"type": "point", "fields": ["judged"]}}],
        "encoding": {
            "opacity": {"condition": {"test": "datum.dim", "value": 0.35}, "value": 1},
            "stroke": {"condition": {"test": "datum.focused", "value": FOCUS},
                       "value": None},
            "y": {"field": "bar", "type": "nominal", "sort": None, "title": None,
                  "axis": {"labelLimit": 0, "labelOverlap": False, "labelFontSize": 12}},
            "x": {"field": "p", "type": "quantitative", "scale": {"domain": [0, 1]},
                  "title": "p(yes)"},
            "color": {"field": "verdict", "type": "nominal",
                      "legend": {"orient": "top", "title": None},
                      # every verdict a bar can carry, "unsure" too: a bar whose verdict
                      # is outside the domain is not drawn at all
                      "scale": {"domain": [*evaluator.verdicts, UNSURE],
                                "range": [yes_colour, verdict.NEUTRAL, verdict.UNSURE_HEX]}},
            "tooltip": [{"field": "judged", "type": "nominal"},
                        {"field": "p", "type": "quantitative", "format": ".2f"},
                        {"field": "verdict", "type": "nominal"},
                        {"field": "text", "type": "nominal"}],
        },
    }
    line = {"data": {"values": [{"p": 0.5}]},  # inline: nothing to convert per edit
            "mark": {"type": "rule", "strokeDash": [5, 4], "color": "#f0ad4e"},
            "encoding": {"x": {"field": "p", "type": "quantitative"}}}
    # A row height, not a total: a total includes the legend and the axis, which left no room
    # for the bars of a short list (4 chunks: every label drawn over the first). Width fits.
    # an Arrow table, not rows: Streamlit would build a pandas frame from rows on every edit
    return {"datasets": {"bars": pa.Table.from_pylist(rows)},
            "height": {"step": BAR_STEP}, "autosize": {"type": "fit-x", "contains": "padding"},
            "layer": [{"data": {"name": "bars"}, **bars}, line]}


def request_panel(report: Report) -> None:
    """The one request: its size and what one call per question would take, in the label;
    opened: the figures and the JSON body to copy (drawn only then: nothing per edit)."""
    if judges.known(report.judge) and judges.entry(report.judge).per_question:
        per_question_panel(report)
        return
    packed = report.packed
    calls, alone = one_call_per_question(packed)
    used = report.usage.input_tokens
    tokens = f"{used:,}" if used else f"~{packed.tokens.total:,}"
    saved = 1 - packed.tokens.total / alone if alone else 0.0
    label = (f"The request: {'1 call' if packed.asked else 'none'}, {tokens} input tokens "
             f"({saved:.0%} fewer than {plural(calls, 'call', 'calls')}, one per question)")
    box = st.expander(label, key=REQUEST_OPEN, on_change="rerun")
    if not box.open:
        return
    cost = report.cost_usd if used else packed.cost_usd
    with box:
        with st.container(horizontal=True, gap="medium"):  # wraps when narrow
            st.metric("requests", "1" if packed.asked else "0",
                      help="every question of every evaluator in one request")
            st.metric("input tokens" + ("" if used else " (estimate)"), tokens)
            st.metric("cost on Jev", f"${cost:.8f}",
                      help="$42 per billion input tokens; output free")
            st.metric("one call per question", f"{calls} calls",
                      f"{saved:.0%} fewer tokens here", delta_color="off", delta_arrow="off",
                      help="the same questions asked one by one with just their operands (as "
                           "RAGAS and DeepEval do), before their prompt templates")
        st.caption("The request body, as sent (JSON)")
        st.code(json.dumps(packed.body, indent=2, ensure_ascii=False), language="json",
                height=360, wrap_lines=True)

