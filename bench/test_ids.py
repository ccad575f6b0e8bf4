"""The collected test ids of two checkouts side by side: what a change to the suite's
plumbing (fixture scopes, in-process CLI, parallel runs) added, removed or kept.

    python bench/test_ids.py OLD_CHECKOUT [NEW_CHECKOUT]     # NEW defaults to this one

Each checkout is collected by this environment's pytest (`--collect-only -q`), run in that
checkout. Prints the counts, then every id only one side has; a plumbing change should
print "same ids: N" and nothing else.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def collected(checkout: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
                           "-p", "no:cacheprovider"], cwd=checkout, capture_output=True,
                          text=True)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    if not ids:
        sys.exit(f"test_ids: nothing collected in {checkout}: {done.stdout[-400:]}"
                 f"{done.stderr[-400:]}")
    return ids


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    old = collected(Path(sys.argv[1]))
    new = collected(Path(sys.argv[2]) if len(sys.argv) == 3 else ROOT)
    gone, added = sorted(set(old) - set(new)), sorted(set(new) - set(old))
    print(f"old {len(old)} ids, new {len(new)} ids; same ids: {len(set(old) & set(new))}")
    for name, ids in (("only in old", gone), ("only in new", added)):
        if ids:
            print(f"{name} ({len(ids)}):")
            for test_id in ids:
                print(f"  {test_id}")


if __name__ == "__main__":
    main()
