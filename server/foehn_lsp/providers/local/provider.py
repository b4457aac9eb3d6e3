"""``LocalProvider``: the embedded model as a provider like any other.

Each step asks the model for one JSON object (``schema``), over the fixed prompt and the
conversation (``prompt``), on the worker (``engine``); the answer streams as it is written
(``answer``); what is happening while the person waits goes to ``on_status``.

The model is offered the catalogue less ``LEFT_OUT``, tools it misused and does not need. Once
a file has been read, an edit of it can only name text the file has (``seen``). Right after a
failing test run that shows the code under test, the model writes the fix as code in a prompt
of its own, and its changed lines become the step's edit (``repair``).

Host guards (``guards``): a call that names what only the examples have is asked once more; a
call identical to one made since the workspace last changed is not
run again (the model is told what to do next and offered the other tools, or an answer unless
the step must act); right after a failed change the step must be a tool call; after a change
that follows a failed test run, the failing tests run again before anything else, and once
they pass, the files they are in; an answer
that copies tool output, prompt text or the examples is sent back once, and if it copies again
the person gets a plain statement that no answer could be formed, with what the turn changed
and what its last test run showed (``account``), never the copy.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foehn_lsp.config.folders import cache_folder
from foehn_lsp.errors import ProviderProtocolError
from foehn_lsp.providers.effects import PROGRAM_TOOL, TESTS_TOOL
from foehn_lsp.providers.local import repair
from foehn_lsp.providers.local.account import turn_account
from foehn_lsp.providers.local.answer import AnswerStream
from foehn_lsp.providers.local.engine import (
    Engine,
    EngineSettings,
    FixedPrompt,
    PromptProgress,
    engine_for,
)
from foehn_lsp.providers.local.guards import (
    ANNOUNCED_NOTE,
    DOUBLED_NOTE,
    EDIT_TOOL,
    FAILED_RUNS,
    GIVE_UP_NOTE,
    MADE_NOTE,
    PASSED_NOTE,
    SHRINK_NOTE,
    UNCHANGED_NOTE,
    announces,
    changes_nothing,
    doubles,
    example_note,
    failed_after_changes,
    first_program,
    first_run,
    instead_of,
    key,
    made_before,
    must_act,
    passed_after_fix,
    repeated_note,
    rerun_after_change,
    shrinks,
    step_tools,
    unchanged_calls,
    widen_after_pass,
)
from foehn_lsp.providers.local.model import (
    MODEL_NAME,
    MODEL_SHA256,
    ensure_model,
    runtime_version,
)
from foehn_lsp.providers.local.prompt import (
    ChatMessage,
    conversation,
    copies_tool_output_or_prompt,
    example_names,
    fingerprint,
    fixed_messages,
    note,
)
from foehn_lsp.providers.local.schema import step_schema
from foehn_lsp.providers.local.seen import old_text_choices, seen_files
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ModelResponse,
    StatusSink,
    TextSink,
    ToolCall,
    ToolDefinition,
    Usage,
)

WINDOW = 16_384
"""The context window in tokens (see README: 8k, 16k and 32k measured on 2 cores)."""
BATCH = 256
"""Prompt tokens computed per step."""
RATE_EVERY = 1.0
"""Seconds between two tokens-per-second reports."""
READ_REPORTED = 256
"""New prompt tokens from which reading the prompt is reported."""

STRENGTHS = (
    "good at finding and reading files, small fixes inside one function and one-line changes "
    "in one or two files; for renames across files, new code with its tests or a bug it has "
    "to find first, use a larger model (FOEHN_PROVIDER, or a local server such as Ollama)"
)
"""What the header says the model is for (README: measured with bench/bench_effectiveness.py
and bench/bench_local.py)."""

LEFT_OUT = frozenset({"todo", "outline", "investigate", "create_repository", "fetch"})
"""Tools this model is never offered: left out of its fixed prompt and of every step's schema,
so the grammar cannot name them. On bench/bench_effectiveness.py plain (17 of 24 right) it
called outline where a listing or a definition's place was asked (py-list, py-deps,
js-slugify) and todo with no items for "which file has a TODO" (py-todo); on ms-rename it made
only outline and read_symbol calls. Its tasks need none of them: scan lists, search finds a
definition, read_symbol and read_file read it, and a plan of several steps or a sub-run
(investigate) is work for a larger model. Without them the fixed prompt, read once per machine,
is 2,094 tokens instead of 2,212 (foehn run's catalogue; 2,170 without investigate). On
bench/bench_tasks.py it called create_repository twice in a task that asked to fix a failing
test (the path it gave run_tests was wrong); none of its tasks makes a repository. ``fetch``
is left out too: the embedded model is the offline one."""

NO_ANSWER = (
    "The local model could not put what it found into words. Ask again more specifically, "
    "or use a larger model (FOEHN_PROVIDER)."
)


def no_answer(account: str) -> str:
    """The turn's end when the model's answer copied what it was shown, twice: ``NO_ANSWER``,
    with ``account`` (``turn_account``: what the turn changed and its last test run showed)
    between its two sentences."""
    could_not, ask = NO_ANSWER.split(". ", 1)
    return f"{could_not}. {account} {ask}" if account else NO_ANSWER


_Decide = Callable[[dict[str, Any], Usage], Awaitable[tuple[dict[str, Any], Usage]]]
"""One constrained step held to a schema, its usage added to what was spent before."""


@dataclass(frozen=True, kw_only=True)
class StepTiming:
    """One request to the model, timed here."""

    first_token: float
    """Seconds from the request to its first generated token: loading the model, restoring
    or reading the fixed prompt, and reading what is new, if any of those were needed."""
    total: float
    prompt_tokens: int
    cached_tokens: int
    """Prompt tokens llama.cpp reused from its cache instead of processing again."""
    generated: int
    tokens_per_second: float


def offered(tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
    """The tools of ``tools`` this model is offered: all but ``LEFT_OUT``."""
    return [t for t in tools if t.name not in LEFT_OUT]


REPEATS = 4
"""Identical lines in a row that stop a step: on a one-line edit the embedded model wrote one
line of code again and again until the token cap (2,048 tokens, 135 s on 2 cores)."""


REPEATED_NOTE = (
    "Your last step began writing the same line again and again. Write each line once: in an "
    "edit, new_text is old_text with only the change made."
)
CUT_NOTE = (
    "Your last step was cut off: it ran past {cap} tokens. Reply with one tool call whose "
    "arguments are short (edit_file changes only the lines that must change) or a short answer."
)
REPEATED = (
    "the local model began writing the same line again and again and was stopped; ask for one "
    "small change at a time, or use a larger model (FOEHN_PROVIDER)"
)


def repeating(text: str) -> bool:
    """Whether the last ``REPEATS`` whole lines of ``text`` (a step's JSON so far, where a line
    ends in an escaped newline) are one line of at least a dozen characters."""
    lines = text.split("\\n")[:-1]  # the last piece may still be being written
    last = lines[-REPEATS:]
    return len(last) == REPEATS and len(set(last)) == 1 and len(last[0].strip()) >= 12


_TOOL_NAMED = re.compile(r'^\s*\{\s*"tool"\s*:\s*"(\w+)"')


def _writing(step: _Step) -> str:
    """What a step cut off was writing ("writing a call to edit_file", "writing an answer"),
    as its answer stream told the two apart."""
    if step.answer.kind == "answer":
        return "writing an answer"
    named = _TOOL_NAMED.match("".join(step.parts))
    return f"writing a call to {named[1]}" if named is not None else "writing"


@dataclass
class _Step:
    """One request's reply as it arrives."""

    answer: AnswerStream
    spent: Usage
    """What the turn's step had spent before this request."""
    reading: PromptProgress
    parts: list[str] = field(default_factory=list)
    usage: Usage = field(init=False)
    """What the turn's step has spent with this request."""
    started: float = field(default_factory=time.perf_counter)
    first: float | None = None
    finish: str | None = None
    timings: Mapping[str, Any] | None = None
    rate_shown: float = 0.0
    repeated: bool = False
    conversation: bool = True
    """Whether the request holds the conversation (not the fix written as code)."""

    def __post_init__(self) -> None:
        self.usage = self.spent

    def content(self, chunk: Mapping[str, Any]) -> str:
        """What ``chunk`` adds to the reply's text (noting the prompt read, the timings, the
        usage, the finish reason and the time of the first token on the way)."""
        if self.reading.chunk(chunk):
            return ""
        if isinstance(chunk.get("timings"), Mapping):
            self.timings = chunk["timings"]
        if isinstance(chunk.get("usage"), Mapping):
            self.usage = _add(self.spent, chunk["usage"], conversation=self.conversation)
        choices = chunk.get("choices") or []
        if not choices or not isinstance(choices[0], Mapping):
            return ""
        self.finish = choices[0].get("finish_reason") or self.finish
        content = (choices[0].get("delta") or {}).get("content")
        if not content:
            return ""
        if self.first is None:
            self.first = time.perf_counter()
        return str(content)


class LocalProvider:
    """The embedded model. The model is loaded on first use in a worker process shared by
    every provider in this process, and stays loaded for the life of the process."""

    def __init__(
        self,
        *,
        model_path: Path | None = None,
        window: int = WINDOW,
        batch: int = BATCH,
        states: Path | None = None,
        command: Sequence[str] = (),
        model_sha256: str = MODEL_SHA256,
        runtime: str | None = None,
    ) -> None:
        """``model_path``, ``command``, ``model_sha256`` and ``runtime`` default to the
        embedded model in the cache, its worker, its hash and the installed runtime's version;
        tests give their own to run a stand-in worker."""
        self.name = "local"
        self.model = MODEL_NAME
        self.window = window
        self._model_path = model_path
        self._batch = batch
        self._states = states
        self._command = tuple(command)
        self._model_sha256 = model_sha256
        self._runtime = runtime
        self._catalogue: Sequence[ToolDefinition] = ()
        self._calls = 0
        self.result_limit = window // 2
        """Characters of a tool result the model reads (about a sixth of the window)."""
        self.max_tokens = min(512, window // 32)
        """Tokens one step may write (512 in the 16k window; no step of a bench task that
        ended right wrote more than 82, and no step that was not cut more than about 330).
        At 2,048 a step that went on writing (no line repeated, so no ``repeating`` stop)
        took the rest of a task's 300 s on 2 cores (bench/bench_tasks.py: bo-indent,
        inf-cannot); at 1,024 it still took 130-150 s and ended the turn (tz-second,
        bo-indent). Cut here, after about a minute, the step is asked once more with a note
        (``CUT_NOTE``); cut again, the turn ends with the reason."""
        self.timings: list[StepTiming] = []
        """Every request this provider made, in order (for benchmarks)."""

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the next session in this process."""

    async def engine(self) -> Engine:
        """The engine for this model and these settings (assembling and verifying the model
        file the first time, in a thread: it takes seconds)."""
        path = self._model_path
        if path is None:
            path = self._model_path = await asyncio.to_thread(ensure_model)
        return engine_for(
            EngineSettings(
                model=path,
                model_sha256=self._model_sha256,
                runtime=self._runtime or runtime_version(),
                window=self.window,
                batch=self._batch,
                states=self._states or cache_folder() / "prompt-states",
                command=self._command,
            )
        )

    async def prepare(
        self, tools: Sequence[ToolDefinition], on_status: StatusSink | None = None
    ) -> None:
        """Load the model and put the fixed prompt for ``tools`` in place now, rather than at
        the first step."""
        engine = await self.engine()
        await engine.start(fixed=self.fixed_prompt(tools), on_status=on_status or (lambda _: None))

    def fixed_prompt(self, tools: Sequence[ToolDefinition]) -> FixedPrompt:
        """The fixed prompt for the whole catalogue seen so far (less ``LEFT_OUT``): a step
        that offers fewer tools (a wrap-up, a guard) keeps the same start, so its state is
        reused."""
        tools = offered(tools)
        if tools:
            self._catalogue = tools
        messages = fixed_messages(self._catalogue or tools, self.result_limit)
        return FixedPrompt(messages=tuple(messages), sha256=fingerprint(messages))

    def chat_messages(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> list[ChatMessage]:
        """The conversation as the model sees it: the fixed prompt, then the messages."""
        fixed = self.fixed_prompt(tools)
        return [*map(dict, fixed.messages), *conversation(messages, self.result_limit)]

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
        on_status: StatusSink | None = None,
    ) -> ModelResponse:
        tools = offered(tools)  # the schemas, the guards and the fixed prompt see only these
        fixed = self.fixed_prompt(tools)
        chat = conversation(messages, self.result_limit)
        said = "\n".join(m["content"] for m in chat)
        status = on_status or (lambda _: None)
        shown = on_text if stream and on_text is not None else None
        rerun = first_run(messages, tools)
        if rerun is None:
            rerun = rerun_after_change(messages, tools)
        if rerun is None:
            rerun = widen_after_pass(messages, tools)
        if rerun is not None:
            return self._call("run_tests", rerun, Usage())
        if (program := first_program(messages, tools)) is not None:
            return self._call(PROGRAM_TOOL, program, Usage())
        catalogue = tools
        spent = Usage()

        def account() -> str:
            return turn_account(messages, catalogue)

        async def decide(schema: dict[str, Any], spent: Usage) -> tuple[dict[str, Any], Usage]:
            step, usage = await self._decide(fixed, chat, schema, spent, said, shown, status)
            if step.get("cut") and not step["shown"]:
                # Written past the cap, and none of it shown as an answer: asked once more.
                chat.append(note(CUT_NOTE.format(cap=self.max_tokens)))
                step, usage = await self._decide(fixed, chat, schema, usage, said, shown, status)
            if step.get("cut"):
                raise ProviderProtocolError(
                    f"the local model's reply was cut off at {self.max_tokens} tokens "
                    f"({step['writing']}); ask for something smaller (a shorter file, one "
                    "change at a time)"
                )
            return step, usage

        if tools and (failed := failed_after_changes(messages, catalogue)) >= FAILED_RUNS:
            # The tests failed after this many changes: the step is the answer, with a note.
            chat.append(note(GIVE_UP_NOTE.format(runs=failed)))
            step, usage = await decide(step_schema([], answer_only=True), spent)
            return await self._answer(step, usage, chat, decide, account)
        if tools and passed_after_fix(messages, catalogue):
            chat.append(note(PASSED_NOTE))
            step, usage = await decide(step_schema([], answer_only=True), spent)
            return await self._answer(step, usage, chat, decide, account)
        seen = seen_files(messages, catalogue)
        if (
            any(t.name == EDIT_TOOL for t in tools)
            and (fix := repair.focus(messages))
            and not repair.set_aside(messages)
        ):
            # The fix a failing run calls for, written as code (``repair``).
            reply, spent = await self._write_fix(fix, status)
            fixed_code = repair.edit(fix, reply)
            if (
                fixed_code is not None
                and not made_before(EDIT_TOOL, json.dumps(fixed_code), messages, catalogue)
                and not doubles({"tool": EDIT_TOOL, "arguments": fixed_code}, seen, messages)
            ):
                return self._call(EDIT_TOOL, fixed_code, spent, made_by=repair.FIX_ID)
        files = {path: old_text_choices(runs) for path, runs in seen.items()}
        earlier = unchanged_calls(messages, catalogue)
        tools = step_tools(messages, catalogue)
        acting = must_act(messages, tools)

        def offering(offered: Sequence[ToolDefinition]) -> dict[str, Any]:
            """The step's schema with ``offered`` (none: an answer; a call if it must act)."""
            return step_schema(
                offered, answer_only=not offered, tools_only=acting and bool(offered), files=files
            )

        schema = offering(tools)
        step, usage = await decide(schema, spent)
        if step.get("repeated"):
            # Stopped while writing one line again and again: asked once more, with a note.
            chat.append(note(REPEATED_NOTE))
            step, usage = await decide(schema, usage)
            if step.get("repeated"):
                raise ProviderProtocolError(REPEATED)
        if "tool" in step and (copied := example_names(json.dumps(step["arguments"]), said)):
            # Names from the examples (a test run of tests/test_bounds.py::test_mid when the
            # task named no test): asked once more, with a note.
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(example_note(copied))]
            step, usage = await decide(schema, usage)

        def repeats(step: dict[str, Any]) -> str | None:
            """What ``step`` repeats (``key``) of the calls made since the workspace last
            changed, if it is one of them."""
            if "tool" not in step:
                return None
            repeat = key(step["tool"], json.dumps(step["arguments"]), tools)
            return repeat if repeat in earlier else None

        async def refuse_repeat(
            step: dict[str, Any], repeat: str, usage: Usage
        ) -> tuple[dict[str, Any], Usage]:
            """An identical call since the workspace last changed would show the same: the other
            tools are offered (and, unless the step must act, an answer) for the rest of the
            step (asked again by a later guard, the model made the same call once more)."""
            nonlocal tools, schema
            said_tool = TESTS_TOOL if repeat == TESTS_TOOL else step["tool"]
            tools = instead_of(step["tool"], json.dumps(step["arguments"]), tools)
            chat.append(note(repeated_note(said_tool, tools, may_answer=not acting)))
            schema = offering(tools)
            return await decide(schema, usage)

        if (repeat := repeats(step)) is not None:
            step, usage = await refuse_repeat(step, repeat, usage)
        if "tool" in step and made_before(
            step["tool"], json.dumps(step["arguments"]), messages, catalogue
        ):
            # The same change again: asked once more; made again, it is not offered.
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(MADE_NOTE)]
            step, usage = await decide(schema, usage)
            if "tool" in step and made_before(
                step["tool"], json.dumps(step["arguments"]), messages, catalogue
            ):
                others = [t for t in tools if t.name != step["tool"]]
                step, usage = await decide(
                    step_schema(others, answer_only=not others, files=files), usage
                )
        if "tool" in step and shrinks(step, seen):
            # A whole file written with a small part of what it has: asked once more.
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(SHRINK_NOTE)]
            step, usage = await decide(schema, usage)
        if "tool" in step and (changes_nothing(step) or doubles(step, seen, messages)):
            # An edit whose new_text is its old_text, or that only adds again what the code
            # next to it has: asked once more, with what it must be.
            told = UNCHANGED_NOTE if changes_nothing(step) else DOUBLED_NOTE
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(told)]
            step, usage = await decide(schema, usage)
            if "tool" in step and (changes_nothing(step) or doubles(step, seen, messages)):
                # The same again: edit_file is not offered (the model wrote the edit again
                # after each refusal, or the same lines once more after each run).
                others = [t for t in tools if t.name != EDIT_TOOL]
                step, usage = await decide(offering(others), usage)
        if "tool" not in step and tools and announces(str(step.get("answer", ""))):
            # An answer that says what it will do: asked once more, for the call.
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(ANNOUNCED_NOTE)]
            step, usage = await decide(step_schema(tools, tools_only=True, files=files), usage)
        if (repeat := repeats(step)) is not None:
            # A repeat chosen when a later guard asked again (seen: bench ng-tz-peekn, the
            # same failing run again after an edit made twice): refused as the first was.
            step, usage = await refuse_repeat(step, repeat, usage)
        if "tool" in step and made_before(
            step["tool"], json.dumps(step["arguments"]), messages, catalogue
        ):
            # A change made before, chosen when a later guard asked again (seen: bench
            # nm-mi-ilen, ``+ 1`` added, taken out and added once more): that tool is not
            # offered for the rest of the step.
            chat += [{"role": "assistant", "content": json.dumps(step)}, note(MADE_NOTE)]
            others = [t for t in tools if t.name != step["tool"]]
            step, usage = await decide(offering(others), usage)
        if "tool" in step:
            return self._call(str(step["tool"]), step["arguments"], usage)
        return await self._answer(step, usage, chat, decide, account)

    async def _answer(
        self,
        step: dict[str, Any],
        usage: Usage,
        chat: list[ChatMessage],
        decide: _Decide,
        account: Callable[[], str],
    ) -> ModelResponse:
        """The answer ``step`` gave; one that copied what it was shown (and showed nothing of
        it) is sent back once, and copied again it is ``no_answer`` with ``account()``."""
        answer = str(step.get("answer", "")).strip()
        if step.get("copied") and not answer:
            chat += [
                {"role": "assistant", "content": json.dumps({"answer": step.get("text", "")})},
                note(
                    "That copies the tool output or the examples instead of answering. Answer "
                    "the question in your own words, naming the files and values you found."
                ),
            ]
            step, usage = await decide(step_schema([], answer_only=True), usage)
            answer = str(step.get("answer", "")).strip() or no_answer(account())
        return ModelResponse(message=AssistantMessage(content=answer), usage=usage)

    def _call(
        self, name: str, arguments: Any, usage: Usage, *, made_by: str = "local"
    ) -> ModelResponse:
        self._calls += 1
        call = ToolCall(id=f"{made_by}{self._calls:04}", name=name, arguments=json.dumps(arguments))
        return ModelResponse(
            message=AssistantMessage(tool_calls=(call,)), usage=usage, finish_reason="tool_calls"
        )

    async def _decide(
        self,
        fixed: FixedPrompt,
        chat: list[ChatMessage],
        schema: dict[str, Any],
        spent: Usage,
        said: str,
        shown: TextSink | None,
        status: StatusSink,
    ) -> tuple[dict[str, Any], Usage]:
        """One constrained step. The result is the parsed object, or, when the answer turned
        out to copy something, ``{"copied": True, "answer": what was shown, "text": …}``, or,
        when it was stopped for writing one line again and again, ``{"repeated": True}``."""
        engine = await self.engine()
        step = _Step(
            answer=AnswerStream(shown, lambda text: copies_tool_output_or_prompt(text, said)),
            spent=spent,
            reading=PromptProgress(status, "reading the conversation", minimum=READ_REPORTED),
        )

        def on_chunk(chunk: Mapping[str, Any]) -> bool:
            content = step.content(chunk)
            if not content:
                return False
            # Only a chunk that ends a line (an escaped newline, maybe split across two
            # chunks) can complete a repeat: the whole text is joined only then.
            before = step.parts[-1][-1:] if step.parts else ""
            step.parts.append(content)
            if "\\n" in before + content and repeating("".join(step.parts)):
                step.repeated = True
                return True
            stop = step.answer.feed(content)
            if shown is None or step.answer.kind != "answer":  # else the answer itself shows
                doing = {"answer": "answering", "tool": "writing a tool call"}
                self._report_rate(step, status, doing.get(step.answer.kind, "thinking"))
            return stop

        await engine.chat(self._body(fixed, chat, schema), on_chunk, fixed=fixed, on_status=status)
        step.answer.finish()
        self._record(step)
        if step.repeated:
            return {"repeated": True}, step.usage
        if step.answer.copied:
            released = step.answer.released.strip()
            return {"copied": True, "answer": released, "text": step.answer.text}, step.usage
        return self._parsed(step), step.usage

    async def _write_fix(self, fix: repair.Focus, status: StatusSink) -> tuple[str, Usage]:
        """The model's reply to ``repair.request(fix)``, stopped once its code block is
        whole, and its usage, which measures no context window (the request held the
        failing run, not the conversation). The request takes the worker's slot: the engine
        holds the conversation that was in it, and the next step restores that."""
        engine = await self.engine()
        step = _Step(
            answer=AnswerStream(None, lambda _: False),
            spent=Usage(context_tokens=None),
            reading=PromptProgress(status, "reading the failing run", minimum=READ_REPORTED),
            conversation=False,
        )

        def on_chunk(chunk: Mapping[str, Any]) -> bool:
            content = step.content(chunk)
            if not content:
                return False
            step.parts.append(content)
            self._report_rate(step, status, "writing the fix as code")
            return repair.written("".join(step.parts))

        body = {
            "messages": repair.request(fix),
            "temperature": 0,
            "max_tokens": repair.TOKENS,
            "cache_prompt": True,
            "return_progress": True,
            "timings_per_token": True,
            "stream_options": {"include_usage": True},
        }
        await engine.chat(body, on_chunk, on_status=status)
        self._record(step)
        return "".join(step.parts), step.usage

    def _body(
        self, fixed: FixedPrompt, chat: list[ChatMessage], schema: dict[str, Any]
    ) -> dict[str, Any]:
        """The request for one step: the conversation, its reply held to ``schema``."""
        return {
            "messages": [*fixed.messages, *chat],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "cache_prompt": True,
            "return_progress": True,
            "timings_per_token": True,
            "stream_options": {"include_usage": True},
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "step", "schema": schema},
            },
        }

    def _parsed(self, step: _Step) -> dict[str, Any]:
        """The step's reply as an object with an answer or a tool, ``{"cut": True, "writing":
        …, "shown": …}`` when it ran past ``max_tokens`` (and whether the person saw part of it
        as an answer), or a clear error."""
        text = "".join(step.parts)
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            if step.finish == "length":
                return {
                    "cut": True,
                    "writing": _writing(step),
                    "shown": bool(step.answer.released.strip()),
                }
            raise ProviderProtocolError(f"the local model replied {text[:200]!r}") from None
        if not isinstance(parsed, dict) or not ("answer" in parsed or "tool" in parsed):
            raise ProviderProtocolError(f"the local model replied {text[:200]!r}")
        return parsed

    def _report_rate(self, step: _Step, status: StatusSink, doing: str) -> None:
        now = time.perf_counter()
        if now - step.rate_shown < RATE_EVERY:
            return
        step.rate_shown = now
        rate = float((step.timings or {}).get("predicted_per_second") or 0)
        status(f"{doing} · {rate:.1f} tokens/s" if rate else f"{doing}…")

    def _record(self, step: _Step) -> None:
        timings = step.timings or {}
        end = time.perf_counter()
        self.timings.append(
            StepTiming(
                first_token=(step.first or end) - step.started,
                total=end - step.started,
                prompt_tokens=int(timings.get("prompt_n") or 0) + int(timings.get("cache_n") or 0),
                cached_tokens=int(timings.get("cache_n") or 0),
                generated=int(timings.get("predicted_n") or 0),
                tokens_per_second=float(timings.get("predicted_per_second") or 0),
            )
        )


def _add(spent: Usage, usage: Mapping[str, Any], *, conversation: bool) -> Usage:
    """``spent`` and a request's ``usage``; a request with the ``conversation`` is the one the
    context window is measured by (``Usage.context_tokens``), the last of a step."""
    prompt = int(usage.get("prompt_tokens") or 0)
    return Usage(
        input_tokens=spent.input_tokens + prompt,
        output_tokens=spent.output_tokens + int(usage.get("completion_tokens") or 0),
        context_tokens=prompt if conversation else spent.context_tokens,
    )
