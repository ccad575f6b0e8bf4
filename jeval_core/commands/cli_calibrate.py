"""`jeval calibrate DATA`: fit the local judge to a person's chunk labels, show what it is worth.

Same contract as every command: one line per failure on stderr, exit 0 fitted, 2 bad input
(no labels, too few to fit, a bad file or name).
"""

from __future__ import annotations

import argparse
from typing import Any, cast

from ..errors import SCORED


def add_parser(sub: Any) -> None:
    cal = sub.add_parser("calibrate", help="refit the local judge's curves to the labelled "
                         "chunks of a dataset (context_labels) and save a calibration profile")
    cal.add_argument("data", metavar="DATA", help="dataset with `context_labels` (JSONL, CSV "
                     "or a JSON array)")
    cal.add_argument("--judge", default="local", choices=("local",),
                     help="the offline judge to fit (only local reads signals a fit can use)")
    cal.add_argument("--name", help="the profile's name (default: the file's name)")
    cal.add_argument("--folds", type=int, default=5,
                     help="cross-validation folds, by case (default 5)")
    cal.add_argument("--out", metavar="PROFILE.json",
                     help="also write the profile to this JSON file (to share or import)")
    cal.add_argument("--no-save", action="store_true",
                     help="measure only: do not keep the profile in the run store")
    cal.set_defaults(run=main)


def add_profiles_parser(sub: Any) -> None:
    kept = sub.add_parser("profiles", help="list, export, import or delete the calibration "
                          "profiles kept in the run store")
    what = kept.add_mutually_exclusive_group()
    what.add_argument("--export", metavar="NAME", help="print the profile's JSON (or write it "
                      "to --out)")
    what.add_argument("--import", dest="import_file", metavar="PROFILE.json",
                      help="keep a profile from its JSON file (replaces one of the same name)")
    what.add_argument("--delete", metavar="NAME", help="forget a profile")
    kept.add_argument("--out", metavar="PROFILE.json", help="with --export: write here")
    kept.set_defaults(run=profiles_main)


def profiles_main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import CaseError
    from ..runs.store import open_store
    from ..text import one_line, shell_word
    from .cli_judge import calibration

    if args.out and not args.export:
        raise CaseError("--out says where --export writes: add --export NAME")
    if args.import_file:
        found = calibration(args.import_file)
        with open_store() as store:
            store.save_profile(found)
        print(f"kept profile {one_line(found.name, 80)!r} ({found.fingerprint})")
        return SCORED
    with open_store() as store:
        if args.export:
            text = store.profile(args.export).to_json() + "\n"
            if args.out:
                Path(args.out).write_text(text, encoding="utf-8")
                print(f"wrote {args.out}")
            else:
                print(text, end="")
            return SCORED
        if args.delete:
            if not store.delete_profile(args.delete):
                store.profile(args.delete)  # the clear error for a name that is not there
            print(f"deleted profile {one_line(args.delete, 80)!r}")
            return SCORED
        found_all = store.profiles()
        damaged = store.damaged_profiles()
    if not found_all and not damaged:
        print("no calibration profiles yet: fit one with `jeval calibrate DATA --name NAME`")
    for p in found_all:
        fitted = ", ".join(p.used) or "nothing refitted"
        # a profile is a file someone sent: its texts are printed inert, one line each
        print(f"{one_line(p.name, 80):24} {one_line(p.created, 40):25} {p.fingerprint}  "
              f"{one_line(p.source, 200)} ({fitted})")
    for name, why in damaged:  # the name as the shell reads it back: it can be deleted
        command = (f"delete it with `jeval profiles --delete {shell_word(name)}`"
                   if len(name) <= 200 else "delete it with `jeval profiles --delete` and "
                   "its whole name")
        print(f"{one_line(name, 80):24} damaged: {one_line(why, 200)}; it judges nothing: "
              f"{command}")
    return SCORED


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .. import judges
    from ..calibration import profile_fit
    from ..errors import CaseError
    from ..inputs import datasets

    if not 2 <= args.folds <= 20:
        raise CaseError(f"--folds {args.folds}: choose 2 to 20 folds")
    data = datasets.load(args.data)
    chunks = profile_fit.labelled(data.rows)
    if not chunks:
        raise CaseError(f"{data.name} has no labelled chunks: give rows a `context_labels` "
                        "list (1 relevant, 0 noise per chunk), or label them on the Dataset "
                        "page and download the dataset")
    name = (args.name or Path(data.name).stem).strip()
    # the catalog's judges that calibrate read signals a fit can use (the local one)
    reader = cast("profile_fit.Reads", judges.get(args.judge))
    fitted = profile_fit.fit(chunks, name, data.sha256, data.name, reader, k=args.folds)
    twice = len(chunks) - len(profile_fit.distinct(chunks))
    if twice:
        print(f"{twice} duplicated case(s) left out: each case is fitted or measured once")
    print(describe(fitted))
    if not fitted.used:
        reasons = "; ".join(f.note for f in fitted.relations.values())
        raise CaseError(f"no curve was refitted ({reasons})")
    if args.out:
        Path(args.out).write_text(fitted.to_json() + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    if not args.no_save:
        from ..runs.store import open_store

        with open_store() as store:
            store.save_profile(fitted)
        print(f"saved profile {fitted.name!r}: use it with --calibration {fitted.name}")
    return SCORED


def describe(p: Any) -> str:
    """The profile as a person reads it: per question type, labels and held-out figures."""
    lines = [f"profile {p.name!r} for the {p.judge} judge, fitted on {p.source} "
             f"(sha256 {p.dataset_sha256[:12]}), {p.folds}-fold cross-validation by case",
             f"{'question type':16} {'labels':>7} {'yes':>5} {'cases':>6}  "
             f"{'always no':>9}  {'before: AUC  acc   F1    kappa':28} "
             f"{'after: AUC  acc   F1    kappa':28}"]
    for relation, f in p.relations.items():
        before, after = f.before, f.after
        lines.append(f"{relation:16} {f.labels:>7} {f.positives:>5} {f.cases:>6}  "
                     f"{before.always_no if before else float('nan'):>9.3f}  "
                     f"{_fmt(before):28} {_fmt(after):28}")
        lines.append(f"  {f.note}")
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    auc = "  n/a" if v.auc is None else f"{v.auc:.3f}"
    kappa = "  n/a" if v.kappa is None else f"{v.kappa:.3f}"
    return f"{auc} {v.accuracy:.3f} {v.f1:.3f} {kappa}"
