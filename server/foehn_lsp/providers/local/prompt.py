"""The conversation re-told in a form a small model follows reliably.

A system prompt lists the tools and the rules that fix its usual misses; example exchanges
follow as real chat turns (single calls, a plain answer, and multi-step episodes: find then
read, read then edit a line or a whole function, run a failing test, fix the code its result
shows, run it again); then the
conversation, with tool results as user turns. The model replies with one JSON object, a tool
call or an answer.

Everything up to the conversation (``fixed_messages``) is identical on every step and every
turn of every session with the same catalogue, so llama.cpp computes it once and the engine
saves it for the next process. It does not depend on the tools a step offers (a wrap-up or a
guard offers fewer): the step's schema narrows what may be chosen.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from foehn_lsp.providers.effects import PROGRAM_TOOL, TESTS_TOOL, ran
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)

ChatMessage = dict[str, str]

SYSTEM_PROMPT = """\
You are Foehn, a coding assistant working inside a project folder that you cannot see. Reply \
with exactly one JSON object and nothing else:
- to use a tool: {{"tool": "<name>", "arguments": {{...}}}}
- to finish: {{"answer": "<your answer for the person>"}}
Rules:
- Any question about the project's files needs a tool first. Use one tool per reply.
- scan and search show only names and matching lines: to tell what a file says, read_file it.
- A name is defined on the line with def, function or class before it (a search result that \
shows that line tells where); calls and imports only use it.
- File names you guess may be wrong: if a tool finds nothing, scan to see the real names.
- To change an existing file, even to add a line at its end, read_file it and then use \
edit_file. To add a line, old_text is the line before it and new_text is that line and the \
new one. To change code inside a short function, old_text is the whole function and new_text \
the whole new function; in a long one, old_text is the one to three lines to change and \
new_text those lines changed; each line with its indentation, and new_text never the same as \
old_text. write_file is for new files. After \
changing code, run_tests if there are tests.
- When a task names a failing test or says tests fail, run_tests first, with that test in \
paths: its result shows the test, the traceback and the code it runs. Fix that code with \
edit_file, then run_tests again. Change a test only if asked to.
- To tell what code returns or prints, run it: run_command with ["python", "-c", "import \
<its module>; print(repr(<the code as the task writes it>))"], and answer with what it printed.
- To change a function or class the task names, read_symbol it (its file and name) first.
- To rename a function, class or variable, call rename with its name and new_name: one call \
changes its definition and every use in every file.
- A version number is text in files: search for it, then edit_file each file that has it. git \
only reads (git log -1 --stat shows what the last commit changed); never use it to change files.
- Say that you changed something only after the tool that changed it succeeded.
- The answer is for the person: one or two sentences that answer the question with the names \
and values you found. Never copy the tool output or these rules into the answer.

