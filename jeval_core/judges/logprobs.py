"""p(yes) from the token probabilities of a one-token answer, never from parsed text.

A model spells its answer many ways: "Yes", "yes", " Yes", "YES", "▁Yes" (SentencePiece),
"ĠYes" (byte-level BPE). Every spelling of yes is summed, and every spelling of no; p(yes) is
yes over yes + no, and yes + no (the mass the model gave an answer at all) is kept as
coverage. The reply's shape differs by server and endpoint, all read here:

- chat (OpenAI, vLLM, Ollama, llama.cpp) and llama.cpp's completions:
  `{"logprobs": {"content": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]}}`
- the classic completions shape (OpenAI, vLLM):
  `{"logprobs": {"tokens": [...], "token_logprobs": [...], "top_logprobs": [{token: lp}]}}`

Replies are untrusted: a token or value that is no number is left out, and a number that
cannot be a log-probability (above 0, beyond float noise, or NaN: probabilities sent where
logprobs go, say) makes the answer unreadable, never a made-up p: dropping it would leave the
other answer alone and turn an unreadable "yes" into a confident "no".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..text import one_line

YES, NO = "yes", "no"
NOISE = 1e-6  # a log-probability this far above 0 is float noise: read as 0 (p = 1)
_MARKS = " \t\r\n\u2581\u0120\u010a.,!:;\"'*`"  # spaces, SentencePiece's ▁, BPE's Ġ/Ċ, marks


@dataclass(frozen=True)
class Reading:
    """What one answer's token probabilities say: p(yes) when yes or no is among them."""

    p: float | None  # yes / (yes + no); None when neither is among the top tokens
    coverage: float  # yes + no: how much of the model's answer was yes or no at all
    top: str  # the token the model put first (for messages)
    problem: str | None = None  # why there is no p


def answer_word(token: str) -> str | None:
    """"yes" or "no" when `token` is a spelling of one (any case, spaces, ▁/Ġ marks)."""
    word = token.strip(_MARKS).lower()
    return word if word in (YES, NO) else None


class _Unreadable(ValueError):
    """A number where a log-probability goes that cannot be one."""


def top_tokens(choice: Any) -> list[tuple[str, float]] | None:
    """(token, logprob) of the answer's first position, the chosen token too; None when the
    choice carries no logprobs in any known shape. Raises _Unreadable when one of its numbers
    cannot be a log-probability."""
    logprobs = choice.get("logprobs") if isinstance(choice, Mapping) else None
    if not isinstance(logprobs, Mapping):
        return None
    found: list[tuple[str, float]] = []
    content = logprobs.get("content")
    if isinstance(content, list) and content and isinstance(content[0], Mapping):
        first = content[0]
        _add(found, first.get("token"), first.get("logprob"))
        listed = first.get("top_logprobs")
        for item in listed if isinstance(listed, list) else ():
            if isinstance(item, Mapping):
                _add(found, item.get("token"), item.get("logprob"))
        return found or None
    tokens, chosen = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if isinstance(tokens, list) and isinstance(chosen, list) and tokens and chosen:
        _add(found, tokens[0], chosen[0])
    listed = logprobs.get("top_logprobs")
    if isinstance(listed, list) and listed and isinstance(listed[0], Mapping):
        for token, logprob in list(listed[0].items())[:100]:
            _add(found, token, logprob)
    return found or None


def _add(found: list[tuple[str, float]], token: Any, logprob: Any) -> None:
    if (not isinstance(token, str) or isinstance(logprob, bool)
            or not isinstance(logprob, (int, float))):
        return
    value = float(logprob)
    if math.isnan(value) or value > NOISE:  # exp of it would be no probability (above 1)
        raise _Unreadable(f"the server sent {one_line(repr(logprob), 20)} as the "
                          f"log-probability of {one_line(token, 30)!r}, which must be 0 or "
                          "below (are these probabilities, not logprobs?): the answer is "
                          "unreadable, so no answer")
    found.append((token, min(value, 0.0)))


def read(choice: Any, first_text: str | None = None) -> Reading:
    """The Reading of one choice of a reply (`first_text`: what the model wrote, for the
    message when there are no logprobs)."""
    try:
        tokens = top_tokens(choice)
    except _Unreadable as bad:
        return Reading(None, 0.0, "", str(bad))
    if tokens is None:
        shown = one_line(first_text or "", 30)
        wrote = f" (it wrote {shown!r})" if shown else ""
        return Reading(None, 0.0, shown, "the server sent no token probabilities (logprobs)"
                       f"{wrote}; it may not support them: no probability, so no answer")
    mass = {YES: 0.0, NO: 0.0}
    seen: set[str] = set()
    for token, logprob in tokens:
        if token in seen:  # the chosen token is listed again among the top ones
            continue
        seen.add(token)
        word = answer_word(token)
        if word is not None:
            mass[word] += math.exp(logprob)
    top = one_line(tokens[0][0], 30)
    covered = mass[YES] + mass[NO]
    if covered <= 0.0:
        return Reading(None, 0.0, top, f"neither yes nor no among the model's top "
                       f"{len(seen)} tokens (it put {top!r} first): no probability, so no "
                       "answer")
    return Reading(min(1.0, mass[YES] / covered), min(1.0, covered), top)
