"""What a call did to the workspace, read from its result: which programs could have written,
and what a result showed, less how long it took."""

from __future__ import annotations

import json

import pytest

from foehn_lsp.providers.effects import may_have_changed, output_of
from foehn_lsp.providers.messages import ToolCall, ToolResultMessage


def program(summary: str, name: str = "run_command", rest: str = "a.py\n") -> ToolResultMessage:
    return ToolResultMessage(call_id="c1", name=name, content=f"$ ls\n{summary}\n{rest}")


def writes(name: str) -> bool:
    return name == "edit_file"


@pytest.mark.parametrize(
    ("sandbox", "changed"), [("read-only", False), ("workspace-write", True), ("full", True)]
)
def test_only_a_program_whose_sandbox_let_it_write_may_have_changed_files(
    sandbox: str, changed: bool
) -> None:
    result = program(f"(in .; exit 0; 0.0 s; sandbox {sandbox})")
    assert may_have_changed(result, None, writes) is changed
    ls = ToolCall(id="c1", name="run_command", arguments='{"command": ["ls"]}')
    assert may_have_changed(result, ls, writes) is changed


@pytest.mark.parametrize(
    "command",
    [["python", "-m", "pytest", "--", "tests/test_a.py::test_b"], ["pytest"], "make test"],
)
def test_a_test_runner_reads_like_run_tests_whatever_its_sandbox(command: object) -> None:
    """Seen on more-itertools: the embedded model ran ``python -m pytest`` after each refused
    edit, and each run made the same refused edit new again until its 300 s ran out. What a
    test run writes (caches, reports) is not the project's code."""
    result = program("(in .; exit 1; 0.4 s; sandbox workspace-write)", rest="1 failed\n")
    call = ToolCall(id="c1", name="run_command", arguments=json.dumps({"command": command}))
    assert not may_have_changed(result, call, writes)


def test_a_program_whose_output_says_read_only_is_not_taken_at_its_word() -> None:
    """Only the summary line Foehn writes counts, not a line the program printed."""
    result = program(
        "(in .; exit 0; 0.0 s; sandbox workspace-write)",
        rest="(in .; exit 0; 0.0 s; sandbox read-only)\n",
    )
    assert may_have_changed(result, None, writes)


def test_the_same_run_shows_the_same_whatever_it_took() -> None:
    """Seen in a full run of the suite on 2 busy cores: ``ls`` took 0.0 s, then 0.1 s, and the
    third identical read-only run was not a repeat."""
    fast = program("(in .; exit 0; 0.0 s; sandbox read-only)")
    slow = program("(in .; exit 0; 0.1 s; sandbox read-only)")
    stopped = program("(in .; stopped: timed out; 30.0 s)")
    assert output_of(fast) == output_of(slow) == "$ ls\n(in .; exit 0; sandbox read-only)\na.py\n"
    assert output_of(stopped) == "$ ls\n(in .; stopped: timed out)\na.py\n"
    other = program("(in .; exit 1; 0.0 s; sandbox read-only)")
    assert output_of(other) != output_of(fast)
    said = program("(in .; exit 0; 0.0 s)", rest="took 0.4 s; done\n")
    assert output_of(said).endswith("took 0.4 s; done\n"), "only the summary line"
    read = ToolResultMessage(call_id="c2", name="read_file", content="x\n(in .; 0.1 s)")
    assert output_of(read) == read.content
