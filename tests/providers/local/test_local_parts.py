"""The embedded model's parts that need no process: the step schema, the fixed prompt's
examples, the streamed answer, the saved prompt states."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.providers.local.answer import AnswerStream
from foehn_lsp.providers.local.engine import threads
from foehn_lsp.providers.local.prompt import (
    conversation,
    copies_tool_output_or_prompt,
    fixed_messages,
)
from foehn_lsp.providers.local.schema import constraining, inline_refs, step_schema
from foehn_lsp.providers.local.seen import (
    MAX_CHOICES,
    definitions,
    old_text_choices,
    seen_files,
)
from foehn_lsp.providers.local.states import MAX_STATES, PromptStates, StateKey
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools import ToolRegistry
from providers.local.local_fakes import example_calls

# The step schema ------------------------------------------------------------------------


def test_step_schema_admits_exactly_a_tool_call_or_an_answer(registry: ToolRegistry) -> None:
    schema = step_schema(registry.definitions())
    choices = schema["anyOf"]
    assert choices[-1]["required"] == ["answer"]
    assert {c["properties"]["tool"]["const"] for c in choices[:-1]} == {t.name for t in registry}
    assert "$ref" not in json.dumps(schema)
    assert step_schema(registry.definitions(), tools_only=True)["anyOf"] == choices[:-1]
    assert step_schema([]) == step_schema(registry.definitions(), answer_only=True)


def test_each_first_party_tool_keeps_its_arguments_shape(registry: ToolRegistry) -> None:
    for tool in registry.definitions():
        arguments = constraining(inline_refs(tool.parameters))
        assert set(arguments.get("properties", {})) == set(tool.parameters.get("properties", {}))
        assert arguments.get("required", []) == tool.parameters.get("required", [])


def test_what_the_grammar_compiler_cannot_take_is_dropped_not_sent() -> None:
    """A server's tool with a remote reference or a regex made every request fail (400)."""
    exotic = ToolDefinition(
        name="mcp__db__query",
        description="Query.",
        parameters={
            "type": "object",
            "properties": {
                "sql": {"type": "string", "pattern": "^(?=SELECT)", "format": "sql"},
                "where": {"$ref": "https://example.com/where.json"},
                "limit": {"oneOf": [{"type": "integer"}, {"type": "null"}]},
                "missing": {"$ref": "#/$defs/Nowhere"},
            },
            "required": ["sql"],
            "allOf": [{"required": ["limit"]}],
        },
    )
    arguments = step_schema([exotic])["anyOf"][0]["properties"]["arguments"]
    assert arguments == {
        "type": "object",
        "properties": {
            "sql": {"type": "string"},
            "where": {},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "missing": {},
        },
        "required": ["sql"],
    }


# The fixed prompt's examples ------------------------------------------------------------


def test_an_example_is_left_out_when_the_catalogue_lacks_one_of_its_tools(
    registry: ToolRegistry,
) -> None:
    """The fixed prompt never shows a call of a tool the model is not offered."""
    every = registry.definitions()

    def calls(tools: list[ToolDefinition]) -> list[str]:
        return example_calls(fixed_messages(tools, 1000))

    assert {"scan", "search", "read_file", "edit_file", "run_tests"} <= set(calls(every))
    for missing in ("search", "read_file", "run_tests"):
        shown = calls([t for t in every if t.name != missing])
        assert missing not in shown
        assert "scan" in shown
    assert calls([]) == []


def test_a_failed_result_says_whether_its_program_ran() -> None:
    """A test run that ran and failed is not said to have done nothing: the model undid an
    edit the run had just tested."""

    def label(name: str, content: str) -> str:
        result = ToolResultMessage(call_id="c", name=name, content=content, is_error=True)
        [said] = conversation([result], 1000)
        return said["content"].split("\n", 1)[0]

    ran_tests = "$ python -m pytest -- tests/test_a.py\n(in .; exit 1; 0.3 s)\n1 failed"
    assert label("run_tests", ran_tests) == (
        "Result of run_tests (FAILED: the tests ran and did not all pass; do what it says):"
    )
    assert label("run_command", "$ python -c 1/0\n(in .; exit 1; 0.1 s)") == (
        "Result of run_command (FAILED: the program ran and failed; do what it says):"
    )
    denied = "run_tests was not run: the person denied this call"
    for name, content in [("run_tests", denied), ("edit_file", "no change was made to a.py")]:
        assert (
            label(name, content) == f"Result of {name} (FAILED: it did nothing; do what it says):"
        )
    passed = ToolResultMessage(call_id="c", name="run_tests", content="1 passed")
    assert conversation([passed], 1000)[0]["content"].startswith("Result of run_tests:\n")


# The streamed answer --------------------------------------------------------------------