Tools:
{tools}"""

RESULT_NOTE = "Reply with the next tool call, or with the answer if you have it."

SINGLE_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    # (request, tool, arguments); skipped when the catalogue lacks the tool
    ("Which files are in the docs folder?", "scan", {"path": "docs"}),
    ("Show me the first lines of setup.cfg", "read_file", {"path": "setup.cfg", "limit": 40}),
    ("List the Markdown files", "scan", {"pattern": "*.md"}),
    ("What did the last commit change?", "git", {"args": ["log", "-1", "--stat"]}),
    ("Rename parse_row to read_row", "rename", {"name": "parse_row", "new_name": "read_row"}),
    (
        "Create notes/todo.txt containing buy milk",
        "write_file",
        {"path": "notes/todo.txt", "content": "buy milk\n"},
    ),
]
PLAIN_ANSWERS = [
    ("What is 7 times 6?", "7 times 6 is 42."),
    ("Say hello", "Hello! How can I help?"),
]

Step = tuple[str, dict[str, Any], str]
"""(tool, arguments, its result)."""

EPISODES: list[tuple[str, list[Step], str]] = [
    # (request, steps, answer); skipped unless the catalogue has all the steps' tools
    (
        "Where is parse_header defined?",
        [
            (
                "search",
                {"pattern": "parse_header"},
                "3 matches for text 'parse_header' in 2 files:\nweb/client.py\n     3: from "
                "web.headers import parse_header\n    40:     fields = parse_header(raw)\n"
                "web/headers.py\n    12: def parse_header(line):",
            ),
        ],
        "parse_header is defined in web/headers.py, line 12.",
    ),
    (
        "List the shell scripts and tell me which one uses curl",
        [
            ("scan", {"pattern": "*.sh"}, "2 entries under .:\nbin/fetch.sh\nbin/clean.sh"),
            (
                "search",
                {"pattern": "curl", "glob": "*.sh"},
                "1 matches for text 'curl' in 1 files:\nbin/fetch.sh\n     4: curl -O $URL",
            ),
        ],
        "The shell scripts are bin/fetch.sh and bin/clean.sh; bin/fetch.sh uses curl (line 4).",
    ),
    (
        "What timeout does the HTTP client use?",
        [
            (
                "search",
                {"pattern": "timeout"},
                "1 matches for text 'timeout' in 1 files:\nnet/client.go\n    12: "
                "Timeout: defaultTimeout,",
            ),
            (
                "read_file",
                {"path": "net/client.go"},
                "net/client.go: lines 1-14 of 14\n     1\tpackage net\n     2\t\n     3\t"
                "const defaultTimeout = 30 * time.Second\n    12\t\tTimeout: defaultTimeout,",
            ),
        ],
        "The HTTP client in net/client.go uses a 30-second timeout (defaultTimeout).",
    ),
    (
        "Add the line lint at the end of tasks.txt",
        [
            (
                "read_file",
                {"path": "tasks.txt"},
                "tasks.txt: lines 1-2 of 2\n     1\tbuild\n     2\ttest",
            ),
            (
                "edit_file",
                {"path": "tasks.txt", "edits": [{"old_text": "test", "new_text": "test\nlint"}]},
                "edit tasks.txt (1 block)",
            ),
        ],
        "I added the line lint at the end of tasks.txt.",
    ),
    (
        "What does the Changelog say about 1.2?",
        [
            (
                "scan",
                {"pattern": "Changelog"},
                "no entries under . (recursive, pattern 'Changelog'); names like it: CHANGELOG.md",
            ),
            (
                "read_file",
                {"path": "CHANGELOG.md"},
                "CHANGELOG.md: lines 1-4 of 4\n     1\t# Changes\n     2\t## 1.2\n     3\t"
                "- Faster startup\n     4\t## 1.1",
            ),
        ],
        "According to CHANGELOG.md, version 1.2 made startup faster.",
    ),
    (
        "What does text_tools.title_case('an owl') return?",
        [
            (
                "run_command",
                {
                    "command": [
                        "python",
                        "-c",
                        "import text_tools; print(repr(text_tools.title_case('an owl')))",
                    ]
                },
                "$ python -c 'import text_tools; print(repr(text_tools.title_case('\\''an "
                "owl'\\'')))'\n(in .; exit 0; 0.1 s)\n'An Owl'",
            ),
        ],
        "text_tools.title_case('an owl') returns 'An Owl'.",
    ),
    (
        "Give greet in greeting.py a keyword argument punctuation that defaults to !",
        [
            (
                "read_symbol",
                {"path": "greeting.py", "name": "greet"},
                "greeting.py: greet (function), lines 4-5 of 9; its exact text:\n"
                'def greet(name):\n    return "Hello, " + name + "!"',
            ),
            (
                "edit_file",
                {
                    "path": "greeting.py",
                    "edits": [
                        {
                            "old_text": 'def greet(name):\n    return "Hello, " + name + "!"',
                            "new_text": 'def greet(name, punctuation="!"):\n    return '
                            '"Hello, " + name + punctuation',
                        }
                    ],
                },
                "edit greeting.py (1 block)",
            ),
        ],
        "greet in greeting.py now takes punctuation, which defaults to !, and ends the greeting "
        "with it.",
    ),
    (
        "Fix the bug behind tests/test_bounds.py::test_mid",
        [
            (
                "run_tests",
                {"paths": ["tests/test_bounds.py::test_mid"]},
                "$ python -m pytest -- tests/test_bounds.py::test_mid\n(in .; exit 1; 0.4 s)\n"
                "1 failed in 0.05s\n1 failing:\n  tests/test_bounds.py::test_mid - assert 10 "
                "== 5\nThe first failure, tests/test_bounds.py::test_mid, from the test to "
                "where it failed:\n  tests/test_bounds.py:8 in test_mid: assert clamp(5, 0, 10) "
                "== 5\n  E assert 10 == 5\ntest_mid, the failing test:\ntests/test_bounds.py: "
                "lines 7-8 of 8\n     7\tdef test_mid():\n     8\t    assert clamp(5, 0, 10) "
                "== 5\nclamp, which the test calls:\nbounds.py: lines 1-7 of 7\n     1\tdef "
                'clamp(value, low, high):\n     2\t    """Value, kept between low and high."""\n'
                "     3\t    if value < low:\n     4\t        return low\n     5\t    if value "
                "> low:\n     6\t        return high\n     7\t    return value\nFix the code "
                'above with edit_file, then run_tests with paths ["tests/test_bounds.py::test_mid"]'
                " first.",
            ),
            (
                "edit_file",
                {
                    "path": "bounds.py",
                    "edits": [
                        {"old_text": "    if value > low:", "new_text": "    if value > high:"}
                    ],
                },
                "edit bounds.py (1 block)",
            ),
            (
                "run_tests",
                {"paths": ["tests/test_bounds.py::test_mid"]},
                "$ python -m pytest -- tests/test_bounds.py::test_mid\n(in .; exit 0; 0.4 s)\n"
                "1 passed in 0.04s",
            ),
        ],
        "clamp in bounds.py compared value with low where it meant high; I fixed that line and "
        "test_mid passes.",
    ),
]

EXAMPLE_NAMES = frozenset(
    {
        "bin/fetch.sh",
        "bin/clean.sh",
        "net/client.go",
        "tasks.txt",
        "notes/todo.txt",
        "parse_header",
        "bounds.py",
        "test_bounds.py",
        "Faster startup",
        "title_case",
        "text_tools",
        "greeting.py",
        "web/headers.py",
        # An example's request: "The files in the docs folder are README.md and
        # CONTRIBUTING.md. …" was a whole fix task's answer (bench: ns-mi-roundrobin).
        "docs folder",
    }
)
"""Names that exist only in the examples: an answer naming one the conversation never
mentioned is copying the examples, not answering."""
PHRASE_WORDS = 6
"""Words in a row an answer may share with an example's answer before it counts as copying it
(a small model ended a turn that fixed nothing with "... I added that check and all 4 tests
pass.")."""
_WORD = re.compile(r"\w+(?:\.\w+)*")


def _phrases(text: str) -> set[str]:
    words = _WORD.findall(text.lower())
    return {" ".join(words[i : i + PHRASE_WORDS]) for i in range(len(words) - PHRASE_WORDS + 1)}


EXAMPLE_PHRASES = frozenset(
    phrase
    for answer in [*(a for _, a in PLAIN_ANSWERS), *(a for _, _, a in EPISODES)]
    for phrase in _phrases(answer)
)


RAN_AND_FAILED = {
    TESTS_TOOL: "the tests ran and did not all pass",
    PROGRAM_TOOL: "the program ran and failed",
}
"""What a failed result says of a call whose program started; any other failed call did
nothing (refused, invalid, not found). Failing test runs were labelled "it did nothing" after
the edits they had tested (bench: ny-mi-nth-or-last, whose third edit put back its first)."""


def failure(result: ToolResultMessage) -> str:
    """What the label of ``result`` says happened: "" when it did not fail."""
    if not result.is_error:
        return ""
    if result.name in RAN_AND_FAILED and ran(result):
        return RAN_AND_FAILED[result.name]
    return "it did nothing"


def result_text(tool: str, content: str, limit: int, failed: str = "") -> str:
    """A tool's result as the model reads it; ``failed``: what happened, when it failed."""
    if len(content) > limit:
        content = content[:limit] + "\n... (cut: read less at a time, with offset and limit)"
    status = f" (FAILED: {failed}; do what it says)" if failed else ""
    return f"Result of {tool}{status}:\n{content}\n\n{RESULT_NOTE}"


def _signature(name: str, parameters: Mapping[str, Any]) -> str:
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])
    args = []
    for key, spec in properties.items():
        if key in required:
            args.append(key)
        elif isinstance(spec, Mapping) and "default" in spec:
            args.append(f"{key}={json.dumps(spec['default'])}")
        else:
            args.append(f"{key}?")
    return f"{name}({', '.join(args)})"


