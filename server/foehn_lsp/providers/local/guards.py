"""The embedded model's host guards on a step, and what each one tells the model to do next.

- A call identical to one made since the workspace last changed (``effects``) is not run
  again: it would show what it showed. The model is told so, with the next steps its other
  tools offer (after a failing test run: fix the code, then run the tests again), and asked
  again without that tool. Any change (an edit, a program that ran, the person's next message)
  makes every call new again: ``run_tests`` after an edit is never refused. A test runner run
  by ``run_command`` is a test run: it changes nothing, and it is the same call as any other.
  A program that ran twice with the same output, nothing else changing, is not run a third
  time (``same_again``).
- Right after a change that failed (not one the person denied), the step must be a tool call.
- Right after a failing test run, write_file is not offered: the fix is an edit.
- rename, delete_path, move_path and make_directory are offered only in a turn the person
  asked to rename, delete or move something, or to make a folder; delete_path no longer once
  every file the request names is deleted (``deleted_all_named``).
- A write_file of a file read, with less than half the lines shown of it, is asked once more,
  with a note (the rest of the file would be lost).
- An edit whose every new_text is its old_text is asked once more, with a note, and written so
  again, asked without edit_file; so is one that only adds again what the code next to it has
  (and the fix written as code that does is set aside). A change identical to one that
  succeeded earlier in the turn is asked once more, and made again it is not run.
- A call that names something only the fixed prompt's examples have (``tests/test_bounds.py``
  in a project without it) is asked once more, with a note that says so.
- An answer that says what the model will do next ("I will edit the code") is asked once
  more, with a note, as a tool call.
- After a successful change following a failed test run, and before any run since, the step
  is that test run again, narrowed to the tests that failed (``rerun_after_change``): the host
  makes the call itself, as the grammar would leave the model no other choice. Once such a
  narrowed run passes, the step is the run of the files those tests are in
  (``widen_after_pass``), so that a change that broke a test beside them is seen before the
  answer.
- After ``FAILED_RUNS`` test runs of a turn that failed after a change, the step is the
  answer: what the model changed, what still fails, and what it would try next.
- Once the tests a task to fix names pass after a change, and the task asks nothing more, the
  step is the answer (``passed_after_fix``).
- A turn's first step is the run of the failing tests a task to fix names (``first_run``), or
  of the command a task asks the output of (``first_program``).

Every note names the tools the model has, by name, and what to call them for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence

from foehn_lsp.providers.effects import (
    PROGRAM_TOOL,
    TESTS_TOOL,
    ChangesFiles,
    arguments_of,
    calls_in,
    calls_since_change,
    last_change,
    may_have_changed,
    output_of,
    program_asked,
    ran,
    refused,
    runs_tests,
)
from foehn_lsp.providers.messages import (
    Message,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.workspace.testfiles import SHORT_SUMMARY, fixes_code, named_tests


def canonical(name: str, arguments: str, tools: Sequence[ToolDefinition]) -> str:
    """The call with its arguments' defaults filled in, so that ``scan {}`` and
    ``scan {"recursive": true}`` count as the same call."""
    try:
        given = json.loads(arguments)
    except json.JSONDecodeError:
        return name + arguments
    defaults = next(
        (
            {
                k: v["default"]
                for k, v in (t.parameters.get("properties") or {}).items()
                if isinstance(v, Mapping) and "default" in v
            }
            for t in tools
            if t.name == name
        ),
        {},
    )
    merged = {**defaults, **given} if isinstance(given, dict) else given
    return name + json.dumps(merged, sort_keys=True)


def changing(tools: Sequence[ToolDefinition]) -> ChangesFiles:
    """Whether a tool of ``tools`` changes files, by name (the contract's ``changes_files``)."""
    names = {t.name for t in tools if t.changes_files}
    return lambda name: name in names


def unchanged_calls(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> set[str]:
    """The calls (``key``) made since the workspace last changed, and the programs that ran
    again with what they showed before (``same_again``)."""
    since = calls_since_change(messages, changing(tools))
    return {key(c.name, c.arguments, tools) for c in since} | same_again(messages, tools)


def same_again(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> set[str]:
    """The programs (``key``) of this turn whose last two runs showed the same, with nothing
    else that may have changed the workspace between them or since: a program run may change
    files, so it makes every call new again, but not itself once it has shown it does not.
    Seen (bench: um-many-readings): one failing ``python -m weatherlog.cli …`` run eleven
    times, the same usage error each time, until the iterations ran out."""
    turn = messages[turn_start(messages) :]
    calls = {c.id: c for c in calls_in(turn)}
    changes = changing(tools)
    shown: dict[str, str] = {}
    same: set[str] = set()
    for message in turn:
        if not isinstance(message, ToolResultMessage):
            continue
        call = calls.get(message.call_id)
        if message.name == PROGRAM_TOOL and call is not None and ran(message):
            if runs_tests(call):
                continue  # a test run changes nothing (``key``: any two are the same run)
            program = key(call.name, call.arguments, tools)
            output = output_of(message)
            repeated = shown.get(program) == output
            shown, same = {program: output}, {program} if repeated else set()
        elif may_have_changed(message, call, changes):
            shown, same = {}, set()
    return same


def key(name: str, arguments: str, tools: Sequence[ToolDefinition]) -> str:
    """What makes two calls the same: the tool and its arguments (``canonical``); any two test
    runs, whatever they select and whether ``run_tests`` or a test runner's ``run_command``
    (the model re-ran the failing tests it had just seen fail, narrowed to their node ids or
    as ``python -m pytest``, instead of fixing them)."""
    if runs_tests(ToolCall(id="", name=name, arguments=arguments)):
        return TESTS_TOOL
    return canonical(name, arguments, tools)


def instead_of(name: str, arguments: str, tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
    """The tools offered instead of a call refused as a repeat: all but its own; for a test
    run, all but the two that run tests."""
    if key(name, arguments, tools) == TESTS_TOOL:
        return [t for t in tools if t.name not in (TESTS_TOOL, PROGRAM_TOOL)]
    return [t for t in tools if t.name != name]


def last_result(messages: Sequence[Message]) -> Message | None:
    """The last message that is not one of Foehn's own notes."""
    return next(
        (
            m
            for m in reversed(messages)
            if not (isinstance(m, UserMessage) and m.content.startswith("[Foehn]"))
        ),
        None,
    )


def turn_start(messages: Sequence[Message]) -> int:
    """Where this turn's messages begin: after the person's last message."""
    return next(
        (
            i + 1
            for i in range(len(messages) - 1, -1, -1)
            if isinstance(messages[i], UserMessage)
            and not str(messages[i].content).startswith("[Foehn]")
        ),
        0,
    )


def must_act(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> bool:
    """Whether the next step must be a tool call: right after a change that failed (not one
    refused by the person, a rule or a mode), a small model tends to answer as if it had
    worked; it has to act on what the failure says (read the file first, fix the old_text)
    before it may answer. Foehn's own notes after the failure (a budget warning, the loop's
    request to act) do not lift it."""
    last = last_result(messages)
    return (
        bool(tools)
        and isinstance(last, ToolResultMessage)
        and last.is_error
        and changing(tools)(last.name)
        and not refused(last)
    )


def first_run(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> dict[str, object] | None:
    """The arguments of the test run a turn's first step is, or ``None``: when the person's
    task asks to fix the code behind failing tests it names (``fixes_code``; the test files or
    node ids in its words) and the turn has made no call yet, the step runs those tests, as a
    developer would before reading any code; its result shows the failing test, the traceback
    and the code under test. Seen (bench: ri-freezing, pa-mean): asked to fix the code behind
    a failing test, the model read the test file and answered with what the tests check, or
    changed code it guessed at, never running the test."""
    task = _before_any_call(messages, tools, TESTS_TOOL)
    named = named_tests(task) if task is not None else []
    return {"paths": named} if task is not None and named and fixes_code(task) else None


def first_program(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> dict[str, object] | None:
    """The arguments of the program run a turn's first step is, or ``None``: when the person's
    task asks what a command prints (``program_asked``) and the turn has made no call yet, the
    step runs it. Seen (bench: sl-hundred): "What exactly does python -m kitty.cli 100.00 ana
    ben cy print?" answered at once, with no call, with output the model made up."""
    task = _before_any_call(messages, tools, PROGRAM_TOOL)
    command = program_asked(task) if task is not None else None
    return {"command": command} if command else None


def _before_any_call(
    messages: Sequence[Message], tools: Sequence[ToolDefinition], tool: str
) -> str | None:
    """The person's words for this turn (``_asked``), while the turn has made no call and
    ``tool`` is offered: what a host-made first step reads."""
    start = turn_start(messages)
    if start == 0 or not any(t.name == tool for t in tools) or calls_in(messages[start:]):
        return None
    return _asked(str(messages[start - 1].content))


def _asked(message: str) -> str:
    """A person's message without the lines they selected or the diagnostic they point at,
    which ``agent.editor_context`` adds after their words and the file they look at: a
    selection's code may name a test file the person does not ask about."""
    return _SELECTION.split(message, maxsplit=1)[0]


_SELECTION = re.compile(r"\n\n(?:Selected lines \d|Diagnostic\b)")


def rerun_after_change(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> dict[str, object] | None:
    """The arguments of the test run the next step must be, or ``None``: after the last test
    run of this turn failed and a change succeeded since (with no run after it), the same run,
    narrowed to the tests that failed when its result names them."""
    if not any(t.name == TESTS_TOOL for t in tools):
        return None
    last = last_result(messages)
    turn = messages[turn_start(messages) :]
    if not (
        isinstance(last, ToolResultMessage)
        and not last.is_error
        and may_have_changed(
            last, next((c for c in calls_in(turn) if c.id == last.call_id), None), changing(tools)
        )
    ):
        return None
    runs = [m for m in turn if isinstance(m, ToolResultMessage) and m.name == TESTS_TOOL]
    if not runs or not runs[-1].is_error:
        return None
    failed = runs[-1]
    call = next((c for c in calls_in(turn) if c.id == failed.call_id), None)
    if call is None:
        return None
    try:
        given = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        given = {}
    arguments = dict(given) if isinstance(given, dict) else {}
    named = failing_tests(failed.content)
    if named:
        arguments["paths"] = named
        arguments.pop("keyword", None)
    return arguments


def widen_after_pass(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> dict[str, object] | None:
    """The arguments of the test run the next step must be, or ``None``: after a change, a
    run narrowed to node ids passed, and no run since the change took their files whole; the
    step is the run of those files. Seen (bench: nj-mi-map-if): an edit that fixed ``map_if``
    for the failing test and broke it for the test beside it, then an answer that the test
    passed."""
    if not any(t.name == TESTS_TOOL for t in tools):
        return None
    last = last_result(messages)
    if not (isinstance(last, ToolResultMessage) and last.name == TESTS_TOOL and not last.is_error):
        return None
    turn = messages[turn_start(messages) :]
    since = last_change(turn, changing(tools))
    if since == 0:
        return None  # nothing changed in this turn
    calls = {c.id: c for c in calls_in(turn)}
    runs = [
        arguments_of(calls.get(m.call_id))
        for m in turn[since:]
        if isinstance(m, ToolResultMessage) and m.name == TESTS_TOOL
    ]  # the last of them is ``last``'s
    named = [run.get("paths") for run in runs]
    if not all(isinstance(n, list) and any("::" in str(p) for p in n) for n in named):
        return None  # a run since the change took whole files
    arguments = dict(runs[-1])
    arguments["paths"] = list(dict.fromkeys(str(p).split("::", 1)[0] for p in named[-1] or ()))
    arguments.pop("keyword", None)
    return arguments


FAILED_RUNS = 3
"""Test runs of one turn that may fail after a change before the step is the answer. In the
bench's traces (bench/bench_tasks.py, stops 47 to 52) every fix the model got right passed at
the first or second run after a change; the turns that failed a third or fourth time piled more
onto their own wrong change (``or isinstance(seq, str)`` three times) until the run's 300 s were
over. A person then gets a reason and the state of the tests instead of a cancelled run, and
"go on" starts a turn with the count at zero."""
GIVE_UP_NOTE = (
    "[Foehn] The tests still fail after {runs} changes in this turn. Stop here and answer in "
    "two or three short sentences: what you changed, which test still fails and how, and what "
    "you would try next."
)


PASSED_NOTE = (
    "[Foehn] The tests the task names pass after your change. The task is done: answer now in "
    "two or three short sentences: what you changed, in which file, and what the run showed."
)


def passed_after_fix(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> bool:
    """Whether the step is the answer because the fix is done: the person's task asks to fix
    the code behind failing tests it names, and nothing more; the turn changed a file; and the
    last result is a passing run since the change that took every test named (by file or node
    id) or the whole suite. Seen (bench: mt-window, run 65): after a right fix and a passing
    run of the test file, the model tried to add asserts to the test until its 15 iterations
    were spent, and the person read "Stopped"."""
    start = turn_start(messages)
    if start == 0:
        return False
    task = _asked(str(messages[start - 1].content))
    named = named_tests(task)
    if not (named and fixes_code(task)) or _ASKS_MORE.search(task):
        return False
    changed = False
    passed: ToolCall | None = None
    for result, call, is_run in runs_and_changes(messages, tools):
        if is_run:
            passed = call if changed and not result.is_error else None
        else:
            changed, passed = True, None
    last = last_result(messages)
    if passed is None or not (isinstance(last, ToolResultMessage) and last.call_id == passed.id):
        return False
    paths = arguments_of(passed).get("paths") or []
    if not isinstance(paths, list) or not paths:
        return True  # the whole suite
    files = {str(p).split("::", 1)[0] for p in paths}
    return all(p in paths or p.split("::", 1)[0] in files for p in named)


_ASKS_MORE = re.compile(
    r"\b(?:also|then|afterwards)\b|\band\s+(?:add|update|write|bump|create|rename|remove|"
    r"delete|document|note|mention|record)\b",
    re.IGNORECASE,
)
"""A second thing the task asks for besides the fix: a turn that must go on after the tests
pass."""


def runs_and_changes(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> Iterator[tuple[ToolResultMessage, ToolCall | None, bool]]:
    """This turn's test runs that ran (``key``: a test runner through ``run_command`` too) and
    its results that may have changed the workspace, in order: each result, its call, and
    whether it is a test run. A denied or refused run is neither."""
    turn = messages[turn_start(messages) :]
    calls = {c.id: c for c in calls_in(turn)}
    changes = changing(tools)
    for message in turn:
        if not isinstance(message, ToolResultMessage):
            continue
        call = calls.get(message.call_id)
        if call is not None and key(call.name, call.arguments, tools) == TESTS_TOOL:
            if ran(message):
                yield message, call, True
        elif may_have_changed(message, call, changes):
            yield message, call, False


def failed_after_changes(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> int:
    """Test runs of this turn that failed after a change made since the run before them."""
    changed, failed = False, 0
    for result, _, is_run in runs_and_changes(messages, tools):
        if is_run:
            if changed and result.is_error:
                failed += 1
            changed = False
        else:
            changed = True
    return failed


RERUN = re.compile(r"then run_tests with paths (\[.*\]) first\.$", re.MULTILINE)
"""The line of a failing ``run_tests`` result that names the run to repeat."""


def failing_tests(output: str) -> list[str]:
    """The node ids a failing ``run_tests`` result names: its line on what to run after a
    change, else pytest's ``FAILED`` lines (at most five)."""
    if (line := RERUN.search(output)) is not None:
        try:
            named = json.loads(line[1])
        except json.JSONDecodeError:
            named = None
        if isinstance(named, list) and all(isinstance(n, str) for n in named):
            return named[:5]
    found: list[str] = []
    for node in (line[2] for line in SHORT_SUMMARY.finditer(output)):
        if "::" in node and node not in found:
            found.append(node)
    return found[:5]


WRITE_TOOL = "write_file"
ASKED_FOR: dict[str, re.Pattern[str]] = {
    "rename": re.compile(r"\brenam", re.IGNORECASE),
    "delete_path": re.compile(r"\b(?:delet|remov|get rid of|clean(?:s|ed)? up)", re.IGNORECASE),
    "move_path": re.compile(r"\b(?:mov|renam|relocat)", re.IGNORECASE),
    "make_directory": re.compile(r"\b(?:folder|director|mkdir|package)", re.IGNORECASE),
}
"""Tools offered only in a turn whose request asks for what they do, in its words (names of
files and tests in it left out: ``test_remove`` asks for no removal)."""
_NAMES = re.compile(r"\S*(?:/|::|\.py\b|_)\S*")
EDIT_TOOL = "edit_file"
UNCHANGED_NOTE = (
    "[Foehn] That edit changes nothing: each new_text is its old_text. new_text is old_text "
    "with the fix made in it; write the edit again with the change."
)


def example_note(names: Sequence[str]) -> str:
    """The note for a call that names what only the fixed prompt's examples have."""
    return (
        f"[Foehn] {', '.join(names)} is from the examples, not from this project. Use the "
        "names the task and the tool results give: scan or search to find files, run_tests "
        "with no paths to run all the tests."
    )


MADE_NOTE = (
    "[Foehn] You made exactly this change already in this turn, and it was made: making it "
    "again does not fix the failure. The fix is elsewhere: edit_file another line, one the "
    "failure points to, or read_symbol the function the traceback names."
)


def made_before(
    name: str, arguments: str, messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> bool:
    """Whether this call changes files and the same call succeeded earlier in this turn (a
    small model repeated a successful edit after every failing run, the file growing each
    time)."""
    if not changing(tools)(name):
        return False
    wanted = canonical(name, arguments, tools)
    turn = messages[turn_start(messages) :]
    done = {m.call_id for m in turn if isinstance(m, ToolResultMessage) and not m.is_error}
    return any(
        c.id in done and canonical(c.name, c.arguments, tools) == wanted for c in calls_in(turn)
    )


SHRINK_NOTE = (
    "[Foehn] write_file replaces the whole file, and that content is a small part of what the "
    "file has: everything else would be lost. To change part of a file, edit_file it (old_text "
    "the lines to change, new_text those lines changed)."
)


def shrinks(step: Mapping[str, object], seen: Mapping[str, Sequence[str]]) -> bool:
    """Whether ``step`` writes a whole file the conversation has read with fewer than half the
    lines it has shown of it (asked to add a keyword argument to one function, a small model
    wrote that function alone over a module of a thousand lines)."""
    arguments = step.get("arguments")
    if step.get("tool") != WRITE_TOOL or not isinstance(arguments, Mapping):
        return False
    path, content = arguments.get("path"), arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return False
    shown = sum(run.count("\n") + 1 for run in seen.get(path.removeprefix("./"), ()))
    return content.count("\n") + 1 < shown / 2


DOUBLED_NOTE = (
    "[Foehn] That edit only adds again what the lines next to it already have: the code would "
    "do the same. The last change did not fix the failure; change a line the run points to "
    "(the line the value came from, or what it uses) in another way."
)


def doubles(
    step: Mapping[str, object],
    seen: Mapping[str, Sequence[str]],
    messages: Sequence[Message],
) -> bool:
    """Whether ``step`` is an edit whose every change only inserts, next to itself, text an
    earlier edit of this turn added (as the conversation saw the code): after failing runs the
    model wrote ``or isinstance(seq, str)`` onto the line its last edit had lengthened so, and
    an ``except StopIteration:`` block under the one it had added, three times each (toolz
    ``nth`` and ``peek``), the file growing and the test failing the same way. Text inserted
    next to itself for the first time may be the fix (a second ``next(t3, None)``)."""
    arguments = step.get("arguments")
    if step.get("tool") != EDIT_TOOL or not isinstance(arguments, Mapping):
        return False
    path, edits = arguments.get("path"), arguments.get("edits")
    if not isinstance(path, str) or not isinstance(edits, list) or not edits:
        return False
    runs = seen.get(path.removeprefix("./"), ())
    added = _added(messages)
    for edit in edits:
        inserted = _doubled(edit, runs) if isinstance(edit, Mapping) else None
        if inserted is None or not any(inserted.strip() in text for text in added):
            return False
    return True


def _doubled(edit: Mapping[str, object], runs: Sequence[str]) -> str | None:
    """The text ``edit`` only inserts, when the code around it (in ``runs``) already has that
    text right before or after where it goes; else ``None``."""
    old, new = edit.get("old_text"), edit.get("new_text")
    if not isinstance(old, str) or not isinstance(new, str) or not old or len(new) <= len(old):
        return None
    kept = 0
    while kept < len(old) and old[kept] == new[kept]:
        kept += 1
    tail = len(old) - kept
    if new[len(new) - tail :] != old[kept:]:
        return None  # not an insertion alone
    inserted = new[kept : len(new) - tail]
    if not inserted.strip():
        return None
    for run in runs:
        at = run.find(old)
        if at >= 0:
            before, after = run[: at + kept], run[at + kept :]
            return inserted if before.endswith(inserted) or after.startswith(inserted) else None
    return None


def _added(messages: Sequence[Message]) -> list[str]:
    """The new_text of each edit this turn made (that succeeded)."""
    turn = messages[turn_start(messages) :]
    done = {m.call_id for m in turn if isinstance(m, ToolResultMessage) and not m.is_error}
    added: list[str] = []
    for call in calls_in(turn):
        if call.name != EDIT_TOOL or call.id not in done:
            continue
        try:
            edits = json.loads(call.arguments or "{}").get("edits")
        except (json.JSONDecodeError, AttributeError):
            continue
        for edit in edits if isinstance(edits, list) else []:
            if isinstance(edit, dict) and isinstance(edit.get("new_text"), str):
                added.append(edit["new_text"])
    return added


ANNOUNCED_NOTE = (
    "[Foehn] That answer says what you will do, and the turn ends with the answer: do it now "
    "with a tool call (edit_file to change code, rename to rename, run_tests to run the "
    "tests), and answer once it is done."
)
_ANNOUNCES = re.compile(
    r"\b(?:I will|I'll|I am going to|I'm going to|let me|next,? I)\s+(?:now\s+|first\s+)?"
    r"(?:edit|change|fix|update|modify|run|add|rename|remove|delete|make|write|read|correct|"
    r"replace|apply|check|look)\b",
    re.IGNORECASE,
)


def announces(answer: str) -> bool:
    """Whether ``answer`` says what the model will do next ("I will edit the code"), where
    the turn was to end: seen on inflection, a fix's answer that ended so, nothing changed."""
    return bool(_ANNOUNCES.search(answer))


def changes_nothing(step: Mapping[str, object]) -> bool:
    """Whether ``step`` is an edit whose every new_text is its old_text (the tool would refuse
    it; a small model wrote the line it had to fix back unchanged)."""
    arguments = step.get("arguments")
    edits = arguments.get("edits") if isinstance(arguments, Mapping) else None
    return (
        step.get("tool") == EDIT_TOOL
        and isinstance(edits, list)
        and bool(edits)
        and all(isinstance(e, Mapping) and e.get("old_text") == e.get("new_text") for e in edits)
    )


def step_tools(
    messages: Sequence[Message], tools: Sequence[ToolDefinition]
) -> list[ToolDefinition]:
    """The tools a step is offered. Right after a failing test run, all but write_file: the
    fix is an edit of the code the run showed; offered write_file there, the model wrote the
    run's own text over the module it had to fix. ``rename`` and ``delete_path`` only in a turn
    the person asked for that (``ASKED_FOR``): offered rename in fixes, the model renamed the
    function a failing test calls (``is_uuid``, ``humanize``) instead of fixing it; offered
    delete_path, it tried to delete the module whose test failed (boltons ``strutils.py``; the
    test-driven rule refused it, and the step was lost); ``move_path`` and ``make_directory``
    likewise (asked to change a default in the code and the README, it made a folder ``cli``
    and moved the README into it: bench ta-bergen). Right after an applied change whose
    result ends with what it left behind (a ``[Foehn]`` note: a version still given, an old
    name still used), not write_file either: offered it there, the model wrote the result, its
    diff and note, as the whole of the file it had just edited (bench: mo-version,
    pa-release)."""
    start = turn_start(messages)
    asked = _NAMES.sub(" ", str(messages[start - 1].content)) if start else ""
    offered = [
        t for t in tools if t.name not in ASKED_FOR or ASKED_FOR[t.name].search(asked) is not None
    ]
    if deleted_all_named(messages):
        offered = [t for t in offered if t.name != DELETE_TOOL]
    last = last_result(messages)
    if isinstance(last, ToolResultMessage) and last.name == TESTS_TOOL and last.is_error:
        return [t for t in offered if t.name != WRITE_TOOL]
    if (
        isinstance(last, ToolResultMessage)
        and not last.is_error
        and changing(tools)(last.name)
        and "\n[Foehn] " in last.content
    ):
        return [t for t in offered if t.name != WRITE_TOOL]
    return offered


def deleted_all_named(messages: Sequence[Message]) -> bool:
    """Whether the person's request for this turn names files (``src/pls.py``, ``pls.py``)
    and this turn's delete_path calls have deleted each of them. Seen (bench: dr-dead-pls):
    asked to delete a module and the import that still pulled it in, the model deleted the
    module, then the whole file with the import."""
    start = turn_start(messages)
    named = _FILE_NAMED.findall(_asked(str(messages[start - 1].content))) if start else []
    if not named:
        return False
    calls = {c.id: c for c in calls_in(messages[start:])}
    deleted = [
        str(arguments_of(calls[m.call_id]).get("path", "")).removeprefix("./")
        for m in messages[start:]
        if isinstance(m, ToolResultMessage)
        and m.name == DELETE_TOOL
        and not m.is_error
        and m.call_id in calls
    ]
    return all(any(path == name or path.endswith(f"/{name}") for path in deleted) for name in named)


DELETE_TOOL = "delete_path"
_FILE_NAMED = re.compile(r"(?<![\w./-])(?:[\w.-]+/)*[A-Za-z_][\w-]*\.[A-Za-z]\w*\b(?!\.?[\w/(])")
"""A file a request names: a path or a file name with an extension that starts with a letter
(not ``0.6.0``), not part of a longer dotted name or a call (not ``os.path.join(``)."""


NEXT_STEPS: dict[str, Sequence[tuple[str, str]]] = {
    "run_tests": (
        ("edit_file", "edit_file the code its failure names"),
        ("read_symbol", "read_symbol a function it names if you need its text first"),
    ),
    "read_file": (
        ("edit_file", "edit_file to change what it shows"),
        ("read_file", "read_file with another offset for other lines"),
    ),
    "read_symbol": (
        ("edit_file", "edit_file to change it"),
        ("read_file", "read_file the file for the code around it"),
    ),
    "search": (
        ("read_file", "read_file a file it found"),
        ("search", "search for another pattern"),
    ),
    "scan": (
        ("read_file", "read_file a file it lists"),
        ("search", "search for text inside the files"),
    ),
    "git": (("read_file", "read_file a file it names"),),
    "edit_file": (
        ("read_file", "read_file the file again and copy old_text from what it shows"),
        ("read_symbol", "read_symbol the definition to change"),
    ),
    "write_file": (("read_file", "read_file the file, then edit_file it"),),
    PROGRAM_TOOL: (
        ("read_file", "read_file the code its output names"),
        ("edit_file", "edit_file the code to change what it does"),
    ),
}
"""What to do after each tool instead of calling it again: (a tool the step needs, the words)."""


def repeated_note(tool: str, offered: Sequence[ToolDefinition], *, may_answer: bool) -> str:
    """The note for a call identical to one made since the workspace last changed (``tool``:
    ``run_tests`` for any test run)."""
    names = {t.name for t in offered}
    steps = [words for needed, words in NEXT_STEPS.get(tool, ()) if needed in names]
    if tool == TESTS_TOOL and "edit_file" in names:
        steps.append(f"then {TESTS_TOOL} again")
    if may_answer:
        steps.append("or answer with what you found")
    then = "; ".join(steps) if steps else "call another tool"
    if tool == PROGRAM_TOOL:
        said = (
            f"{tool} with these arguments ran already, and nothing that could change what it "
            "shows has happened since"
        )
    elif tool == TESTS_TOOL:
        said = "The tests ran already and no file has changed since"
    else:
        said = f"{tool} with these arguments ran already and no file has changed since"
    return f"[Foehn] {said}, so it would show the same. Next: {then}."