def _stream(raw: str, size: int, said: str = "") -> tuple[AnswerStream, list[str]]:
    out: list[str] = []
    stream = AnswerStream(out.append, lambda text: copies_tool_output_or_prompt(text, said))
    for i in range(0, len(raw), size):
        if stream.feed(raw[i : i + size]):
            break
    stream.finish()
    return stream, out


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_escapes_split_anywhere_decode_exactly(size: int) -> None:
    text = 'Line one says "hi"\\ there\n\ttab, é, 😀 and a long tail of words to pass the hold.'
    stream, out = _stream(json.dumps({"answer": text}), size)
    assert stream.kind == "answer"
    assert "".join(out) == stream.text == text


def test_whole_sentences_go_out_before_the_end_and_never_a_part_of_one() -> None:
    text = "The project depends on click. It is declared in pyproject.toml as click>=8."
    out: list[str] = []
    stream = AnswerStream(out.append, copies_tool_output_or_prompt)
    raw = json.dumps({"answer": text})
    stream.feed(raw[: len(raw) - 5])
    assert "".join(out) == "The project depends on click."
    stream.feed(raw[len(raw) - 5 :])
    stream.finish()
    assert "".join(out) == text


def test_a_copy_found_inside_a_sentence_leaves_nothing_of_that_sentence_shown() -> None:
    """Seen three times as a whole final answer: "I already called read_" (the answer copied a
    guard's note, and the part released before the copy was found stood as the answer)."""
    said = "I read the file. I already called read_file with those arguments; its result is above."
    stream, out = _stream(json.dumps({"answer": said}), 3)
    assert stream.copied
    assert "".join(out) == stream.released == "I read the file."
    stream, out = _stream(json.dumps({"answer": said.split(". ", 1)[1]}), 3)
    assert stream.copied
    assert out == []


def test_a_line_that_becomes_a_file_header_never_goes_out() -> None:
    out: list[str] = []
    stream = AnswerStream(out.append, copies_tool_output_or_prompt)
    stream.feed('{"answer": "src/inventory/store.py: lines 1-9 of 9\\n     1\\tclass Store')
    assert stream.copied
    assert out == []


def test_a_tool_call_releases_nothing() -> None:
    stream, out = _stream(json.dumps({"tool": "scan", "arguments": {"answer": "x" * 90}}), 5)
    assert stream.kind == "tool"
    assert out == []


def test_without_a_sink_nothing_goes_out_and_a_copy_is_still_found() -> None:
    stream = AnswerStream(None, copies_tool_output_or_prompt)
    stream.feed(json.dumps({"answer": "fine words " * 10}))
    stream.finish()
    assert stream.released == ""
    assert not stream.copied
    copy = AnswerStream(None, copies_tool_output_or_prompt)
    assert copy.feed(json.dumps({"answer": "a.txt: lines 1-2 of 2 and then more"}))
    assert copy.copied


# Saved prompt states --------------------------------------------------------------------


def _key(**changes: object) -> StateKey:
    fields: dict[str, object] = {
        "model_sha256": "a" * 64,
        "runtime": "1.0",
        "prompt_sha256": "b" * 64,
        "window": 16384,
        "batch": 256,
        **changes,
    }
    return StateKey(**fields)  # type: ignore[arg-type]


def _save(states: PromptStates, key: StateKey, data: bytes = b"state") -> None:
    partial = states.partial_name(key)
    (states.folder / partial).write_bytes(data)
    states.publish(key, partial, tokens=3)


def test_a_state_is_found_only_with_every_field_of_its_key(tmp_path: Path) -> None:
    states = PromptStates(tmp_path)
    _save(states, _key())
    assert states.find(_key()) == f"{_key().digest}.bin"
    for change in (
        {"model_sha256": "c" * 64},
        {"runtime": "1.1"},
        {"prompt_sha256": "d" * 64},
        {"window": 8192},
        {"batch": 512},
    ):
        assert states.find(_key(**change)) is None
    assert not list(tmp_path.glob("partial-*"))


def test_a_record_that_names_another_key_is_refused(tmp_path: Path) -> None:
    """A record copied over another key's name (or a digest collision) is not trusted."""
    states = PromptStates(tmp_path)
    _save(states, _key())
    other = _key(model_sha256="e" * 64)
    for suffix in (".bin", ".json"):
        (tmp_path / f"{_key().digest}{suffix}").rename(tmp_path / f"{other.digest}{suffix}")
    assert states.find(other) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "record"])
