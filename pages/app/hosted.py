"""The hosted judge as this session's sidebar sets it up, always built through the catalog.

The key typed in the sidebar goes to the server it was typed for; the environment's key only
to the server the environment names. Neither is ever put in a widget, a link or a log.
"""

from __future__ import annotations

import hashlib

from jeval_core import JevalError, judges, live, wire
from jeval_core.judges.jev import DEFAULT_BASE_URL as FALLBACK_BASE_URL
from jeval_core.judges.jev import JevJudge, configured_base_url, key_from_env
from jeval_core.scoring import run
from pages.app import state


def name() -> str:
    """The hosted judge's name: the one picked in the sidebar, else the catalog's."""
    picked = state.judge_name()
    return picked if judges.is_hosted(picked) else judges.hosted_name() or picked


def default_base_url() -> str:
    try:
        return configured_base_url()
    except JevalError:
        return FALLBACK_BASE_URL


def base_url() -> str:
    """The server the hosted judge would be asked on: the sidebar's, else the configured one."""
    return state.text(state.BASE_URL).strip() or default_base_url()


def model() -> str:
    return state.get(state.MODEL) or wire.DEFAULT_MODEL


def env_key_for(url: str) -> bool:
    """Whether the environment holds a key meant for this base URL."""
    try:
        return key_from_env(url) is not None
    except JevalError:
        return False


def typed_key() -> str | None:
    return state.text(state.KEY_BOX).strip() or None


def key_ready() -> bool:
    """Whether a key for the hosted judge's server is set: typed in the settings (it goes to
    the server it was typed for), or the environment's, for the server it names."""
    return typed_key() is not None or env_key_for(base_url())


def build(api_key: object = None, url: str | None = None,
          model_name: str | None = None) -> JevJudge:
    judge = judges.get(name(), api_key=api_key, base_url=url, model=model_name)
    assert isinstance(judge, JevJudge)  # the one hosted protocol: a Jev-compatible server
    return judge


def from_settings() -> JevJudge:
    """The hosted judge as the sidebar sets it up (the kept key first, then the
    environment's)."""
    return build(state.secret() or None, state.get(state.BASE_URL), model())


def list_models() -> list[str]:
    """The models the configured server offers (a JevalError says why not)."""
    judge = from_settings()
    try:
        return [m.name for m in judge.models()]
    finally:
        judge.close()


def maker() -> tuple[tuple[str, str, str], live.Make]:
    """The hosted judge's settings as they are now (what makes two requests the same), and
    the function that builds the judge for one request. The key stays inside that function:
    the settings carry only a digest of a typed key, so that a new key asks again."""
    key, url, chosen = typed_key(), base_url(), model()

    def make() -> tuple[JevJudge, live.Send]:
        judge = build(key, url, chosen)
        return judge, lambda packed: run(packed, judge)

    return (url, chosen, key_tag(key)), make


def key_tag(key: str) -> str:
    """A typed key's digest (never the key), or "environment" for the configured one."""
    return hashlib.sha256(key.encode()).hexdigest()[:12] if key else "environment"


def spender() -> str:
    """Whose money live requests spend: the server and the key set now (as a digest). Every
    session of this server process with the same one shares its cap."""
    return f"{base_url()} {key_tag(typed_key())}"
