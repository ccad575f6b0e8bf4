"""`jeval import FILE --out DATA.jsonl`: a RAG pipeline's own export as a jeval dataset.

LangChain, LlamaIndex, OTLP (OpenInference), Langfuse and LangSmith exports (inputs/pipelines)
become one JSONL row per retrieval in our field names, each chunk's id, source, score and
rank in `context_meta`, so `jeval run` and the pages read them with nothing lost. Same
contract as the other commands: one line on stderr per failure, exit 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import SCORED
from ..text import one_line, plural

MAX_NOTES = 10  # rows a run would skip, said one line each, then counted


def add_parser(sub: Any) -> None:
    from ..inputs.pipelines import FORMATS

    command = sub.add_parser("import", help="turn a RAG pipeline's export (LangChain, "
                             "LlamaIndex, OTLP, Langfuse, LangSmith) into a dataset")
    command.add_argument("file", metavar="FILE", help="the pipeline's export, .json or .jsonl "
                         "(LangChain documents or retrievals, LlamaIndex source_nodes or "
                         "responses, an OTLP JSON trace export, Langfuse traces, LangSmith "
                         "runs)")
    command.add_argument("--format", choices=FORMATS,
                         help="the export's format (default: told from its shape)")
    command.add_argument("--out", metavar="DATA.jsonl", required=True,
                         help="the dataset to write: one case per retrieval, with each "
                         "chunk's id, source, score and rank (context_meta)")
    command.set_defaults(run=main)


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import CaseError
    from ..inputs import datasets, pipelines

    source, out = Path(args.file), Path(args.out)
    if out.suffix.lower() in (".csv", ".tsv"):
        raise CaseError(f"--out {one_line(args.out, 120)}: the dataset is written as JSONL; "
                        "name it .jsonl")
    if out.exists() and source.exists() and out.resolve() == source.resolve():
        raise CaseError(f"--out {one_line(args.out, 120)} is the export itself: write the "
                        "dataset to another file")
    found = pipelines.read_export(source, args.format)
    text = datasets.jsonl_of(pipelines.to_rows(found.retrievals))
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        raise CaseError(f"cannot write --out {one_line(args.out, 120)}: "
                        f"{err.strerror or type(err).__name__}; choose a writable file"
                        ) from None
    _note_rows_a_run_would_skip(text, out.name)
    print(f"wrote {plural(len(found.retrievals), 'retrieval', 'retrievals')} "
          f"({plural(found.chunks, 'chunk', 'chunks')}) from {found.format} to "
          f"{one_line(args.out, 200)}")
    return SCORED


def _note_rows_a_run_would_skip(text: str, name: str) -> None:
    """Every retrieval is written; one a dataset cannot score (too many chunks, an id used
    twice) is said here, so the skip in `jeval run` is no surprise."""
    from ..errors import CaseError
    from ..inputs import datasets

    try:
        errors = datasets.read(text.encode("utf-8"), name).errors
    except CaseError as err:
        print(f"jeval: note: {err}", file=sys.stderr)
        return
    for problem in errors[:MAX_NOTES]:
        print(f"jeval: note: `jeval run` will skip {problem}", file=sys.stderr)
    if len(errors) > MAX_NOTES:
        print(f"jeval: note: and {len(errors) - MAX_NOTES} more rows", file=sys.stderr)
