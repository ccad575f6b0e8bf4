import json
from pathlib import Path

import pytest

from jeval_core import Case

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "assets" / "examples"


def load_case(name: str) -> Case:
    """A case from assets/examples, by file stem."""
    return Case.from_dict(json.loads((EXAMPLES / f"{name}.json").read_text()))


@pytest.fixture
def seed_case() -> Case:
    """The seed 000 "What to send" example: four chunks, 1 and 4 relevant."""
    return load_case("jev_pricing")