def test_a_damaged_state_is_refused_and_deleted(tmp_path: Path, damage: str) -> None:
    states = PromptStates(tmp_path)
    _save(states, _key(), b"0123456789")
    state, record = tmp_path / f"{_key().digest}.bin", tmp_path / f"{_key().digest}.json"
    if damage == "truncate":
        state.write_bytes(b"01234")
    elif damage == "flip":
        state.write_bytes(b"0123456788")
    else:
        record.write_text("{not json")
    assert states.find(_key()) is None
    assert not state.exists()
    assert not record.exists()


def test_the_folder_keeps_the_most_recently_used_states(tmp_path: Path) -> None:
    states = PromptStates(tmp_path)
    keys = [_key(prompt_sha256=f"{n:064}") for n in range(MAX_STATES + 2)]
    for number, key in enumerate(keys):
        _save(states, key)
        past = time.time() - 1000 + number
        os.utime(tmp_path / f"{key.digest}.json", (past, past))
    assert states.find(keys[0]) is None
    assert states.find(keys[1]) is None
    assert all(states.find(k) for k in keys[2:])
    assert len(list(tmp_path.glob("*.bin"))) == MAX_STATES


def test_leftovers_of_a_process_that_died_are_removed(tmp_path: Path) -> None:
    states = PromptStates(tmp_path)
    old = time.time() - 7200
    for name in ("partial-1-x.bin", "orphan.bin"):
        (tmp_path / name).write_bytes(b"x")
        os.utime(tmp_path / name, (old, old))
    (tmp_path / "partial-2-fresh.bin").write_bytes(b"x")
    _save(states, _key())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"{_key().digest}.bin", f"{_key().digest}.json", "partial-2-fresh.bin"]
    )


# What the conversation has shown of each file --------------------------------------------


def _read(call_id: str, path: str, body: str, **arguments: object) -> list[Message]:
    call = ToolCall(id=call_id, name="read_file", arguments=json.dumps({"path": path, **arguments}))
    return [
        AssistantMessage(tool_calls=(call,)),
        ToolResultMessage(call_id=call_id, name="read_file", content=body),
    ]


def _numbered(path: str, lines: list[str], first: int = 1, total: int | None = None) -> str:
    last = first + len(lines) - 1
    shown = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, first))
    return f"{path}: lines {first}-{last} of {total or last}\n{shown}"


def test_a_file_read_then_edited_is_known_as_it_is_now(registry: ToolRegistry) -> None:
    source = ["def greeting(name):", '    return f"Helo, {name}!"']
    edit = {"path": "greet.py", "edits": [{"old_text": "Helo", "new_text": "Hello"}]}
    messages: list[Message] = [
        UserMessage(content="fix it"),
        *_read("c1", "greet.py", _numbered("greet.py", source)),
        AssistantMessage(
            tool_calls=(ToolCall(id="c2", name="edit_file", arguments=json.dumps(edit)),)
        ),
        ToolResultMessage(call_id="c2", name="edit_file", content="edit greet.py (1 block)"),
    ]
    assert seen_files(messages, registry.definitions()) == {
        "greet.py": ['def greeting(name):\n    return f"Hello, {name}!"']
    }


def test_failed_reads_cut_lines_and_writes_are_told_apart(registry: ToolRegistry) -> None:
    long = "x" * 50 + " … (200 more characters)"
    write = ToolCall(
        id="c3", name="write_file", arguments='{"path": "new.txt", "content": "a\\nb"}'
    )
    failed = ToolCall(id="c4", name="read_file", arguments='{"path": "gone.txt"}')
    messages: list[Message] = [
        *_read("c1", "a.py", _numbered("a.py", ["one", long, "three"], first=10, total=40)),
        AssistantMessage(tool_calls=(write,)),
        ToolResultMessage(call_id="c3", name="write_file", content="write new.txt"),
        AssistantMessage(tool_calls=(failed,)),
        ToolResultMessage(call_id="c4", name="read_file", is_error=True, content="not found"),
    ]
    assert seen_files(messages, registry.definitions()) == {
        "a.py": ["one", "three"],
        "new.txt": ["a\nb"],
    }


def test_lines_shown_again_are_known_once(registry: ToolRegistry) -> None:
    """Seen on more-itertools: a failing run showed ``totient`` and a read then showed the lines
    around it. Kept twice, each of its lines counted as found twice and none was offered as
    ``old_text``; the model read on instead of fixing the line. A run within another is the
    same lines; lines found twice in one read still count twice."""
    body = ["def totient(n):", "    for prime in set(factor(n)):", "        n -= prime"]
    around = ["import math", "", *body, "    return n", "", "x = 1", "x = 1"]
    messages: list[Message] = [
        *_read("c1", "m.py", _numbered("m.py", body, first=3, total=90)),
        *_read("c2", "m.py", _numbered("m.py", around, first=1, total=90)),
        *_read("c3", "m.py", _numbered("m.py", body[1:], first=4, total=90)),
        *_read("c4", "m.py", _numbered("m.py", ["x = 1"], first=8, total=90)),
    ]
    seen = seen_files(messages, registry.definitions())
    assert seen == {"m.py": ["\n".join(around)]}
    choices = old_text_choices(seen["m.py"])
    assert "        n -= prime" in choices
    assert "x = 1" not in choices
    assert seen_files(
        [
            *_read("c1", "m.py", _numbered("m.py", ["    for prime in set(factor(n)):"], 4)),
            *_read("c2", "m.py", _numbered("m.py", ["    for prime"], 4)),
        ],
        registry.definitions(),
    ) == {"m.py": ["    for prime in set(factor(n)):", "    for prime"]}, "whole lines only"