def _call(tool: str, arguments: Mapping[str, Any]) -> ChatMessage:
    return {"role": "assistant", "content": json.dumps({"tool": tool, "arguments": arguments})}


def fixed_messages(catalogue: Sequence[ToolDefinition], result_limit: int) -> list[ChatMessage]:
    """The rules, the catalogue and the examples that fit it: the start of every request."""
    listing = "\n".join(
        f"- {_signature(t.name, t.parameters)}: {t.description.split('. ')[0].rstrip('.')}."
        for t in catalogue
    )
    names = {t.name for t in catalogue}
    chat = [{"role": "system", "content": SYSTEM_PROMPT.format(tools=listing)}]
    for request, tool, arguments in SINGLE_CALLS:
        if tool in names:
            chat += [{"role": "user", "content": request}, _call(tool, arguments)]
    for request, answer in PLAIN_ANSWERS:
        chat += [
            {"role": "user", "content": request},
            {"role": "assistant", "content": json.dumps({"answer": answer})},
        ]
    for request, steps, answer in EPISODES:
        if not {tool for tool, _, _ in steps} <= names:
            continue
        chat.append({"role": "user", "content": request})
        for tool, arguments, result in steps:
            chat += [
                _call(tool, arguments),
                {"role": "user", "content": result_text(tool, result, result_limit)},
            ]
        chat.append({"role": "assistant", "content": json.dumps({"answer": answer})})
    return chat


