"""The embedded model, for real: assembled from its wheels, verified, asked to act, stopped.

Slow on a CPU (the first test pays for reading the fixed prompt once), so marked ``model``;
every wait has a generous timeout and nothing is timed."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from foehn_lsp.agent.execution import TurnExecutor
from foehn_lsp.agent.investigate import investigate_tool, with_investigate
from foehn_lsp.config import Settings
from foehn_lsp.errors import ProviderRequestError
from foehn_lsp.events import ToolResultEvent, TurnEvent
from foehn_lsp.providers.local import (
    MODEL_NAME,
    MODEL_SHA256,
    LocalProvider,
    is_available,
)
from foehn_lsp.providers.local.engine import Engine, EngineSettings, engine_for
from foehn_lsp.providers.local.model import runtime_version
from foehn_lsp.providers.local.schema import step_schema
from foehn_lsp.providers.messages import (
    AssistantMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from foehn_lsp.tools import ToolRegistry
from providers.local.local_fakes import cpu_seconds

pytestmark = [
    pytest.mark.process,
    pytest.mark.model,
    pytest.mark.skipif(not is_available(), reason="foehn-lsp[local] is not installed"),
]
PROBE = Path(__file__).with_name("local_state_probe.py")
LONG = "Write a story of about 300 words about a lighthouse keeper and a storm."


@pytest.fixture(scope="session")
def model_file(model_home: Path) -> Path:
    return model_home / "foehn" / "models" / f"{MODEL_NAME}.gguf"


@pytest.fixture(scope="session")
def provider(model_home: Path, model_file: Path) -> Iterator[LocalProvider]:
    local = LocalProvider(model_path=model_file, states=model_home / "foehn" / "prompt-states")
    yield local
    asyncio.run(_close(local))


@pytest.fixture(scope="session")
def offered(provider: LocalProvider, registry: ToolRegistry) -> list[ToolDefinition]:
    """The catalogue ``foehn run`` offers the model (the tools, then ``investigate``): its
    fixed prompt is the one this group's ``foehn`` processes read, so it is read only once."""
    tool = investigate_tool(
        provider=provider, settings=Settings(), tools=registry, calls=_no_sub_runs
    )
    return with_investigate(registry, tool).definitions()


_WRITES = frozenset({"edit_file", "write_file", "rename"})  # the tools that change a file's text


def _no_sub_runs(tools: ToolRegistry) -> TurnExecutor:
    raise AssertionError("these tests read the catalogue; none calls investigate")


async def _close(local: LocalProvider) -> None:
    (await local.engine()).close()


def _exotic_tool() -> ToolDefinition:
    return ToolDefinition(
        name="mcp__notes__find",
        description="Find notes by a query.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "pattern": "^(?=\\w)"},
                "filter": {"$ref": "https://example.com/filter.json"},
            },
            "required": ["query"],
        },
    )


async def test_every_step_parses_names_a_real_tool_and_the_next_step_reuses_the_cache(
    provider: LocalProvider, offered: list[ToolDefinition]
) -> None:
    tools = offered
    by_name = {t.name: t for t in tools}
    asked = [
        "What is 2 + 2?",
        "Where is the Store class defined?",
        "Create docs/notes.md saying hello",
        "Run the tests",
        "Replace foo with bar in setup.cfg",
        "list the Python files",
    ]
    answered = {}
    for question in asked:
        response = await provider.complete([UserMessage(content=question)], tools)
        for call in response.message.tool_calls:
            assert call.name in by_name
            jsonschema.validate(json.loads(call.arguments), by_name[call.name].parameters)
        assert response.message.tool_calls or response.message.content
        answered[question] = response.message
    assert "4" in answered["What is 2 + 2?"].content
    # The last question's next step: what the model read for the step before comes from
    # llama.cpp's cache (the fixed prompt, the question, its call).
    [scan] = answered["list the Python files"].tool_calls
    assert scan.name == "scan"
    await provider.complete(
        [
            UserMessage(content="list the Python files"),
            AssistantMessage(tool_calls=(scan,)),
            ToolResultMessage(call_id=scan.id, name="scan", content="1 entries under .:\napp.py"),
        ],
        tools,
    )
    later = provider.timings[-1]
    assert later.cached_tokens >= 0.8 * later.prompt_tokens


async def test_a_tool_schema_the_grammar_compiler_refuses_still_gets_a_call(
    model_file: Path, tmp_path: Path
) -> None:
    engine = _small_engine(model_file, tmp_path)
    tool = _exotic_tool()
    question = [{"role": "user", "content": 'Call mcp__notes__find with query "deploy".'}]
    replies: list[str] = []

    def chunk(data: Mapping[str, Any]) -> bool:
        replies.extend((c.get("delta") or {}).get("content") or "" for c in data["choices"])
        return False

    def body(schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "messages": question,
            "max_tokens": 60,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "s", "schema": schema},
            },
        }

    try:
        raw = {
            "anyOf": [{"properties": {"tool": {"const": tool.name}, "arguments": tool.parameters}}]
        }
        with pytest.raises(ProviderRequestError, match="unsupported"):
            await engine.chat(body(raw), chunk)
        await engine.chat(body(step_schema([tool], tools_only=True)), chunk)
    finally:
        engine.close()
    step = json.loads("".join(replies))
    assert step["tool"] == tool.name
    assert isinstance(step["arguments"]["query"], str)