def test_old_text_choices_are_spans_found_once() -> None:
    runs = ["x = 1\n\nx = 1\ny = 2", "z = 3"]
    choices = old_text_choices(runs)
    assert "x = 1" not in choices  # twice: an edit naming it would be ambiguous
    assert "" not in choices
    assert "\n" not in choices
    assert {"y = 2", "z = 3", "x = 1\ny = 2", "\nx = 1\ny = 2"} <= set(choices)
    assert len(old_text_choices(["\n".join(f"line {n}" for n in range(1000))])) == MAX_CHOICES


def test_whole_definitions_come_first_among_the_choices() -> None:
    """A function is offered whole (decorators, a header over two lines, its body, blank lines
    inside), a method inside a class too, and a brace-closed function with its brace."""
    source = (
        "import os\n\n\n@cache\ndef f(a,\n      b):\n    if a:\n\n        return b\n"
        "    return a\n\n\nclass C:\n    def m(self):\n        return 1\n\n"
        "function g() {\n  return 1;\n}\nx = 1"
    )
    function = "@cache\ndef f(a,\n      b):\n    if a:\n\n        return b\n    return a"
    method = "    def m(self):\n        return 1"
    brace = "function g() {\n  return 1;\n}"
    assert definitions(source) == [function, "class C:\n" + method, method, brace]
    assert old_text_choices([source])[:4] == definitions(source)
    assert "x = 1" in old_text_choices([source])
    assert definitions("def f():\n    pass\ndef f():\n    pass") == ["def f():\n    pass"] * 2
    assert "def f():\n    pass" not in old_text_choices(["def f():\n    pass\ndef f():\n    pass"])


def test_a_short_definition_is_offered_whole_never_from_its_header() -> None:
    """Offered ``def mean(values):`` alone, the model wrote the header and the new body on one
    line; a short definition is changed as a whole or inside its body."""
    shown = (
        "def mean(values):\n    return sum(values) / len(values)\n\n\n"
        "def spread(values):\n    return max(values) - min(values)"
    )
    choices = old_text_choices([shown])
    assert choices[:2] == [
        "def mean(values):\n    return sum(values) / len(values)",
        "def spread(values):\n    return max(values) - min(values)",
    ]
    assert not [c for c in choices[2:] if c.startswith("def ")]
    assert "    return sum(values) / len(values)" in choices
    long = "def long(values):\n" + "".join(f"    x{n} = {n}\n" for n in range(20)) + "    return x1"
    assert "def long(values):" in old_text_choices([long])


def test_an_edit_of_a_file_read_may_only_name_its_lines(registry: ToolRegistry) -> None:
    schema = step_schema(registry.definitions(), files={"a.py": ["x = 1", "y = 2"], "b.py": []})
    [edit] = [
        c for c in schema["anyOf"] if c["properties"].get("tool", {}).get("const") == "edit_file"
    ]
    [branch] = edit["properties"]["arguments"]["anyOf"]
    assert branch["properties"]["path"] == {"const": "a.py"}
    item = branch["properties"]["edits"]["items"]["properties"]
    assert item["old_text"] == {"enum": ["x = 1", "y = 2"]}
    assert item["new_text"] == {"type": "string"}

    def without_edit(choices: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [c for c in choices if c["properties"].get("tool", {}).get("const") != "edit_file"]

    plain = step_schema(registry.definitions())
    assert without_edit(schema["anyOf"]) == without_edit(plain["anyOf"])
    nothing_read = step_schema(registry.definitions(), files={})
    assert nothing_read["anyOf"] == without_edit(plain["anyOf"])


# Threads -------------------------------------------------------------------------------


def test_threads_follow_the_cores_busy_now_not_a_minute_ago() -> None:
    """With every core busy for under a second (the load average has hardly moved), the worker
    gets one thread."""
    cores = os.cpu_count() or 1
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        time.sleep(0.3)
        assert threads(sample=0.5) == 1
    finally:
        for process in busy:
            process.kill()
            process.wait()