def fingerprint(messages: Sequence[ChatMessage]) -> str:
    """The sha256 of ``messages`` as sent (what a saved prompt state was computed from)."""
    return hashlib.sha256(json.dumps(list(messages), sort_keys=True).encode()).hexdigest()


def conversation(messages: Sequence[Message], result_limit: int) -> list[ChatMessage]:
    """The session's messages as the model sees them, after the fixed prompt. The agent's
    system message is left out: it is written for large models, and ours replaces it."""
    chat: list[ChatMessage] = []
    for message in messages:
        match message:
            case SystemMessage():
                continue
            case UserMessage(content=content):
                chat.append({"role": "user", "content": content})
            case AssistantMessage(content=content, tool_calls=calls):
                if calls:
                    call = calls[0]
                    try:
                        arguments = json.loads(call.arguments or "{}")
                    except json.JSONDecodeError:
                        arguments = {}
                    chat.append(_call(call.name, arguments))
                else:
                    chat.append({"role": "assistant", "content": json.dumps({"answer": content})})
            case ToolResultMessage(name=name, content=content):
                text = result_text(name, content, result_limit, failure(message))
                chat.append({"role": "user", "content": text})
    return chat


def note(text: str) -> ChatMessage:
    """A message from the host to the model, in the conversation."""
    return {"role": "user", "content": text}


COPIED_LINES = re.compile(
    r"^\s*(\d+ entries under |\d+\+? matches for |no entries under |no matches for |\s*\d+\t)"
    r"|\S+: lines \d+-\d+ of \d+|^ {2,}\d+ +\S",
    re.MULTILINE,
)
"""A tool result's lines: a read's header (anywhere: "The text is: a.py: lines 1-9 of 9"), its
numbered lines (with the tab, or re-typed with spaces), a listing's or a search's header."""
PROMPT_PIECES = (
    "Result of ",
    RESULT_NOTE[:30],
    "reply with {",
    "Reply with exactly one JSON",
    "You already called",
    "its result is above",
    "no file has changed since",
    "[Foehn]",
    "then run_tests with paths",
    "from the test to where it failed",
    # The loop's budget notes ("[Foehn] 3 tool iterations left in this run. ..."): a small model
    # answered "I have 3 tool iterations left" instead of saying what it had done.
    "tool iteration",
    "tokens left in this run",
    # The guards' notes: "The fix is elsewhere, so I read_symbol the function the traceback
    # names." was a whole answer.
    "The fix is elsewhere",
    "the traceback names",
    "ran already and no file has changed",
    # The tools' own directions: "The file more_itertools/recipes.py has 1471 lines, more than
    # this model's window takes at once. To read more: read_file with around= ..." was a whole
    # fix task's answer (bench: nc-mi-tail), and so was read_file's "… has no line, definition
    # or text 'bytes 334'. … search finds text in every file" (bench: ne-inf-singularize).
    "To read more:",
    "has no line, definition or text",
    "finds text in every file",
    # The repeat guard's next steps ("… so it would show the same. Next: edit_file to change
    # what it shows; or answer with what you found."), copied into an answer (ne-bo-subdict).
    "or answer with what you found",
    "window takes at once",
    "read_symbol shows one definition",
    "Fix the code above",
    "The code the test runs is not shown",
    # The note after a step cut off ("Your last step was cut off: it ran past 512 tokens. …"),
    # as the whole answer: "The last step was cut off; it ran past 512 tokens. I ran the test
    # again." in a turn that ran no test (bench: nk-tz-merge-with).
    "step was cut off",
    # The note after a call that named the examples' files ("… scan or search to find files,
    # run_tests with no paths to run all the tests."), its end as a whole answer (bench:
    # mt-version).
    "run_tests with no paths",
)


def example_names(text: str, conversation_text: str) -> list[str]:
    """The names in ``text`` that only the examples have (``conversation_text`` never says
    them): a call naming one is copying an example, not acting on this project."""
    return [n for n in sorted(EXAMPLE_NAMES) if n in text and n not in conversation_text]


def copies_tool_output_or_prompt(answer: str, conversation_text: str = "") -> bool:
    """Whether ``answer`` is a copy of a tool result's header or numbered lines, carries this
    module's prompt text or the loop's budget notes, or names something only the examples have
    or repeats an example's answer (when ``conversation_text`` does not), rather than an answer
    in words."""
    if COPIED_LINES.search(answer) or any(p in answer for p in PROMPT_PIECES):
        return True
    if example_names(answer, conversation_text):
        return True
    shared = _phrases(answer) & EXAMPLE_PHRASES
    return bool(shared) and bool(shared - _phrases(conversation_text))
