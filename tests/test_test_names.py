"""The test tree's own rule: pytest imports test files by their base name (the tree has no
``__init__.py`` files), so two test files with one name make the whole run fail to collect."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent


def test_every_test_file_has_a_name_of_its_own() -> None:
    names = Counter(
        path.name for path in TESTS.rglob("test_*.py") if "node_modules" not in path.parts
    )
    assert [name for name, count in names.items() if count > 1] == []
