"""MkDocs hook: the README is the site's home page, and the repository files the docs link to
(screenshots, the model's notice, the datasets' readme) are served from where they lie, so a
link that works on GitHub works on the site, and `mkdocs build --strict` checks both."""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

# Repository files the docs link to, served at the same path as in the repository.
SERVED = ("README.md", "jeval_core/models/NOTICE.md", "assets/datasets/README.md")
SERVED_GLOBS = ("assets/*.png",)


def _root(config) -> Path:
    return Path(config.config_file_path).parent


def on_files(files: Files, config) -> Files:
    root = _root(config)
    paths = [root / p for p in SERVED]
    paths += [p for g in SERVED_GLOBS for p in sorted(root.glob(g))]
    for path in paths:
        uri = path.relative_to(root).as_posix()
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """Links written for the repository's layout, made relative to the site's: docs/ pages sit
    at the site's root beside the README."""
    uri = page.file.src_uri
    if uri == "README.md":
        return re.sub(r"\]\(docs/", "](", markdown)
    if "/" not in uri:  # a page of docs/
        return re.sub(r"\]\(\.\./", "](", markdown)
    return markdown
