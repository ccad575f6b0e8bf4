"""The Playground's case link: `?case=` follows the editor (one history entry per page),
and Copy link puts it on the clipboard."""

from __future__ import annotations

import json

import streamlit as st

from jeval_app import case as editing
from jeval_app import state
from jeval_core import judges
from jeval_core.inputs.share import MAX_TOKEN_CHARS

# ---- sharing: the link follows the case ----

def follow_in_url() -> str | None:
    """Keep `?case=` in the address bar in step with the editor, so a reload keeps the edited
    case; the untouched seed example needs none. Returns the token (None when not kept)."""
    token = editing.token()
    pristine = (editing.token(with_judge=False) == state.seed_token()
                and state.judge_name() == judges.DEFAULT)
    if pristine:
        keep = None
    elif len(token) > MAX_TOKEN_CHARS:
        keep = None  # too long to be a link: the JSON download is the way to share it
    else:
        keep = token
    if st.query_params.get("case") != keep:
        if keep is None:
            st.query_params.pop("case", None)
        else:
            st.query_params["case"] = keep
    return keep



# Streamlit pushes a browser history entry whenever the query string changes, so with the link
# following the case every committed edit was one: Back stepped through edits while the editor
# kept the newest text, and a reload there brought an old case back over it. A change of the
# query string alone replaces the entry; a change of page still adds one. A constant script:
# no visitor text reaches it. Its element takes no room on the page.
ONE_ENTRY_PER_PAGE = """<span id="jeval-one-entry"></span><style>
[data-testid="stElementContainer"]:has(#jeval-one-entry) { display: none; }
</style><script>
(() => {
  if (window.__jevalOneEntryPerPage) return;
  window.__jevalOneEntryPerPage = true;
  const push = history.pushState.bind(history);
  history.pushState = (state, title, url) => {
    const next = url == null ? null : new URL(url, location.href);
    if (next !== null && next.origin === location.origin && next.pathname === location.pathname) {
      history.replaceState(state, title, url);
    } else {
      push(state, title, url);
    }
  };
})();
</script>"""



def one_history_entry_per_page() -> None:
    st.html(ONE_ENTRY_PER_PAGE, unsafe_allow_javascript=True)



def copy_link(token: str | None) -> None:
    """The link on the clipboard (in the browser), with a confirmation, and shown to copy."""
    if token is None:
        token = editing.token()
        st.query_params["case"] = token
    base = (st.context.url or "").split("?")[0]
    if base.count("/") == 2:  # http://host:port -> http://host:port/
        base += "/"
    link = f"{base}?case={token}"
    # Only our own link (a URL of the server plus base64url) goes into this script, as JSON
    # with every < escaped: no text a visitor typed can reach it unencoded.
    data = json.dumps(link).replace("<", "\\u003c")
    st.html(f"""<span id="jeval-copied" role="status"></span><script>
(function () {{
  const link = {data};
  const out = document.getElementById("jeval-copied");
  navigator.clipboard.writeText(link).then(
    () => {{ if (out) out.textContent = "Link copied to the clipboard."; }},
    () => {{ if (out) out.textContent = "The browser refused the clipboard: copy the link "
                                        + "from the box below."; }});
}})();
</script>""", unsafe_allow_javascript=True)
    with st.expander("The link", expanded=False):
        st.code(link, language=None, wrap_lines=True)



def on_copy() -> None:
    state.ask("copy")
