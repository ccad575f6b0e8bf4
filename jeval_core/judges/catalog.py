"""The judges this product knows, and the only place a judge is built.

One `Entry` per judge says what the judge is (offline or hosted, whether it needs a key, how
many cases a dataset run sends at once, whether it says why) and how to build it. The CLI,
the pages, dataset runs and comparisons all build judges with `get` and ask `entry` what a
judge is; nothing compares judge names. Adding a judge is one module and one entry below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import JudgeError
from .base import Judge


@dataclass(frozen=True)
class Entry:
    """One judge of the catalog: its names for people, what it is, and its factory."""

    name: str  # as typed after --judge and kept with a run
    title: str  # short, for buttons ("Score with Jev")
    label: str  # for pickers ("Jev (hosted, needs a key)")
    build: Callable[..., Judge]  # takes the settings `get` passes on
    hosted: bool = False  # answers come from a server (billed, asked only when the user says)
    needs_key: bool = False
    concurrency: int = 2  # cases in flight in the app's runs: offline judges share the cores
    explains: bool = False  # its answers carry evidence: the words that drove each p
    calibrates: bool = False  # takes a calibration profile fitted to a person's labels
    # A server judge's connection, as the sidebar and the CLI set it up: where its key and
    # base URL come from, and whether a model must be named (the server's own list).
    key_env: str = ""
    base_url_env: str = ""
    default_base_url: str = ""
    names_model: bool = False  # no default model: the user names one of the server's
    # the module that holds its connection rules, loaded on first use: `normalise_base_url`,
    # `configured_base_url` and `key_from_env` (see `server_module`)
    connection: Callable[[], Any] | None = None
    # One request per question (the openai judge): the request view shows the prompt
    # template and the case's requests, input and cached tokens, not one System One body.
    per_question: bool = False

    @property
    def offline(self) -> bool:
        return not self.hosted


def _local(calibration: Any = None, **_: Any) -> Judge:
    from .local import LocalJudge

    return LocalJudge(profile=calibration)


def _lexical(**_: Any) -> Judge:
    from .lexical import LexicalJudge

    return LexicalJudge()


def _devx(**_: Any) -> Judge:
    from .devx import DevxJudge

    return DevxJudge()


def _jev(**settings: Any) -> Judge:
    from .jev import JevJudge

    return JevJudge(**settings)


def _openai(**settings: Any) -> Judge:
    from .openai_compat import OpenAIJudge

    return OpenAIJudge(**settings)


def _jev_connection() -> Any:
    from . import jev

    return jev


def _openai_connection() -> Any:
    from . import openai_compat

    return openai_compat


DEFAULT = "local"
CATALOG: dict[str, Entry] = {e.name: e for e in (
    Entry("local", "Local", "Local (offline, default)", _local, explains=True,
          calibrates=True),
    Entry("lexical", "Lexical", "Lexical (word overlap)", _lexical, explains=True),
    Entry("devx", "devx-ai", "devx-ai scorer (its formulas, exactly)", _devx),
    # the hosted judge keeps its own rate limits, so a run may keep more cases in flight
    Entry("jev", "Jev", "Jev (hosted, needs a key)", _jev, hosted=True, needs_key=True,
          concurrency=8, key_env="TYPESAFE_API_KEY", base_url_env="TYPESAFE_BASE_URL",
          default_base_url="https://api.typesafe.ai", connection=_jev_connection),
    # the user's own model: each case's questions already go out concurrently
    Entry("openai", "your model", "Your own LLM (any OpenAI-compatible server)", _openai,
          hosted=True, concurrency=2, key_env="OPENAI_API_KEY", base_url_env="OPENAI_BASE_URL",
          default_base_url="https://api.openai.com/v1", names_model=True, per_question=True,
          connection=_openai_connection),
)}


def names() -> tuple[str, ...]:
    return tuple(CATALOG)


def known(name: object) -> bool:
    return isinstance(name, str) and name in CATALOG


def entry(name: str) -> Entry:
    """The catalog's entry for `name`; a JudgeError naming the choices for any other name."""
    if not known(name):
        raise JudgeError(f"unknown judge {str(name)[:40]!r}: choose from {', '.join(CATALOG)}")
    return CATALOG[name]


def labels() -> dict[str, str]:
    return {name: e.label for name, e in CATALOG.items()}


def offline_names() -> tuple[str, ...]:
    return tuple(name for name, e in CATALOG.items() if e.offline)


def hosted_name() -> str | None:
    """The hosted judge (the one the app's connection settings and live mode are for)."""
    return next((name for name, e in CATALOG.items() if e.hosted), None)


def is_hosted(name: str) -> bool:
    return known(name) and CATALOG[name].hosted


def server_module(name: str | None) -> Any:
    """The module of the server judge `name` (jev or openai): its base URL and key rules, as
    its entry names them; no name, or a judge with no server, gets jev's (as it always has)."""
    found = entry(name) if name else None
    if found is not None and found.connection is not None:
        return found.connection()
    return _jev_connection()


def get(name: str, **settings: Any) -> Judge:
    """A judge by name; a hosted one takes api_key, base_url, model, retry, transport, limiter.

    Settings left at None are not given. Offline judges take none but a calibration profile
    (the ones that calibrate): any other is a mistake (a key meant for the hosted judge), so
    it is refused rather than dropped.
    """
    found = entry(name)
    given = {k: v for k, v in settings.items() if v is not None}
    if "calibration" in given and not found.calibrates:
        raise JudgeError(f"the {name} judge takes no calibration profile; fit and use one "
                         "with --judge local")
    stray = sorted(set(given) - {"calibration"})
    if found.offline and stray:
        raise JudgeError(f"the {name} judge takes no settings ({', '.join(stray)} "
                         f"given); they are for --judge {hosted_name()}")
    return found.build(**given)