def _small_engine(model_file: Path, states: Path) -> Engine:
    return engine_for(
        EngineSettings(
            model=model_file,
            model_sha256=MODEL_SHA256,
            runtime=runtime_version(),
            window=2048,
            batch=64,
            states=states,
        )
    )


def _probe(model_file: Path, states: Path, sha256: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(model_file), str(states), sha256],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_saved_prompt_state_is_used_by_the_next_process_and_refused_for_another_model(
    model_file: Path, tmp_path: Path
) -> None:
    first = _probe(model_file, tmp_path, MODEL_SHA256)
    assert any(s.startswith("reading the prompt (first run only)") for s in first["statuses"])
    second = _probe(model_file, tmp_path, MODEL_SHA256)
    assert "restoring the prompt from the cache…" in second["statuses"]
    assert not any(s.startswith("reading the prompt") for s in second["statuses"])
    assert second["cache_n"] > 30  # the fixed prompt came from the saved state
    other = _probe(model_file, tmp_path, "f" * 64)
    assert "restoring the prompt from the cache…" not in other["statuses"]
    assert any(s.startswith("reading the prompt (first run only)") for s in other["statuses"])


async def _cancelled_after(engine: Any, body: dict[str, Any], key: str) -> int:
    """Start ``body``, cancel it at the first chunk that has ``key`` ("prompt_progress" while
    the prompt is read, "content" once tokens come); the worker's pid."""
    seen = asyncio.Event()

    def chunk(data: dict[str, Any]) -> bool:
        deltas = [c.get("delta") or {} for c in data.get("choices") or []]
        if key in data or any(d.get(key) for d in deltas):
            seen.set()
        return False

    task = asyncio.create_task(engine.chat(body, chunk))
    await asyncio.wait_for(seen.wait(), 900)
    pid: int = engine.pid
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return pid


def _idle_or_gone(pid: int, *, within: float = 30.0) -> bool:
    """Whether process ``pid`` is gone, or uses under 15% of a core over some second within
    ``within`` seconds. On a busy machine the worker may take a while to end the step under
    way; one that went on answering would keep a core busy for longer still (the story takes
    hundreds of tokens, a minute and more on a busy machine)."""
    deadline = time.monotonic() + within
    while True:
        try:
            before = cpu_seconds(pid)
            time.sleep(1.0)
            if cpu_seconds(pid) - before < 0.15:
                return True
        except FileNotFoundError:
            return True
        if time.monotonic() > deadline:
            return False


async def test_a_cancelled_answer_frees_the_core(model_file: Path, tmp_path: Path) -> None:
    engine = _small_engine(model_file, tmp_path)
    try:
        body = {"messages": [{"role": "user", "content": LONG}], "max_tokens": 600}
        pid = await _cancelled_after(engine, body, "content")
        assert _idle_or_gone(pid)
        reading = {
            "messages": [{"role": "user", "content": "Summarise: " + "lorem ipsum " * 600}],
            "max_tokens": 5,
            "return_progress": True,
        }
        pid = await _cancelled_after(engine, reading, "prompt_progress")
        assert _idle_or_gone(pid)
    finally:
        engine.close()


