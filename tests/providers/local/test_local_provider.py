"""The provider's logic over a stand-in worker: what it sends, and the host guards."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp.agent.editor_context import editor_context
from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.investigate import investigate_tool, with_investigate
from foehn_lsp.agent.loop import iterations_note, tokens_note
from foehn_lsp.config import Settings
from foehn_lsp.errors import ProviderProtocolError
from foehn_lsp.lsp.language_tools import definitions
from foehn_lsp.providers.local.guards import (
    announces,
    canonical,
    doubles,
    failed_after_changes,
    failing_tests,
    must_act,
    passed_after_fix,
)
from foehn_lsp.providers.local.prompt import copies_tool_output_or_prompt
from foehn_lsp.providers.local.provider import LEFT_OUT, LocalProvider, repeating
from foehn_lsp.providers.local.seen import old_text_choices, seen_files
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools import ToolContext, ToolRegistry, ToolResult
from providers.local.local_fakes import (
    MakeProvider,
    answer_chunks,
    example_calls,
    exchange,
    requests,
)


def _chat_bodies(states: Path) -> list[dict[str, Any]]:
    """Requests that were steps (not the fixed prompt's one-token warm-up)."""
    return [
        r["body"]
        for r in requests(states)
        if r["path"] == "/v1/chat/completions" and r["body"].get("max_tokens") != 1
    ]


def _call(step: dict[str, object]) -> dict[str, object]:
    return {"chunks": [json.dumps(step)]}


def _offered(body: Mapping[str, Any]) -> set[str]:
    """The tools a step request's schema offers."""
    schema = body["response_format"]["json_schema"]["schema"]
    return {c["properties"]["tool"]["const"] for c in schema["anyOf"] if "tool" in c["properties"]}


def test_a_call_that_only_adds_defaults_counts_as_the_same_call(registry: ToolRegistry) -> None:
    tools = registry.definitions()
    bare = canonical("scan", '{"pattern": "*.py"}', tools)
    assert bare == canonical("scan", '{"pattern": "*.py", "recursive": true, "path": "."}', tools)
    assert bare != canonical("scan", '{"pattern": "*.md"}', tools)


def test_copied_tool_output_prompt_text_and_examples_are_recognised() -> None:
    assert copies_tool_output_or_prompt("CHANGELOG.md: lines 1-1 of 4")
    assert copies_tool_output_or_prompt("3 entries under .:\na.py")
    assert copies_tool_output_or_prompt("     1\tport = 8080")
    # Seen on inflection: a read's header and lines re-typed after words of its own.
    assert copies_tool_output_or_prompt(
        "The text of that function is: inflection/__init__.py: lines 183-199 of 424\n"
        "   183 def humanize(word: str) -> str:"
    )
    assert copies_tool_output_or_prompt("It is:\n   183 def humanize(word: str) -> str:")
    assert not copies_tool_output_or_prompt("The steps:\n1. read it\n2. fix it")
    assert copies_tool_output_or_prompt("Reply with the next tool call, or with the answer")
    assert copies_tool_output_or_prompt("I added the line lint at the end of tasks.txt.")
    assert copies_tool_output_or_prompt("I have 3 tool iterations left, so I will stop here.")
    # The loop's own budget notes, whatever their wording becomes, are recognised.
    assert copies_tool_output_or_prompt(iterations_note(1))
    assert copies_tool_output_or_prompt(tokens_note(2_000))
    assert not copies_tool_output_or_prompt("I added lint to tasks.txt.", "Add lint to tasks.txt")
    assert not copies_tool_output_or_prompt("config/settings.toml sets port 8080.")
    assert not copies_tool_output_or_prompt("42")
    # An example's answer, its names changed ("... I added that check and all 4 tests pass"),
    # unless the conversation says those words itself.
    copied = "last_n compared n with len; I fixed that line and test_mid passes."
    assert copies_tool_output_or_prompt(copied)
    assert not copies_tool_output_or_prompt(copied, "Say: I fixed that line and test_mid passes")
    assert not copies_tool_output_or_prompt("I added the line eggs at the end of notes.txt.")
    # A guard's note as the answer (bench: mt-version).
    assert copies_tool_output_or_prompt(
        "scan to find files, run_tests with no paths to run all the tests."
    )
    # An example's request answered instead of the person's (bench: ns-mi-roundrobin).
    made_up = "The files in the docs folder are README.md and CONTRIBUTING.md."
    assert copies_tool_output_or_prompt(made_up, "tests/test_recipes.py fails. Fix it.")
    assert not copies_tool_output_or_prompt(made_up, "Which files are in the docs folder?")
    assert copies_tool_output_or_prompt("title_case returns 'An Owl'.")
    assert copies_tool_output_or_prompt(
        "The fix is elsewhere, so I read_symbol the function the traceback names."
    )
    assert not copies_tool_output_or_prompt("chunked returns [[1, 2], [3]].")
    assert copies_tool_output_or_prompt(
        "The file more_itertools/recipes.py has 1471 lines, more than this model's window takes "
        "at once. To read more: read_file with around= a name or line number, or with offset "
        "and limit for a range (offset=152 limit=40); read_symbol shows one definition."
    )
    assert copies_tool_output_or_prompt(
        "The file inflection/__init__.py has no line, definition or text 'bytes 334'. The "
        "search found text in every file."
    )
    assert copies_tool_output_or_prompt(
        "The file has been modified since the last run, so it would show the same. Next: "
        "edit_file to change what it shows; or answer with what you found."
    )
    assert copies_tool_output_or_prompt(
        "The last step was cut off; it ran past 512 tokens. I ran the test again."
    )


def test_every_step_and_turn_starts_with_the_same_prefix(registry: ToolRegistry) -> None:
    """The prompt cache can only help if each request extends the last one's prefix."""
    tools = registry.definitions()
    local = LocalProvider(model_path=Path("unused.gguf"))
    first = local.chat_messages([UserMessage(content="list files")], tools)
    call = ToolCall(id="c1", name="scan", arguments="{}")
    second = local.chat_messages(
        [
            UserMessage(content="list files"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id="c1", name="scan", content="1 entries under .:\na.py"),
        ],
        tools,
    )
    wrap_up = local.chat_messages([UserMessage(content="list files")], [])
    assert second[: len(first)] == first
    assert wrap_up == first
    fresh = LocalProvider(model_path=Path("unused.gguf"))
    assert fresh.fixed_prompt(tools) == local.fixed_prompt(tools)
    assert fresh.chat_messages([UserMessage(content="another turn")], tools)[:-1] == first[:-1]


def test_the_examples_edit_code_and_then_run_the_tests(registry: ToolRegistry) -> None:
    fixed = LocalProvider(model_path=Path("unused.gguf")).fixed_prompt(registry.definitions())
    calls = example_calls(fixed.messages)
    edit = calls.index("edit_file", calls.index("run_tests"))
    assert "run_tests" in calls[edit:]


def test_the_examples_run_code_to_tell_what_it_returns(registry: ToolRegistry) -> None:
    """Asked what a call returns, the model ran a test it made up
    (tests/test_more_itertools.py::test_chunked, after the example's tests/test_bounds.py) and
    read files that do not exist; the example runs the call instead."""
    fixed = LocalProvider(model_path=Path("unused.gguf")).fixed_prompt(registry.definitions())
    steps = [json.loads(m["content"]) for m in fixed.messages if m["role"] == "assistant"]
    runs = [s["arguments"]["command"] for s in steps if s.get("tool") == "run_command"]
    assert [command[:2] for command in runs] == [["python", "-c"]]
    assert "print(repr(" in runs[0][2]
    # Asked for a changelog line on the last commit, it never asked git what that was.
    logs = [s["arguments"]["args"] for s in steps if s.get("tool") == "git"]
    assert ["log", "-1", "--stat"] in logs


def test_the_examples_read_a_named_function_before_changing_it(registry: ToolRegistry) -> None:
    """Asked to add a keyword argument to a named function, the model searched for the
    argument's name and read the file around it until its time ran out."""
    fixed = LocalProvider(model_path=Path("unused.gguf")).fixed_prompt(registry.definitions())
    calls = example_calls(fixed.messages)
    assert calls[calls.index("read_symbol") + 1] == "edit_file"


def _with_investigate(registry: ToolRegistry) -> list[ToolDefinition]:
    """The catalogue ``foehn run`` offers: the tools, then ``investigate``."""
    tool = investigate_tool(
        provider=LocalProvider(model_path=Path("unused.gguf")),
        settings=Settings(),
        tools=registry,
        calls=_no_sub_runs,
    )
    return with_investigate(registry, tool).definitions()


def _no_sub_runs(tools: ToolRegistry) -> TurnExecutor:
    raise AssertionError("these tests read the catalogue; none calls investigate")


def _named(messages: Sequence[Mapping[str, str]]) -> set[str]:
    """The left-out tools ``messages`` name as a tool: listed with their arguments, or called."""
    return {
        name
        for name in LEFT_OUT
        for m in messages
        if f"- {name}(" in m["content"] or json.dumps({"tool": name})[:-1] in m["content"]
    }


async def test_the_tools_it_misuses_are_in_neither_the_prompt_nor_the_schema(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """todo, outline and investigate are left out even when the catalogue offers them; the
    rest of the catalogue (read_symbol too) is offered, and the examples call only those."""
    catalogue = _with_investigate(registry)
    names = {t.name for t in catalogue}
    assert names >= LEFT_OUT
    kept = names - LEFT_OUT
    assert "read_symbol" in kept
    provider = fake_provider(_call({"tool": "scan", "arguments": {"pattern": "*.py"}}))
    fixed = provider.fixed_prompt(catalogue)
    assert _named(fixed.messages) == set()
    assert all(f"- {name}(" in fixed.messages[0]["content"] for name in kept)
    called = set(example_calls(fixed.messages))
    assert called
    assert called <= kept
    assert provider.fixed_prompt(registry.definitions()) == fixed  # one prompt, one saved state

    response = await provider.complete([UserMessage(content="list the Python files")], catalogue)
    assert [c.name for c in response.message.tool_calls] == ["scan"]
    [body] = _chat_bodies(tmp_path / "states")
    offered = _offered(body)
    # An edit only once a file has been read, a rename, a deletion, a move or a new folder only
    # when the person asks for one.
    assert offered == kept - {"edit_file", "rename", "delete_path", "move_path", "make_directory"}
    assert _named(body["messages"]) == set()


async def test_a_catalogue_of_only_left_out_tools_still_gets_an_answer(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    only = [t for t in _with_investigate(registry) if t.name in LEFT_OUT]
    assert {t.name for t in only} == LEFT_OUT
    provider = fake_provider({"chunks": answer_chunks("Hello! How can I help?")})
    response = await provider.complete([UserMessage(content="Say hello")], only)
    assert response.message.content == "Hello! How can I help?"
    assert not response.message.tool_calls
    [body] = _chat_bodies(tmp_path / "states")
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer"]
    assert _named(body["messages"]) == set()


def test_a_long_tool_result_is_cut_to_what_the_window_allows(registry: ToolRegistry) -> None:
    local = LocalProvider(model_path=Path("unused.gguf"), window=8192)
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "big.py"}')
    chat = local.chat_messages(
        [
            UserMessage(content="read big.py"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(call_id="c1", name="read_file", content="x" * 50_000),
        ],
        registry.definitions(),
    )
    assert 4096 <= len(chat[-1]["content"]) < 4400
    assert "cut: read less at a time" in chat[-1]["content"]


async def test_after_a_failed_change_the_next_step_must_act(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """A small model answered 'I added the line' after write_file was refused; now the step
    after a failed change admits only tool calls (a denial by the person does not count)."""
    provider = fake_provider(
        _call({"tool": "read_file", "arguments": {"path": "notes.txt"}}),
        {"chunks": answer_chunks("Not allowed.")},
    )
    call = ToolCall(id="c1", name="write_file", arguments='{"path": "notes.txt", "content": "x"}')
    history: list[Message] = [
        UserMessage(content="Add x to notes.txt"),
        AssistantMessage(tool_calls=(call,)),
    ]
    refused = ToolResultMessage(
        call_id="c1", name="write_file", is_error=True, content="read_file notes.txt first"
    )
    denied = ToolResultMessage(
        call_id="c1", name="write_file", is_error=True, content="the person denied this call"
    )
    await provider.complete([*history, refused], registry.definitions())
    await provider.complete([*history, denied], registry.definitions())
    first, second = (
        b["response_format"]["json_schema"]["schema"] for b in _chat_bodies(tmp_path / "states")
    )
    assert all("tool" in choice["properties"] for choice in first["anyOf"])
    assert any("answer" in choice["properties"] for choice in second["anyOf"])


async def plan_nothing(arguments: object, ctx: ToolContext) -> ToolResult:
    return ToolResult.failure("the editor found no symbol")


def test_a_failed_rename_through_the_editor_is_a_failed_change(registry: ToolRegistry) -> None:
    """rename_symbol (the editor's rename, in VS Code) changes files like edit_file: after it
    fails, the next step must act too."""
    call = ToolCall(id="c1", name="rename_symbol", arguments='{"path": "a.ts"}')
    failed = ToolResultMessage(
        call_id="c1", name="rename_symbol", is_error=True, content="the editor found no symbol"
    )
    history: list[Message] = [
        UserMessage(content="Rename helper"),
        AssistantMessage(tool_calls=(call,)),
        failed,
    ]
    rename = dataclasses.replace(definitions()["rename_symbol"], plan=plan_nothing)
    assert must_act(history, ToolRegistry([*registry, rename]).definitions())


async def test_a_note_from_foehn_after_a_failed_change_does_not_lift_the_rule(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """The loop's request to act on a failure (or a budget warning) comes after the failed
    result; the step after it still admits only tool calls."""
    provider = fake_provider(_call({"tool": "read_file", "arguments": {"path": "notes.txt"}}))
    failed = ToolCall(id="c1", name="edit_file", arguments='{"path": "notes.txt", "edits": []}')
    history: list[Message] = [
        UserMessage(content="Add x to notes.txt"),
        AssistantMessage(tool_calls=(failed,)),
        ToolResultMessage(
            call_id="c1", name="edit_file", is_error=True, content="block 1: old_text not found"
        ),
        UserMessage(content="[Foehn] Your last change (edit_file) failed and changed nothing"),
    ]
    await provider.complete(history, registry.definitions())
    (schema,) = (
        b["response_format"]["json_schema"]["schema"] for b in _chat_bodies(tmp_path / "states")
    )
    assert all("tool" in choice["properties"] for choice in schema["anyOf"])


async def test_a_repeated_call_after_a_failed_change_is_re_asked_without_an_answer(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """The repeated-call guard re-asks; after a failed change the re-ask still may not answer."""
    edit = {"path": "a.py", "edits": [{"old_text": "x", "new_text": "y"}]}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": edit}),
        _call({"tool": "read_file", "arguments": {"path": "a.py"}}),
    )
    call = ToolCall(id="c1", name="edit_file", arguments=json.dumps(edit))
    response = await provider.complete(
        [
            UserMessage(content="change x to y in a.py"),
            AssistantMessage(tool_calls=(call,)),
            ToolResultMessage(
                call_id="c1", name="edit_file", is_error=True, content="old_text not found"
            ),
        ],
        registry.definitions(),
    )
    [made] = response.message.tool_calls
    assert made.name == "read_file"
    again = _chat_bodies(tmp_path / "states")[-1]
    schema = again["response_format"]["json_schema"]["schema"]
    assert all("tool" in choice["properties"] for choice in schema["anyOf"])
    told = again["messages"][-1]["content"]
    assert told.startswith("[Foehn] edit_file with these arguments ran already")
    assert "Next: read_file the file again and copy old_text from what it shows" in told


async def test_a_step_that_writes_one_line_again_and_again_is_stopped_and_asked_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on a one-line edit of a JavaScript file: the same line of new_text until the token
    cap, 135 s on 2 cores. Each reply here is a valid call: only the guard stops it. Stopped, the
    step is asked once more with a note; stopped again, the turn fails saying why."""
    line = "  return text.toLowerCase().replace(/TODO/g, 'NOTE');\n"
    edit = {"old_text": "// TODO", "new_text": line * 30}
    step = json.dumps({"tool": "edit_file", "arguments": {"path": "a.js", "edits": [edit]}})
    runaway = {"chunks": [step[i : i + 8] for i in range(0, len(step), 8)]}
    fixed: dict[str, Any] = {
        "tool": "edit_file",
        "arguments": {"path": "a.js", "edits": [{"old_text": "// TODO", "new_text": "// NOTE"}]},
    }
    task = [UserMessage(content="Replace TODO in a.js")]
    provider = fake_provider(runaway, _call(fixed))
    response = await provider.complete(task, registry.definitions())
    assert [json.loads(c.arguments) for c in response.message.tool_calls] == [fixed["arguments"]]
    asked_again = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert "began writing the same line again and again" in asked_again
    provider = fake_provider(runaway, runaway)
    with pytest.raises(ProviderProtocolError, match="the same line again and again"):
        await provider.complete(task, registry.definitions())
    assert repeating(json.dumps({"new_text": "{\n" + line * 4 + "}"}))
    assert not repeating(json.dumps({"new_text": "{\n" + line * 3 + "}"}))
    assert not repeating(json.dumps({"new_text": "    pass\n" * 8}))


async def test_a_call_naming_what_only_the_examples_have_is_asked_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Told "The tests are slow. Make them faster.", the model ran
    tests/test_bounds.py::test_mid, the example's test, in a project without it (then made a
    folder called tests). It is asked once more, told so; the second reply stands."""
    copied: dict[str, object] = {
        "tool": "run_tests",
        "arguments": {"paths": ["tests/test_bounds.py::test_mid"]},
    }
    provider = fake_provider(_call(copied), _call({"tool": "run_tests", "arguments": {}}))
    task = [UserMessage(content="The tests are slow. Make them faster.")]
    response = await provider.complete(task, registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("run_tests", {})
    _, second = _chat_bodies(tmp_path / "states")
    note = second["messages"][-1]["content"]
    assert "test_bounds.py is from the examples, not from this project" in note
    assert "run_tests with no paths" in note
    assert json.loads(second["messages"][-2]["content"]) == copied
    # Named by the person, the same call is theirs to make.
    provider = fake_provider(_call(copied))
    named = [UserMessage(content="Run tests/test_bounds.py::test_mid")]
    response = await provider.complete(named, registry.definitions())
    assert json.loads(response.message.tool_calls[0].arguments) == copied["arguments"]
    assert len(_chat_bodies(tmp_path / "states")) == 3
    provider = fake_provider(_call(copied), _call(copied))
    response = await provider.complete(task, registry.definitions())
    assert json.loads(response.message.tool_calls[0].arguments) == copied["arguments"]


async def test_a_whole_file_written_with_a_small_part_of_it_is_asked_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Asked to add a keyword argument to one function, the model wrote that function alone
    over the module it had read 40 lines of. It is asked once more; the second reply stands."""
    shown = "toolz/itertoolz.py: lines 1-40 of 1058\n" + "\n".join(
        f"{n:>6}\tline{n} = {n}" for n in range(1, 41)
    )
    small = {"path": "toolz/itertoolz.py", "content": "def nth(n, seq, default=None):\n    pass\n"}
    edit = {
        "path": "toolz/itertoolz.py",
        "edits": [{"old_text": "line1 = 1", "new_text": "line1 = 2"}],
    }
    provider = fake_provider(
        _call({"tool": "write_file", "arguments": small}),
        _call({"tool": "edit_file", "arguments": edit}),
    )
    history: list[Message] = [
        UserMessage(content="Add a keyword argument default to nth in toolz/itertoolz.py"),
        *exchange("c1", "read_file", {"path": "toolz/itertoolz.py", "limit": 40}, shown),
    ]
    response = await provider.complete(history, registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("edit_file", edit)
    asked = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert "write_file replaces the whole file" in asked
    # A file written whole with as much as it had, or one never read, is not asked about.
    whole = {"path": "toolz/itertoolz.py", "content": "\n".join(f"x{n} = {n}" for n in range(40))}
    new = {"path": "notes.txt", "content": "one line\n"}
    for arguments in (whole, new):
        provider = fake_provider(_call({"tool": "write_file", "arguments": arguments}))
        response = await provider.complete(history, registry.definitions())
        assert json.loads(response.message.tool_calls[0].arguments) == arguments
    assert len(_chat_bodies(tmp_path / "states")) == 4


def test_the_sessions_know_the_window_the_model_runs_with() -> None:
    from foehn_lsp.agent.context import known_window
    from foehn_lsp.providers.local import MODEL_NAME, WINDOW

    assert known_window(MODEL_NAME) == WINDOW == LocalProvider().window


# The repeated-call guard knows the workspace changed ---------------------------------------

FAILING_RUN = (
    "$ python -m pytest\n(in .; exit 1; 0.4 s)\n1 failed, 2 passed\n1 failing:\n"
    "  tests/test_text.py::test_shout - assert 'hi' == 'HI'\n"
    "shout, which the test calls:\ntext.py: lines 1-2 of 2\n     1\tdef shout(s):\n"
    "     2\t    return s\n"
    "Fix the code above with edit_file, then run_tests with paths "
    '["tests/test_text.py::test_shout"] first.'
)
SHOUT_FAILED = (
    UserMessage(content="Fix the bug behind tests/test_text.py::test_shout"),
    *exchange("c1", "run_tests", {}, FAILING_RUN, failed=True),
)
"""A turn asked to fix ``shout``, after its failing run."""
READ_SHOUT = _call({"tool": "read_symbol", "arguments": {"path": "text.py", "name": "shout"}})


EDIT = {"path": "text.py", "edits": [{"old_text": "return s", "new_text": "return s.upper()"}]}


def test_the_tests_a_failing_run_names_are_read_whole_from_pytests_summary() -> None:
    """Without a digest's line on what to run again, pytest's short summary names them; a
    parametrized test's id may hold spaces (inflection: ``[employee_salary-Employee salary]``)."""
    output = (
        "$ python -m pytest\n(in .; exit 1; 0.4 s)\n"
        "FAILED test_inflection.py::test_humanize[employee_salary-Employee salary] - Asser...\n"
        "FAILED test_inflection.py::test_humanize[author_id-Author]\n"
        "ERROR tests/test_broken.py - ImportError: no module named x\n"
        "========================= 2 failed, 1 error in 0.11s ==========================\n"
    )
    assert failing_tests(output) == [
        "test_inflection.py::test_humanize[employee_salary-Employee salary]",
        "test_inflection.py::test_humanize[author_id-Author]",
    ]


@pytest.mark.parametrize(
    ("task", "paths"),
    [
        ("tests/test_units.py fails. Fix the code, not the tests.", ["tests/test_units.py"]),
        (
            "Fix the bug behind `tests/test_x.py::test_y[a-b]` and test_z.py.",
            ["tests/test_x.py::test_y[a-b]", "test_z.py"],
        ),
    ],
)
async def test_a_fix_of_the_tests_a_task_names_starts_by_running_them(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path, task: str, paths: list[str]
) -> None:
    """Seen (bench: ri-freezing, pa-mean): asked to fix the code behind a failing test, the
    model read the test file and answered with what the tests check, or changed the code it
    guessed at, never running the test. The turn's first step is now the host's own: those
    tests run, with no request to the model at all."""
    response = await fake_provider().complete([UserMessage(content=task)], registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("run_tests", {"paths": paths})
    assert _chat_bodies(tmp_path / "states") == []


async def test_a_question_about_what_a_command_prints_starts_by_running_it(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: sl-hundred): "What exactly does python -m kitty.cli 100.00 ana ben cy
    print?" answered at once, with no call, with output the model made up. The turn's first
    step is the host's own: the command runs (through the gate, as any call), with no request
    to the model; a later step is the model's."""
    task = "What exactly does python -m kitty.cli 100.00 ana ben cy print? Just tell me."
    provider = fake_provider(_call({"answer": "It prints ana: 33.34."}))
    response = await provider.complete([UserMessage(content=task)], registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == (
        "run_command",
        {"command": ["python", "-m", "kitty.cli", "100.00", "ana", "ben", "cy"]},
    )
    assert _chat_bodies(tmp_path / "states") == []
    ran = [UserMessage(content=task), *exchange("c0", "run_command", {"command": ["x"]}, "ok")]
    answer = await provider.complete(ran, registry.definitions())
    assert answer.message.content == "It prints ana: 33.34."


LOOKING = editor_context(
    "tests/test_units.py", "def test_freezing():\n    assert c_to_f(0) == 32\n"
)
SELECTED = editor_context("tools/ci.py", "# run: pytest tests/test_units.py\n", lines=(0, 0))


async def test_the_test_file_the_person_looks_at_is_the_one_named(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    task = f"The tests fail. Fix the code, not the tests.\n\n{LOOKING}"
    response = await fake_provider().complete([UserMessage(content=task)], registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == (
        "run_tests",
        {"paths": ["tests/test_units.py"]},
    )


@pytest.mark.parametrize(
    "task",
    [
        f"The tests fail. Fix the code, not the tests.\n\n{SELECTED}",  # a name in a selection
        "Add a --kelvin flag and a test for it in tests/test_cli.py.",  # asks for a test
        "The tests fail. Fix the code, not the tests.",  # names no test to run
        "Rename line to format_line; tests/test_report.py must pass afterwards.",
    ],
)
async def test_a_task_that_is_not_to_fix_named_failing_tests_starts_with_the_model(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path, task: str
) -> None:
    provider = fake_provider(_call({"tool": "scan", "arguments": {}}))
    response = await provider.complete([UserMessage(content=task)], registry.definitions())
    [call] = response.message.tool_calls
    assert call.name == "scan"
    assert len(_chat_bodies(tmp_path / "states")) == 1


async def test_after_an_edit_the_failing_test_runs_again_before_anything_else(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """run_tests → edit → run_tests was refused as a repeated call ("I already ran the tests,
    so I cannot run them again"). Now the run after the edit is the host's own step: the tests
    that failed, with no request to the model at all."""
    provider = fake_provider()
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", EDIT, "edit text.py (1 block)"),
    ]
    response = await provider.complete(history, registry.definitions())
    [call] = response.message.tool_calls
    assert call.name == "run_tests"
    assert json.loads(call.arguments) == {"paths": ["tests/test_text.py::test_shout"]}
    assert _chat_bodies(tmp_path / "states") == []


async def test_a_failing_run_that_names_no_test_runs_again_as_it_was_after_an_edit(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """A run whose output names no failing test (a collection error) runs again after the
    edit with the arguments it had: none."""
    broken = "$ python -m pytest\n(in .; exit 2; 0.4 s)\nERROR tests/test_text.py\n1 error"
    history: list[Message] = [
        UserMessage(content="Fix the bug behind tests/test_text.py::test_shout"),
        *exchange("c1", "run_tests", {}, broken, failed=True),
        *exchange("c2", "edit_file", EDIT, "edit text.py (1 block)"),
    ]
    response = await fake_provider().complete(history, registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("run_tests", {})
    assert _chat_bodies(tmp_path / "states") == []


PASSING_RUN = "$ python -m pytest tests/test_text.py::test_shout\n(in .; exit 0; 0.3 s)\n1 passed"


async def test_once_the_failing_test_passes_after_an_edit_its_file_runs_whole(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """An edit can fix the failing test and break the one beside it (bench: nj-mi-map-if,
    then an answer that the test passed). Once the narrowed run passes, the host's next step
    is the run of its file; once that has run, or with nothing changed, the model goes on."""
    narrowed = {"paths": ["tests/test_text.py::test_shout"]}
    whole = {"paths": ["tests/test_text.py"]}
    fixed: list[Message] = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", EDIT, "edit text.py (1 block)"),
        *exchange("c3", "run_tests", narrowed, PASSING_RUN),
    ]
    response = await fake_provider().complete(fixed, registry.definitions())
    [call] = response.message.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("run_tests", whole)
    assert _chat_bodies(tmp_path / "states") == []
    ran_whole = [*fixed, *exchange("c4", "run_tests", whole, "$ python -m pytest\n3 passed")]
    unchanged: list[Message] = [
        UserMessage(content="Run tests/test_text.py::test_shout"),
        *exchange("c1", "run_tests", narrowed, PASSING_RUN),
    ]
    for history in (ran_whole, unchanged):
        provider = fake_provider(_call({"answer": "The tests pass."}))
        response = await provider.complete(history, registry.definitions())
        assert response.message.tool_calls == (), history[-1]
    assert len(_chat_bodies(tmp_path / "states")) == 2


async def test_once_the_named_tests_pass_after_a_fix_the_step_is_the_answer(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: mt-window, run 65): after a right fix and a passing run of the test file,
    the model tried to add asserts to the test until its 15 iterations were spent."""
    whole = {"paths": ["tests/test_text.py"]}
    done = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", EDIT, "edit text.py (1 block)"),
        *exchange("c3", "run_tests", whole, "$ python -m pytest\n3 passed"),
    ]
    provider = fake_provider(_call({"answer": "shout now upper-cases; the tests pass."}))
    response = await provider.complete(done, registry.definitions())
    assert response.message.content == "shout now upper-cases; the tests pass."
    [body] = _chat_bodies(tmp_path / "states")
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer"]
    assert body["messages"][-1]["content"].startswith("[Foehn] The tests the task names pass")


def test_a_fix_is_done_only_when_what_the_task_names_passed_after_a_change(
    registry: ToolRegistry,
) -> None:
    tools = registry.definitions()
    task = "Fix the bug behind tests/test_text.py::test_shout"
    edit = exchange("c2", "edit_file", EDIT, "edit text.py (1 block)")
    ran = exchange("c3", "run_tests", {"paths": ["tests/test_text.py"]}, "3 passed")
    assert passed_after_fix([UserMessage(content=task), *edit, *ran], tools)
    suite = exchange("c3", "run_tests", {}, "9 passed")
    assert passed_after_fix([UserMessage(content=task), *edit, *suite], tools)
    other = exchange("c3", "run_tests", {"paths": ["tests/test_other.py"]}, "1 passed")
    read = exchange("c4", "read_file", {"path": "text.py"}, "text.py: lines 1-2 of 2")
    failed = exchange("c3", "run_tests", {}, FAILING_RUN, failed=True)
    for turn in (
        [*ran],  # nothing changed
        [*edit, *other],  # not the named test
        [*edit, *failed],
        [*edit, *ran, *read],  # the step after the run has been taken
        [*ran, *edit],
    ):
        assert not passed_after_fix([UserMessage(content=task), *turn], tools), turn
    for asks in (
        f"{task} and add a changelog entry.",
        f"{task}, then bump the version.",
        "Add a test for shout in tests/test_text.py, then fix shout.",
    ):
        assert not passed_after_fix([UserMessage(content=asks), *edit, *ran], tools), asks


async def test_an_identical_call_is_new_again_once_a_file_changed(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    read = {"path": "text.py"}
    provider = fake_provider(_call({"tool": "read_file", "arguments": read}))
    history: list[Message] = [
        UserMessage(content="Make shout upper-case its text"),
        *exchange("c1", "read_file", read, "text.py: lines 1-2 of 2\n     1\tdef shout(s):"),
        *exchange("c2", "edit_file", EDIT, "edit text.py (1 block)"),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_file"]
    assert len(_chat_bodies(tmp_path / "states")) == 1, "not re-asked"


async def test_an_identical_call_with_nothing_changed_since_is_refused_with_what_to_do(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Nothing changed since the failing run: running it again would show the same. The note
    names the next steps with the tools the model has; run_tests is not offered again."""
    provider = fake_provider(
        _call({"tool": "run_tests", "arguments": {}}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    again = _chat_bodies(tmp_path / "states")[-1]
    told = again["messages"][-1]["content"]
    assert told == (
        "[Foehn] The tests ran already and no file has changed since, so it would show the "
        "same. Next: edit_file the code its failure names; read_symbol a "
        "function it names if you need its text first; then run_tests again; or answer with "
        "what you found."
    )
    offered = _offered(again)
    assert "run_tests" not in offered
    assert "read_symbol" in offered


@pytest.mark.parametrize(
    ("sandbox", "new_again"), [("read-only", False), ("workspace-write", True), ("full", True)]
)
async def test_only_a_program_that_could_write_makes_a_call_new_again(
    fake_provider: MakeProvider,
    registry: ToolRegistry,
    tmp_path: Path,
    sandbox: str,
    new_again: bool,
) -> None:
    """A program run in the read-only sandbox could not change a file: the failing run after it
    would show the same, and is refused as before it. One that could write makes it new."""
    grep = {"command": ["grep", "-n", "upper", "text.py"]}
    provider = fake_provider(
        _call({"tool": "run_tests", "arguments": {}}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange(
            "c2",
            "run_command",
            grep,
            f"$ grep -n upper text.py\n(in .; exit 1; 0.0 s; sandbox {sandbox})\n",
            failed=True,
        ),
    ]
    response = await provider.complete(history, registry.definitions())
    chosen = "run_tests" if new_again else "read_symbol"
    assert [c.name for c in response.message.tool_calls] == [chosen]
    assert len(_chat_bodies(tmp_path / "states")) == (1 if new_again else 2)


CLI = {"command": ["python", "-m", "weatherlog.cli", "20", "21.5"], "cwd": "src"}
USAGE = (
    "$ python -m weatherlog.cli 20 21.5\n(in src; exit 2; {s} s; sandbox workspace-write)\n"
    "usage: cli.py"
)


async def test_a_program_that_showed_the_same_twice_is_not_run_a_third_time(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: um-many-readings): one failing command run eleven times, the same usage
    error each time. A program may change files, so its run makes other calls new again; run
    twice with the same output (its seconds aside), the same call is refused with what to do."""
    provider = fake_provider(_call({"tool": "run_command", "arguments": CLI}), READ_SHOUT)
    task = UserMessage(content="Make the command line take several readings")
    twice = [
        task,
        *exchange("c1", "run_command", CLI, USAGE.format(s="0.1"), failed=True),
        *exchange("c2", "run_command", CLI, USAGE.format(s="0.0"), failed=True),
    ]
    response = await provider.complete(twice, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    told = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert told.startswith(
        "[Foehn] run_command with these arguments ran already, and nothing that could change "
        "what it shows has happened since, so it would show the same. Next: read_file the code "
        "its output names"
    )
    edited = [*twice, *exchange("c3", "edit_file", EDIT, "edit text.py (1 block)")]
    once = [task, *exchange("c1", "run_command", CLI, USAGE.format(s="0.1"), failed=True)]
    for history in (edited, once):
        again = fake_provider(_call({"tool": "run_command", "arguments": CLI}))
        chosen = await again.complete(history, registry.definitions())
        assert [c.name for c in chosen.message.tool_calls] == ["run_command"], history[-1]


async def test_the_persons_next_message_makes_every_call_new_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Between two turns the person may have changed files: their message resets the guard."""
    provider = fake_provider(_call({"tool": "run_tests", "arguments": {}}))
    history: list[Message] = [
        UserMessage(content="Run the tests"),
        *exchange("c1", "run_tests", {}, FAILING_RUN, failed=True),
        AssistantMessage(content="One test fails: test_shout."),
        UserMessage(content="I fixed it myself; run them again"),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["run_tests"]
    assert len(_chat_bodies(tmp_path / "states")) == 1


async def test_a_call_refused_as_a_repeat_is_not_offered_again_in_that_step(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on toolz: refused a read it had just made, the model wrote an edit that changed
    nothing, was asked again with every tool, and made the same read; the loop ended the run
    as a repeated call. The refused tool stays out of the rest of the step."""
    read = {"path": "text.py", "limit": 40}
    same = {"path": "text.py", "edits": [{"old_text": "    return s", "new_text": "    return s"}]}
    provider = fake_provider(
        _call({"tool": "read_file", "arguments": read}),
        _call({"tool": "edit_file", "arguments": same}),
        READ_SHOUT,
    )
    history: list[Message] = [
        UserMessage(content="Make shout upper-case its text"),
        *exchange(
            "c1",
            "read_file",
            read,
            "text.py: lines 1-2 of 2\n     1\tdef shout(s):\n     2\t    return s",
        ),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    bodies = _chat_bodies(tmp_path / "states")
    assert len(bodies) == 3
    offered = _offered(bodies[-1])
    assert "read_file" not in offered
    assert {"read_symbol", "edit_file"} <= offered


async def test_a_repeat_chosen_when_a_later_guard_asks_again_is_refused_too(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: ng-tz-peekn): asked again after an edit it had made already, the model ran
    the tests that had just failed with nothing changed since, and the run was made."""
    insert = {"old_text": "    return s", "new_text": "    # shout\n    return s"}
    edit = {"path": "text.py", "edits": [insert]}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": edit}),
        _call({"tool": "run_tests", "arguments": {}}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", edit, "edit text.py (1 block)"),
        *exchange("c3", "run_tests", {}, FAILING_RUN, failed=True),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    bodies = _chat_bodies(tmp_path / "states")
    assert len(bodies) == 3
    assert bodies[2]["messages"][-1]["content"].startswith("[Foehn] The tests ran already")
    assert not {"run_tests", "run_command"} & _offered(bodies[2])


async def test_a_narrower_run_of_tests_that_just_failed_counts_as_the_same_run(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on inflection: after a failing run, the model ran the four failing node ids it had
    just been shown, instead of fixing the code."""
    narrower = {"paths": ["tests/test_text.py::test_shout"]}
    provider = fake_provider(
        _call({"tool": "run_tests", "arguments": narrower}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    told = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert told.startswith("[Foehn] The tests ran already")


async def test_the_tests_run_as_a_program_count_as_the_same_run(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on more-itertools: after a failing run and a refused edit (it changed nothing), the
    model ran ``python -m pytest`` for the failing test; that run, in a sandbox that let it
    write, made the refused edit new again, and the two alternated until the 300 s ran out.
    The program is refused as the same test run, and neither way to run tests is offered."""
    pytest_run = {"command": ["python", "-m", "pytest", "--", "tests/test_text.py::test_shout"]}
    same = {"path": "text.py", "edits": [{"old_text": "return s", "new_text": "return s"}]}
    provider = fake_provider(
        _call({"tool": "run_command", "arguments": pytest_run}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange(
            "c2",
            "edit_file",
            same,
            "the edits leave text.py unchanged (new_text equals old_text)",
            failed=True,
        ),
        *exchange(
            "c3",
            "read_file",
            {"path": "text.py"},
            "text.py: lines 1-2 of 2\n     1\tdef shout(s):\n     2\t    return s",
        ),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    again = _chat_bodies(tmp_path / "states")[-1]
    assert again["messages"][-1]["content"].startswith("[Foehn] The tests ran already")
    offered = _offered(again)
    assert not offered & {"run_tests", "run_command"}
    assert "edit_file" in offered, " ".join(sorted(offered))


async def test_right_after_an_edit_that_left_something_behind_write_file_is_not_offered(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: mo-version, pa-release): after an edit whose result said where the old
    version was still given, the model wrote that result, diff and note, as the whole of the
    file it had just edited. Without such a note write_file is offered as before."""
    result = (
        "edit pyproject.toml (1 block)\n--- a/pyproject.toml\n+++ b/pyproject.toml\n"
        '@@ -1 +1 @@\n-version = "2.1.0"\n+version = "2.1.1"\n[Foehn] The version 2.1.0 '
        "became 2.1.1 in pyproject.toml, but 2.1.0 is still given in 1 place:"
    )
    edit = {"path": "pyproject.toml", "edits": [{"old_text": "2.1.0", "new_text": "2.1.1"}]}
    for output, offered_write in ((result, False), (result.split("\n[Foehn]")[0], True)):
        provider = fake_provider(_call({"tool": "read_file", "arguments": {"path": "a.py"}}))
        history: list[Message] = [
            UserMessage(content="Release 2.1.1"),
            *exchange("c1", "edit_file", edit, output),
        ]
        await provider.complete(history, registry.definitions())
        offered = _offered(_chat_bodies(tmp_path / "states")[-1])
        assert ("write_file" in offered) is offered_write
        assert {"read_file", "read_symbol"} <= offered


async def test_right_after_a_failing_run_the_fix_is_an_edit_not_a_whole_file(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on inflection: shown the failing test and the function under test, the model wrote
    the run's own text over the module with write_file (edit_file was not offered: a failing
    run's code did not count as shown). Now the edit is offered, with the code it showed."""
    provider = fake_provider(_call({"tool": "read_file", "arguments": {"path": "text.py"}}))
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    await provider.complete(history, registry.definitions())
    body = _chat_bodies(tmp_path / "states")[-1]
    schema = body["response_format"]["json_schema"]["schema"]
    offered = _offered(body)
    assert "write_file" not in offered
    assert {"read_file", "read_symbol", "search", "edit_file"} <= offered
    [edit] = [
        c for c in schema["anyOf"] if c["properties"].get("tool", {}).get("const") == "edit_file"
    ]
    [text] = edit["properties"]["arguments"]["anyOf"]
    assert text["properties"]["path"] == {"const": "text.py"}
    choices = text["properties"]["edits"]["items"]["properties"]["old_text"]["enum"]
    assert choices[0] == "def shout(s):\n    return s"


async def test_an_edit_that_writes_its_old_text_back_is_asked_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on inflection: the model named the line to fix and wrote it back unchanged, twice."""
    same = {"old_text": "def shout(s):\n    return s", "new_text": "def shout(s):\n    return s"}
    fixed = {"old_text": "    return s", "new_text": "    return s.upper()"}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": {"path": "text.py", "edits": [same]}}),
        _call({"tool": "edit_file", "arguments": {"path": "text.py", "edits": [fixed]}}),
    )
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    response = await provider.complete(history, registry.definitions())
    [call] = response.message.tool_calls
    assert json.loads(call.arguments)["edits"] == [fixed]
    told = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert told.startswith("[Foehn] That edit changes nothing: each new_text is its old_text.")


async def test_an_edit_written_back_unchanged_twice_is_not_offered_a_third_time(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on more-itertools: asked again, the model wrote the same unchanged edit, which the
    tool refused, and wrote it again after the next test run."""
    same = {"old_text": "    return s", "new_text": "    return s"}
    read = {"path": "text.py", "name": "shout"}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": {"path": "text.py", "edits": [same]}}),
        _call({"tool": "edit_file", "arguments": {"path": "text.py", "edits": [same]}}),
        _call({"tool": "read_symbol", "arguments": read}),
    )
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    last = _chat_bodies(tmp_path / "states")[-1]
    offered = _offered(last)
    assert "edit_file" not in offered
    assert "read_symbol" in offered


NTH = "    if isinstance(seq, (tuple, list, Sequence)):"
LONGER = "    if isinstance(seq, (tuple, list, Sequence)) or isinstance(seq, str):"
AGAIN = LONGER.replace("):", ") or isinstance(seq, str):")
NTH_RUN = (
    "$ python -m pytest\n(in .; exit 1; 0.4 s)\n1 failed\n1 failing:\n"
    "  tests/test_it.py::test_nth - assert 'A' == 'B'\n"
    "nth, which the test calls:\nit.py: lines 1-3 of 3\n     1\tdef nth(n, seq):\n"
    f"     2\t{NTH}\n     3\t        return seq[n - 1]\n"
)


def _nth_turn(*edits: str) -> list[Message]:
    """A turn on ``nth``: a failing run, then each edit of its ``if`` line to the next text,
    each followed by the same failing run."""
    history: list[Message] = [
        UserMessage(content="tests/test_it.py::test_nth fails. Fix it."),
        *exchange("c0", "run_tests", {}, NTH_RUN, failed=True),
    ]
    for n, (old, new) in enumerate(zip((NTH, *edits), edits, strict=False), 1):
        edit = {"path": "it.py", "edits": [{"old_text": old, "new_text": new}]}
        history += exchange(f"e{n}", "edit_file", edit, "edit it.py (1 block)")
        history += exchange(f"r{n}", "run_tests", {}, NTH_RUN, failed=True)
    return history


def test_an_edit_that_adds_again_what_an_earlier_edit_added_next_to_it_is_told_apart(
    registry: ToolRegistry,
) -> None:
    """Seen on toolz: after each failing run the model added ``or isinstance(seq, str)`` to the
    line its last edit had lengthened so. Text inserted next to itself that no earlier edit of
    the turn added may be the fix (a second ``next(t3, None)``), and is not told apart."""
    history = _nth_turn(LONGER)
    seen = seen_files(history, registry.definitions())

    def edit(old: str, new: str, path: str = "it.py") -> dict[str, object]:
        return {
            "tool": "edit_file",
            "arguments": {"path": path, "edits": [{"old_text": old, "new_text": new}]},
        }

    assert doubles(edit(LONGER, AGAIN), seen, history)
    assert not doubles(edit("        return seq[n - 1]", "        return seq[n]"), seen, history)
    assert not doubles(edit(LONGER, LONGER + "  # strings too"), seen, history)
    ahead = ["    next(t3, None)\n    next(t2, None)\n    next(t2, None)"]
    second = edit("    next(t3, None)", "    next(t3, None)\n    next(t3, None)", "t.py")
    assert not doubles(second, {"t.py": ahead}, history), "no earlier edit added it"


async def test_an_edit_that_adds_again_what_it_added_is_asked_again_then_not_offered(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on toolz (nth, peek): the same clause or block added again after each failing run,
    three times, until the 300 s ran out."""
    again = {"path": "it.py", "edits": [{"old_text": LONGER, "new_text": AGAIN}]}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": again}),
        _call({"tool": "edit_file", "arguments": again}),
        _call({"tool": "read_symbol", "arguments": {"path": "it.py", "name": "nth"}}),
    )
    response = await provider.complete(_nth_turn(LONGER), registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    bodies = _chat_bodies(tmp_path / "states")
    told = bodies[-2]["messages"][-1]["content"]
    assert told.startswith("[Foehn] That edit only adds again what the lines next to it")
    offered = _offered(bodies[-1])
    assert "edit_file" not in offered
    assert "read_symbol" in offered


THIRD = AGAIN.replace("):", ") or isinstance(seq, bytes):")
GAVE_UP = "I changed nth's if line three times and test_nth still fails: 'A' == 'B'."


def test_only_test_runs_that_failed_after_a_change_of_this_turn_are_counted(
    registry: ToolRegistry,
) -> None:
    """A run with no change before it (the turn's first, a run repeated), a change that
    failed, a denied run and an earlier turn's runs do not count; a test runner run as a
    program does."""
    tools = registry.definitions()
    edit = {"path": "it.py", "edits": [{"old_text": NTH, "new_text": LONGER}]}
    pytest_program = {"command": "python -m pytest tests/test_it.py"}
    history = [
        *_nth_turn(LONGER, AGAIN, THIRD),
        AssistantMessage(content=GAVE_UP),
        UserMessage(content="Go on."),
        *exchange("s0", "run_tests", {}, NTH_RUN, failed=True),
        *exchange("s1", "edit_file", edit, "old_text was not found", failed=True),
        *exchange("s2", "run_tests", {}, NTH_RUN, failed=True),
        *exchange("s3", "edit_file", edit, "edit it.py (1 block)"),
        *exchange("s4", "run_command", pytest_program, NTH_RUN, failed=True),
        *exchange("s5", "run_tests", {}, NTH_RUN, failed=True),
    ]
    assert failed_after_changes(_nth_turn(LONGER, AGAIN, THIRD), tools) == 3
    assert failed_after_changes(history, tools) == 1
    # A run the person denied showed no failure: it neither counts nor ends the change.
    third = {"path": "it.py", "edits": [{"old_text": AGAIN, "new_text": THIRD}]}
    denied = [
        *_nth_turn(LONGER, AGAIN),
        *exchange("e3", "edit_file", third, "edit it.py (1 block)"),
        *exchange("d3", "run_tests", {}, "the person denied this call", failed=True),
    ]
    assert failed_after_changes(denied, tools) == 2
    denied += exchange("r3", "run_tests", {}, NTH_RUN, failed=True)
    assert failed_after_changes(denied, tools) == 3


async def test_after_three_failing_runs_that_followed_changes_the_step_is_the_answer(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on toolz (``ns-tz-nth``) and more-itertools: every fix the model got right passed
    at the first or second run after a change; the turns that failed a third time went on
    adding to their own wrong change until the run's 300 s were over, and ended cancelled."""
    provider = fake_provider(_call({"answer": GAVE_UP}))
    response = await provider.complete(_nth_turn(LONGER, AGAIN, THIRD), registry.definitions())
    assert response.message.content == GAVE_UP
    assert not response.message.tool_calls
    [body] = _chat_bodies(tmp_path / "states")
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer"]
    assert "still fail after 3 changes in this turn" in body["messages"][-1]["content"]


async def test_two_failing_runs_after_changes_or_a_new_turn_leave_the_tools_offered(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    read = _call({"tool": "read_symbol", "arguments": {"path": "it.py", "name": "nth"}})
    provider = fake_provider(read, read)
    went_on = [*_nth_turn(LONGER, AGAIN, THIRD), AssistantMessage(content=GAVE_UP)]
    went_on.append(UserMessage(content="Go on."))
    for history in (_nth_turn(LONGER, AGAIN), went_on):
        response = await provider.complete(history, registry.definitions())
        assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    for body in _chat_bodies(tmp_path / "states"):
        assert {"edit_file", "read_symbol"} <= _offered(body)
        assert "still fail after" not in body["messages"][-1]["content"]


async def test_an_answer_that_says_what_it_will_do_is_asked_again_for_the_call(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on inflection: a fix whose answer ended "… I will edit the code", nothing changed."""
    fixed = {"old_text": "    return s", "new_text": "    return s.upper()"}
    provider = fake_provider(
        _call({"answer": "shout must upper-case its text. I will edit the code to fix it."}),
        _call({"tool": "edit_file", "arguments": {"path": "text.py", "edits": [fixed]}}),
    )
    history: list[Message] = [
        *SHOUT_FAILED,
    ]
    response = await provider.complete(history, registry.definitions())
    [call] = response.message.tool_calls
    assert json.loads(call.arguments)["edits"] == [fixed]
    bodies = _chat_bodies(tmp_path / "states")
    last = bodies[-1]
    assert last["messages"][-1]["content"].startswith("[Foehn] That answer says what you will do")
    schema = last["response_format"]["json_schema"]["schema"]
    assert all("tool" in choice["properties"] for choice in schema["anyOf"]), "a call, no answer"
    # The stand-in worker counts a prompt's messages as its tokens: the step read both
    # prompts, and the window holds the last (the context meter measures by it).
    assert response.usage.input_tokens == sum(len(b["messages"]) for b in bodies)
    assert response.usage.context_tokens == len(last["messages"]) < response.usage.input_tokens


@pytest.mark.parametrize(
    ("task", "renames", "deletes", "moves", "makes"),
    [
        ("Fix the bug behind tests/test_text.py::test_shout", False, False, False, False),
        ("Rename shout to yell", True, False, True, False),
        ("tests/test_text.py::test_remove fails. Fix text.py", False, False, False, False),
        ("Delete old_utils.py; nothing uses it", False, True, False, False),
        ("Remove the dead module", False, True, False, False),
        ("Make Bergen the default station in the CLI and the README", False, False, False, False),
        ("Move text.py into a new folder util", False, False, True, True),
    ],
)
async def test_rename_delete_move_and_mkdir_are_offered_only_when_the_person_asks_for_them(
    fake_provider: MakeProvider,
    registry: ToolRegistry,
    tmp_path: Path,
    task: str,
    renames: bool,
    deletes: bool,
    moves: bool,
    makes: bool,
) -> None:
    """Offered in fixes, the model renamed the function the failing test calls (is_uuid) and
    deleted the module whose test failed (boltons strutils.py); asked to change a default in
    the code and the README, it made a folder and moved the README into it (ta-bergen). A
    test's name is not a request (``test_remove``). (A step after the first: a fix's first
    step runs its tests.)"""
    provider = fake_provider(_call({"answer": "Done."}))
    history = [UserMessage(content=task), *exchange("c0", "scan", {}, "text.py")]
    await provider.complete(history, registry.definitions())
    tools = _offered(_chat_bodies(tmp_path / "states")[-1])
    assert "read_file" in tools
    assert ("rename" in tools) is renames
    assert ("delete_path" in tools) is deletes
    assert ("move_path" in tools) is moves
    assert ("make_directory" in tools) is makes


@pytest.mark.parametrize(
    ("task", "deleted", "offered"),
    [
        ("Delete src/mixtape/pls.py and the import of it", ["src/mixtape/pls.py"], False),
        ("Delete pls.py and the import that pulls it in (gone in 0.6.0)", ["src/pls.py"], False),
        ("Delete a.py and b.py", ["a.py"], True),
        ("Delete the dead module and its import", ["src/mixtape/pls.py"], True),
        ("Delete src/mixtape/pls.py", [], True),
    ],
)
async def test_delete_path_is_not_offered_once_the_files_the_person_named_are_deleted(
    fake_provider: MakeProvider,
    registry: ToolRegistry,
    tmp_path: Path,
    task: str,
    deleted: list[str],
    offered: bool,
) -> None:
    """Seen (bench: dr-dead-pls): asked to delete a module and the import that still pulled it
    in, the model deleted the module, then the whole file with the import."""
    provider = fake_provider(_call({"answer": "Done."}))
    history: list[Message] = [UserMessage(content=task), *exchange("c0", "scan", {}, "a.py")]
    for n, path in enumerate(deleted, start=1):
        history += exchange(f"c{n}", "delete_path", {"path": path}, f"delete {path}")
    await provider.complete(history, registry.definitions())
    assert ("delete_path" in _offered(_chat_bodies(tmp_path / "states")[-1])) is offered


CUT = {
    "chunks": ['{"tool": "write_file", "arguments": {"path": "a.py", "content": "x'],
    "finish": "length",
}


async def test_a_step_cut_off_twice_ends_the_turn_with_what_it_was_writing(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    provider = fake_provider(CUT, CUT)
    assert provider.max_tokens == 512, "the embedded model's 16k window"
    with pytest.raises(
        ProviderProtocolError, match=r"cut off at 512 tokens \(writing a call to write_file\)"
    ):
        await provider.complete([UserMessage(content="Write a.py")], registry.definitions())
    bodies = _chat_bodies(tmp_path / "states")
    assert [b["max_tokens"] for b in bodies[-2:]] == [512, 512]


async def test_a_step_cut_off_once_is_asked_again_with_a_note(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: tz-second, bo-indent): a step wrote to the cap, 130-150 s, and the turn
    ended there with time left to go on."""
    provider = fake_provider(CUT, _call({"tool": "read_file", "arguments": {"path": "a.py"}}))
    response = await provider.complete([UserMessage(content="Fix a.py")], registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_file"]
    again = _chat_bodies(tmp_path / "states")[-1]["messages"][-1]["content"]
    assert "Your last step was cut off: it ran past 512 tokens." in again


def test_what_an_answer_announces_is_told_from_what_it_reports() -> None:
    assert announces("I will edit inflection/__init__.py next.")
    assert announces("The test fails. Let me fix the regular expression.")
    assert not announces("I edited inflection/__init__.py and the test passes.")
    assert not announces("Let me know if you want the tests changed too.")


def test_a_long_definition_is_changed_a_few_lines_at_a_time() -> None:
    short = "def f(x):\n" + "    x += 1\n" * 3 + "    return x"
    long = "def g(x):\n" + "    x += 1\n" * 15 + "    return x"
    choices = old_text_choices([f"{short}\n\n\n{long}"])
    assert short in choices
    assert long not in choices
    assert "def g(x):" in choices


async def test_a_change_that_succeeded_already_is_not_made_again(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen on inflection: after every failing run the model made the same successful edit
    again (it added the same lines to a docstring), the file growing each time."""
    insert = {"old_text": "    return s", "new_text": "    # shout\n    return s"}
    edit = {"path": "text.py", "edits": [insert]}
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": edit}),
        _call({"tool": "edit_file", "arguments": edit}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", edit, "edit text.py (1 block)"),
        *exchange("c3", "run_tests", {}, FAILING_RUN, failed=True),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    bodies = _chat_bodies(tmp_path / "states")
    assert bodies[1]["messages"][-1]["content"].startswith(
        "[Foehn] You made exactly this change already in this turn"
    )
    last = _offered(bodies[2])
    assert "edit_file" not in last


async def test_a_change_made_before_chosen_when_a_later_guard_asks_again_is_refused_too(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """Seen (bench: nm-mi-ilen): the model added ``+ 1`` and took it out; asked again after
    adding it once more, it ran the tests that had just failed, and, that run refused as a
    repeat, it added ``+ 1`` again, and that edit was made."""
    added = {
        "path": "text.py",
        "edits": [{"old_text": "    return s", "new_text": "    return s + 1"}],
    }
    undone = {
        "path": "text.py",
        "edits": [{"old_text": "    return s + 1", "new_text": "    return s"}],
    }
    provider = fake_provider(
        _call({"tool": "edit_file", "arguments": added}),
        _call({"tool": "run_tests", "arguments": {}}),
        _call({"tool": "edit_file", "arguments": added}),
        READ_SHOUT,
    )
    history: list[Message] = [
        *SHOUT_FAILED,
        *exchange("c2", "edit_file", added, "edit text.py (1 block)"),
        *exchange("c3", "run_tests", {}, FAILING_RUN, failed=True),
        *exchange("c4", "edit_file", undone, "edit text.py (1 block)"),
        *exchange("c5", "run_tests", {}, FAILING_RUN, failed=True),
    ]
    response = await provider.complete(history, registry.definitions())
    assert [c.name for c in response.message.tool_calls] == ["read_symbol"]
    bodies = _chat_bodies(tmp_path / "states")
    assert len(bodies) == 4
    made = "[Foehn] You made exactly this change already in this turn"
    assert bodies[1]["messages"][-1]["content"].startswith(made)
    assert bodies[2]["messages"][-1]["content"].startswith("[Foehn] The tests ran already")
    assert bodies[3]["messages"][-1]["content"].startswith(made)
    assert not {"edit_file", "run_tests", "run_command"} & _offered(bodies[3])
