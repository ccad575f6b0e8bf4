"""The prompt the openai judge sends: the case's state as a prefix identical across a case's
questions, then ONE question, verbatim as the Jev judge receives it.

Every question of a case begins with the same system message and the same rendering of the
state, so a server with prefix caching (vLLM, llama.cpp, SGLang, OpenAI's prompt caching)
reads the state once per case; only the question and the closing line differ. The state is
the one `request.pack` builds for Jev (only what the questions name), one line per text
under the name the questions use (`context[2]`, `output[1]`), each text as a JSON string so
that no text can pass for a line of the prompt. One question per request: asking several in
one JSON reply was measured to answer "yes" to all of them (its token probabilities come
before the schema's), and a one-token answer's probabilities are the point.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..questions import Question

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