def _environment(cache: Path, tmp_path: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FOEHN_")}
    environment.update(
        {
            "XDG_CACHE_HOME": str(cache),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "FOEHN_STREAMING": "1",
            "TERM": "xterm-256color",
        }
    )
    return environment


def test_the_answer_streams_to_the_terminal_in_pieces(
    provider: LocalProvider, model_home: Path, tmp_path: Path
) -> None:
    import pexpect

    (tmp_path / "ws").mkdir()
    # stderr (the header, the spinner) goes to a file, so that every read of the terminal is
    # the answer: on a busy machine a piece of it often shared a read with the spinner's codes
    child = pexpect.spawn(
        "/bin/sh",
        [
            "-c",
            'exec "$0" "$@" 2>"$FOEHN_TEST_STDERR"',
            sys.executable,
            "-m",
            "foehn_lsp",
            "run",
            "Explain in three sentences what a Python list is.",
            "--workspace",
            str(tmp_path / "ws"),
        ],
        env={**_environment(model_home, tmp_path), "FOEHN_TEST_STDERR": str(tmp_path / "stderr")},
        encoding="utf-8",
        timeout=900,
        dimensions=(40, 160),
    )
    reads: list[str] = []
    while True:
        try:
            reads.append(child.read_nonblocking(4096, timeout=900))
        except pexpect.EOF:
            break
    child.wait()
    text_reads = [r for r in reads if r.strip()]
    assert len(text_reads) >= 3, (reads, (tmp_path / "stderr").read_text()[-2000:])
    assert child.exitstatus == 0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_in_chat_a_cancelled_turn_stops_the_model_and_ctrl_d_leaves(
    provider: LocalProvider, model_home: Path, tmp_path: Path
) -> None:
    import pexpect

    (tmp_path / "ws").mkdir()
    child = pexpect.spawn(
        sys.executable,
        ["-m", "foehn_lsp", "chat", "--workspace", str(tmp_path / "ws")],
        env=_environment(model_home, tmp_path),
        encoding="utf-8",
        timeout=900,
        dimensions=(40, 160),
    )
    child.expect_exact("›")
    child.sendline(LONG)
    child.expect(["restoring the prompt from the cache", "reading the prompt"])
    child.expect("[A-Za-z]+ [a-z]+ [a-z]+ [a-z]+ [a-z]+")  # the story is streaming
    [worker] = _children(child.pid)
    child.sendcontrol("c")
    child.expect("cancel")
    child.expect_exact("›")
    assert _idle_or_gone(worker)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.wait()
    assert not Path(f"/proc/{worker}").exists() or _idle_or_gone(worker)


async def test_the_answer_streams_to_the_lsp_client_in_pieces(
    provider: LocalProvider, model_home: Path, tmp_path: Path
) -> None:
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

    root = tmp_path / "ws"
    root.mkdir()
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "foehn_lsp", "serve"],
        server_env=_environment(model_home, tmp_path),
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    texts: list[str] = []

    def on_event(params: Any) -> None:
        event = params._asdict() if hasattr(params, "_asdict") else params
        if event["event"] == "text":
            texts.append(event["text"])

    client.feature("foehn/runEvent")(on_event)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    try:
        result: Any = await asyncio.wait_for(
            client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="foehn.run",
                    arguments=["Explain in three sentences what a Python list is."],
                )
            ),
            900,
        )
        await asyncio.sleep(0.1)
        assert result["stopReason"] == "answer"
        assert len(texts) >= 2
        assert "".join(texts).strip() == result["answer"].strip()
    finally:
        await client.shutdown_session()
        await client.stop()  # type: ignore[no-untyped-call]


async def test_the_model_fixes_a_failing_test_from_what_the_run_shows(
    provider: LocalProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    """The test-driven path end to end with the real model: the task names the failing test,
    the run shows the test and the function it calls, the model edits that function, the
    failing test runs again after the edit, and the test file is left as it was. Whether the
    edit is right is the bench's to count (``bench/bench_tasks.py real``): the model's tokens
    differ from one CPU to another, and a test must not fail on which of them it ran on. So the
    turn is stopped once that run has come back, as a person stops it: what the model does
    after it (an answer, or more tries) is the bench's too, and took minutes of the suite."""
    from foehn_lsp.agent import Agent, TurnRequest
    from foehn_lsp.agent.chain import Parts
    from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
    from foehn_lsp.tools import ToolContext
    from foehn_lsp.workspace import FileAccess, Workspace
    from pytest_venv import pytest_venv

    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    (root / "money.py").write_text("def add_tax(price, rate):\n    return price - price * rate\n")
    test = (
        "from money import add_tax\n\n\ndef test_add_tax():\n    assert add_tax(100, 0.2) == 120\n"
    )
    (root / "tests" / "test_money.py").write_text(test)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    pytest_venv(root / ".venv")
    tool = investigate_tool(
        provider=provider, settings=Settings(), tools=registry, calls=_no_sub_runs
    )
    tools = with_investigate(registry, tool)  # the catalogue of ``offered``: one prompt state
    settings = Settings(provider="local", max_tool_iterations=8, enable_streaming=False)
    workspace = Workspace([root])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace), window=provider.window)
    gate = ApprovalGate(settings.approval, FixedApprover(Approved(scope="run")), lambda _: None)
    stop = asyncio.Event()
    results: list[ToolResultEvent] = []  # as the executor hands them on: the last may not reach
    # the turn's messages before it stops

    def rerun_stops(event: TurnEvent) -> None:
        if not isinstance(event, ToolResultEvent):
            return
        results.append(event)
        if event.tool == "run_tests" and any(r.ok and r.tool in _WRITES for r in results):
            stop.set()

    executor = TurnExecutor(tools, ctx, rerun_stops, Parts(approval=gate))
    await Agent(provider=provider, settings=settings).run_turn(
        TurnRequest(task="Fix the bug behind tests/test_money.py::test_add_tax"),
        executor,
        lambda _: None,
        stop,
    )
    runs = [r for r in results if r.tool == "run_tests"]
    trail = [(r.tool, r.ok, r.output[:200]) for r in results]
    assert not runs[0].ok
    assert "add_tax, which the test calls:" in runs[0].output
    edits = [i for i, r in enumerate(results) if r.tool in _WRITES and r.ok]
    assert edits, trail
    assert (
        root / "money.py"
    ).read_text() != "def add_tax(price, rate):\n    return price - price * rate\n"
    rerun = [r for r in results[edits[-1] + 1 :] if r.tool == "run_tests"]
    assert rerun, trail
    assert "tests/test_money.py::test_add_tax" in rerun[0].output
    assert (root / "tests" / "test_money.py").read_text() == test
