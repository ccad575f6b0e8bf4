"""The compact state shape (sentences addressed inside their field) works with every judge."""

import json

import httpx
import pytest
from conftest import EXAMPLES, load_case
from jevcompat.mock import MockConfig, Running
from typesafe_sdk._schemas.models import SystemOneRequest

from jeval_core import evaluators, judges, wire
from jeval_core.judges.jev import JevJudge, RetryPolicy
from jeval_core.request import pack
from jeval_core.scoring import score

NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))
FAST = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.05, timeout=5, total_seconds=30)


class Recording(httpx.HTTPTransport):
    """A real transport that keeps the bytes of every body it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.content:
            self.sent.append(request.content)
        return super().handle_request(request)


@pytest.fixture(scope="module")
def mock():
    with Running(MockConfig()) as server:
        yield server


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    return []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("judge", ["local", "lexical"])
def test_offline_judges_answer_every_question_of_every_evaluator(name, judge):
    report = score(load_case(name), evaluators.ALL, judges.get(judge))
    assert set(report.answers) == set(report.packed.asked)
    assert all(0.0 <= p <= 1.0 for p in report.answers.values())


@pytest.mark.parametrize("name", NAMES)
def test_the_hosted_judge_receives_the_packed_body_byte_for_byte(mock, name):
    transport = Recording()
    judge = JevJudge(api_key="sk-shape-0123456789", base_url=mock.url, retry=FAST,
                     transport=transport)
    report = score(load_case(name), evaluators.ALL, judge)
    assert transport.sent == [wire.encode(report.packed.body)]
    SystemOneRequest.model_validate(json.loads(transport.sent[0]))
    assert set(report.answers) == set(report.packed.asked)


@pytest.mark.parametrize("name", NAMES)
def test_each_field_is_sent_once_with_every_evaluator_selected(name):
    case = load_case(name)
    state = pack(case, evaluators.ALL).state
    assert set(state) <= {"input", "output", "expected", "context"}
    fields = [case.input, case.output, case.expected or "", *case.context]
    sent = sum(len(s) for s in strings(state))
    assert sent <= sum(len(f) for f in fields)  # sentences lose only the spaces between them


def test_the_body_is_compact_utf8_json():
    body = wire.encode(pack(load_case("whole_document"), evaluators.ALL).body)
    assert b'", "' not in body and b"\\u" not in body
    assert body.decode("utf-8") == json.dumps(json.loads(body), ensure_ascii=False,
                                               separators=(",", ":"))
