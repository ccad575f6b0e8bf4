"""The server judges (jev, openai) as this session's sidebar sets them up, always built through
the catalog.

Each server judge keeps its own base URL, key and model. The key typed in the sidebar goes to
the server it was typed for; the environment's key only to the server the environment names.
Neither is ever put in a widget, a link or a log.
"""

from __future__ import annotations

import hashlib
from typing import Any

from jeval_app import state
from jeval_core import JevalError, judges, live, wire
from jeval_core.judges import server_module
from jeval_core.judges.http import Secret, as_secret
from jeval_core.scoring import run


def name() -> str:
    """The server judge's name: the one picked in the sidebar, else the catalog's first."""
    picked = state.judge_name()
    return picked if judges.is_hosted(picked) else judges.hosted_name() or picked


def _key(what: str, judge: str | None) -> str:
    return state.connection_key(judge or name(), what)


def default_base_url(judge: str | None = None) -> str:
    """The server the environment names for this judge, else its catalog default."""
    judge = judge or name()
    try:
        return str(server_module(judge).configured_base_url())
    except JevalError:
        return judges.entry(judge).default_base_url


def base_url(judge: str | None = None) -> str:
    """The server the judge would be asked on: the sidebar's, else the configured one."""
    return state.text(_key("base_url", judge)).strip() or default_base_url(judge)


def model(judge: str | None = None) -> str | None:
    """The model picked; a server whose models the user names (openai) has no default."""
    picked = state.get(_key("model", judge))
    if picked:
        return str(picked)
    return None if judges.entry(judge or name()).names_model else wire.DEFAULT_MODEL


def env_key_for(url: str, judge: str | None = None) -> bool:
    """Whether the environment holds a key meant for this base URL."""
    try:
        return server_module(judge or name()).key_from_env(url) is not None
    except JevalError:
        return False


def typed_key(judge: str | None = None) -> Secret | None:
    """The key typed in the settings for this server judge: kept in the session once entered
    (the box empties, sidebar.keep_key), or still in the box before its callback ran."""
    return state.secret(judge or name()) or as_secret(state.text(_key("key", judge)))


def key_ready() -> bool:
    """Whether a key for the hosted judge's server is set: typed in the settings (it goes to
    the server it was typed for), or the environment's, for the server it names."""
    return typed_key() is not None or env_key_for(base_url())


def build(api_key: object = None, url: str | None = None, model_name: str | None = None,
          judge: str | None = None, **settings: Any) -> Any:
    return judges.get(judge or name(), api_key=api_key, base_url=url, model=model_name,
                      **settings)


def from_settings(judge: str | None = None, **settings: Any) -> Any:
    """The server judge as the sidebar sets it up (the kept key first, then the
    environment's); `settings` as a stored run recorded them (`Judge.settings`)."""
    judge = judge or name()
    return build(state.secret(judge) or None, state.get(_key("base_url", judge)), model(judge),
                 judge, **settings)


def list_models(judge: str | None = None) -> tuple[list[str], str]:
    """The models the configured server offers, and a line for those left out ("" when none
    are); a JevalError says why not."""
    built = from_settings(judge)
    try:
        listed = built.models()
        return [m.name for m in listed], listed.more
    finally:
        built.close()


def maker() -> tuple[tuple[str, str, str], live.Make]:
    """The hosted judge's settings as they are now (what makes two requests the same), and
    the function that builds the judge for one request. The key stays inside that function:
    the settings carry only a digest of a typed key, so that a new key asks again."""
    key, url, chosen = typed_key(), base_url(), model() or wire.DEFAULT_MODEL

    def make() -> tuple[Any, live.Send]:
        judge = build(key, url, chosen)
        return judge, lambda packed: run(packed, judge)

    return (url, chosen, key_tag(key)), make


def key_tag(key: Secret | None) -> str:
    """A typed key's digest (never the key), or "environment" for the configured one."""
    return hashlib.sha256(key.reveal().encode()).hexdigest()[:12] if key else "environment"


def spender() -> str:
    """Whose money live requests spend: the server and the key set now (as a digest). Every
    session of this server process with the same one shares its cap."""
    return f"{base_url()} {key_tag(typed_key())}"
