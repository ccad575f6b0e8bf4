"""The prompt the openai judge sends: the texts a question names, then ONE question, verbatim
as the Jev judge receives it.

By default (`PROMPTS[0]`, "named") a question is sent with the texts it names and no more: a
chunk question ("Judge this chunk on its own") with `input`, that chunk and `expected` when
it names it; faithfulness with the answer's sentence and the chunks. A hosted API bills
every prompt token, and a 30-chunk case sent whole with each of its ~90 questions is ~190k
tokens where the named texts are a few thousand. "case" sends the case's whole state (the
one `request.pack` builds for Jev) before every question instead: an identical prefix, which
a server with prefix caching (vLLM, llama.cpp, SGLang) reads once per case. Either way each
text is one line under the name the questions use (`context[2]`, `output[1]`), as a JSON
string so that no text can pass for a line of the prompt. One question per request: asking
several in one JSON reply was measured to answer "yes" to all of them (its token
probabilities come before the schema's), and a one-token answer's probabilities are the point.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..questions import NAMED, Question

# What goes before each question: the texts it names ("named"), or the whole case ("case").
PROMPTS = ("named", "case")

SYSTEM = ("You judge statements about a case from a retrieval-augmented assistant. Read the "
          "case, then decide whether the statement is true of it. Reply with one word: Yes or "
          "No.")

TEMPLATE = """\
The case. `input` is the user's question, `output` the answer being judged, `expected` a \
reference answer, `context` the retrieved chunks in rank order. A name with an index is a \
part of one: `context[2]` is the third chunk, `context[2][0]` its first sentence, `output[1]` \
the second sentence of the output. Each text is a JSON string.

{state}

Statement: {question}{criteria}
Is the statement true? Answer Yes or No."""

ANSWER_CUE = "Answer:"  # ends a completions prompt, where no chat template says who speaks


def named_state(state: Mapping[str, Any], question: Question) -> dict[str, Any]:
    """The texts `question` names, each under the name it uses (`context[2]`, `input`), in
    the order it names them: all the judge needs for a question about those texts."""
    out: dict[str, Any] = {}
    for m in NAMED.finditer(question.text):
        name, value = m.group(1), state.get(m.group(1))
        for index in re.findall(r"\d+", m.group(2)):
            value = value[int(index)] if isinstance(value, list) and int(index) < len(value) \
                else None
        out.setdefault(name + m.group(2), value)
    return out


def render_state(state: Mapping[str, Any]) -> str:
    """The state, one line per text under the name questions use for it."""
    lines: list[str] = []
    for name, value in state.items():
        _lines(name, value, lines)
    return "\n".join(lines)


def _lines(name: str, value: Any, out: list[str]) -> None:
    if value is None:
        out.append(f"{name}: (none given)")
    elif isinstance(value, list):
        if not value:
            out.append(f"{name}: (empty)")
        for i, part in enumerate(value):
            _lines(f"{name}[{i}]", part, out)
    else:
        out.append(f"{name}: {json.dumps(str(value), ensure_ascii=False)}")


def user_text(state: Mapping[str, Any], question: Question) -> str:
    """The user message for one question: the shared state first, the question last."""
    criteria = ""
    if question.criteria is not None:
        true, false = question.criteria
        criteria = f"\nCounts as Yes: {true}\nCounts as No: {false}"
    return TEMPLATE.format(state=render_state(state), question=question.text,
                           criteria=criteria)


def messages(state: Mapping[str, Any], question: Question) -> list[dict[str, str]]:
    """The chat messages for one question (`/chat/completions`)."""
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": user_text(state, question)}]


def completion_prompt(state: Mapping[str, Any], question: Question) -> str:
    """The plain-text prompt for one question (`/completions`: no chat template)."""
    return f"{SYSTEM}\n\n{user_text(state, question)}\n{ANSWER_CUE}"


def shown_template() -> str:
    """The template as the Playground's request view shows it."""
    return (f"system: {SYSTEM}\n\nuser:\n"
            + TEMPLATE.format(state="{state: one line per text, e.g. context[0]: \"...\"}",
                              question="{the question, verbatim}",
                              criteria="{Counts as Yes / No, for a custom question}"))
