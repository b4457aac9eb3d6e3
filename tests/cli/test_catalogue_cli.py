"""The catalogue the person reads (``foehn tools``) is the one the model gets: the same names,
descriptions and schemas, ``investigate`` included, and where a tool depends on the model it
says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.harness import foehn
from foehn_lsp.testing import ModelServer, Turn

pytestmark = pytest.mark.process


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def test_foehn_tools_lists_what_the_model_is_offered(
    server: ModelServer, app: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    listed = foehn("tools", "--json", "--workspace", str(app), server=server, state=state)
    assert listed.returncode == 0, listed.stderr
    catalogue = {t["name"]: t for t in json.loads(listed.stdout)["tools"]}
    server.script(Turn(text="Hello."))
    done = foehn("run", "hi", "--workspace", str(app), server=server, state=state)
    assert done.returncode == 0, done.stderr
    offered = {t["function"]["name"]: t["function"] for t in server.requests[0].body["tools"]}
    assert set(catalogue) == set(offered)
    assert "investigate" in catalogue
    for name, function in offered.items():
        assert catalogue[name]["description"] == function["description"], name
        assert catalogue[name]["parameters"] == function["parameters"], name
    assert "in the turns a model runs" in catalogue["investigate"]["offered"]
    assert "embedded model" in catalogue["todo"]["offered"]
    assert "offered" not in catalogue["read_file"]
    human = foehn("tools", "--workspace", str(app), server=server, state=state)
    assert "investigate" in human.stdout
    assert "(offered in the turns a model runs" in human.stdout
