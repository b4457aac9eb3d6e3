"""The worker process and the provider over it, with a stand-in worker: streaming, stopping,
saved prompt states, failures."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from foehn_lsp.errors import ProviderUnavailableError
from foehn_lsp.providers.local import NO_ANSWER
from foehn_lsp.providers.messages import UserMessage
from foehn_lsp.tools import ToolRegistry
from providers.local.local_fakes import MakeProvider, answer_chunks, cpu_seconds, requests

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")


async def test_the_answer_streams_in_pieces_before_the_step_ends(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    text = "The port is 8080. It is set in config/settings.toml. Debug is on in the same file."
    provider = fake_provider({"chunks": answer_chunks(text), "delay": 0.02})
    pieces: list[str] = []
    response = await provider.complete(
        [UserMessage(content="Which port?")],
        registry.definitions(),
        stream=True,
        on_text=pieces.append,
    )
    assert response.message.content == text
    assert pieces == [
        "The port is 8080.",
        " It is set in config/settings.toml.",
        " Debug is on in the same file.",
    ]


async def test_what_happens_while_waiting_is_told(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    provider = fake_provider({"chunks": answer_chunks("Done.")})
    statuses: list[str] = []
    await provider.complete(
        [UserMessage(content="hi")], registry.definitions(), on_status=statuses.append
    )
    assert statuses[0] == "loading the model…"
    assert any(s.startswith("reading the prompt (first run only)") for s in statuses)


async def test_a_copy_is_never_streamed_and_is_sent_back(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    copy = "config/settings.toml: lines 1-3 of 3\n     1\t[server]"
    provider = fake_provider(
        {"chunks": answer_chunks(copy, size=2)},
        {"chunks": answer_chunks(copy, size=2)},
    )
    pieces: list[str] = []
    response = await provider.complete(
        [UserMessage(content="Which port?")],
        registry.definitions(),
        stream=True,
        on_text=pieces.append,
    )
    assert pieces == []
    assert response.message.content == NO_ANSWER
    sent = [r["body"] for r in requests(tmp_path / "states") if "messages" in r["body"]]
    assert "copies the tool output" in json.dumps(sent[-1]["messages"])


async def test_a_copy_after_part_of_the_answer_went_out_ends_the_answer_there(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    start = "The settings file sets the port to 8080 and the host to 127.0.0.1 for the server."
    copy = start + "\nconfig/settings.toml: lines 1-3 of 3"
    provider = fake_provider({"chunks": answer_chunks(copy, size=3)})
    pieces: list[str] = []
    response = await provider.complete(
        [UserMessage(content="Which port?")],
        registry.definitions(),
        stream=True,
        on_text=pieces.append,
    )
    assert "".join(pieces) == response.message.content
    assert response.message.content.startswith("The settings file sets the port to 8080")
    assert "lines 1-3" not in response.message.content


async def test_a_cancelled_step_whose_worker_keeps_computing_is_killed(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    provider = fake_provider(
        {"chunks": answer_chunks("word " * 200, size=2), "delay": 0.05}, busy=True
    )
    engine = await provider.engine()
    started = asyncio.Event()
    step = asyncio.create_task(
        provider.complete(
            [UserMessage(content="Tell me a story")],
            registry.definitions(),
            stream=True,
            on_text=lambda _: started.set(),
        )
    )
    await started.wait()
    pid = engine.pid
    assert pid is not None
    step.cancel()
    with pytest.raises(asyncio.CancelledError):
        await step
    assert engine.pid is None
    assert not Path(f"/proc/{pid}").exists()  # noqa: ASYNC240 (killed and reaped: its core is free)


async def test_a_cancelled_step_leaves_an_idle_worker_loaded(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    provider = fake_provider(
        {"chunks": answer_chunks("word " * 200, size=2), "delay": 0.05},
        {"chunks": answer_chunks("Still here.")},
    )
    engine = await provider.engine()
    started = asyncio.Event()
    step = asyncio.create_task(
        provider.complete(
            [UserMessage(content="Tell me a story")],
            registry.definitions(),
            stream=True,
            on_text=lambda _: started.set(),
        )
    )
    await started.wait()
    pid = engine.pid
    assert pid is not None
    step.cancel()
    with pytest.raises(asyncio.CancelledError):
        await step
    assert engine.pid == pid  # it stopped by itself: the model stays loaded
    before = cpu_seconds(pid)
    await asyncio.sleep(1.0)
    assert cpu_seconds(pid) - before < 0.2
    again = await provider.complete([UserMessage(content="still?")], registry.definitions())
    assert again.message.content == "Still here."


async def test_the_fixed_prompt_is_computed_once_then_restored_by_the_next_worker(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    first = fake_provider({"chunks": answer_chunks("One.")})
    statuses: list[str] = []
    await first.complete(
        [UserMessage(content="a")], registry.definitions(), on_status=statuses.append
    )
    assert any(s.startswith("reading the prompt (first run only)") for s in statuses)
    saved = sorted(p.name for p in (tmp_path / "states").glob("*.bin"))
    assert len(saved) == 1

    second = fake_provider({"chunks": answer_chunks("Two.")})  # another worker process
    statuses.clear()
    await second.complete(
        [UserMessage(content="b")], registry.definitions(), on_status=statuses.append
    )
    assert "restoring the prompt from the cache…" in statuses
    assert not any(s.startswith("reading the prompt") for s in statuses)
    sent = requests(tmp_path / "states")
    assert sent[-2]["path"] == "/slots/0?action=restore"
    assert sent[-2]["body"]["filename"] == saved[0]


async def test_a_saved_state_of_another_model_or_prompt_is_not_used(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    await fake_provider({"chunks": answer_chunks("One.")}).complete(
        [UserMessage(content="a")], registry.definitions()
    )
    other_model = fake_provider({"chunks": answer_chunks("Two.")})
    other_model._model_sha256 = "1" * 64
    other_prompt = fake_provider({"chunks": answer_chunks("Three.")})
    for provider, tools in (
        (other_model, registry.definitions()),
        (other_prompt, registry.definitions()[:3]),
    ):
        statuses: list[str] = []
        await provider.complete([UserMessage(content="b")], tools, on_status=statuses.append)
        assert "restoring the prompt from the cache…" not in statuses
        assert any(s.startswith("reading the prompt (first run only)") for s in statuses)
    assert len(list((tmp_path / "states").glob("*.bin"))) == 3


async def test_a_damaged_saved_state_is_refused_and_replaced(
    fake_provider: MakeProvider, registry: ToolRegistry, tmp_path: Path
) -> None:
    await fake_provider({"chunks": answer_chunks("One.")}).complete(
        [UserMessage(content="a")], registry.definitions()
    )
    [state] = (tmp_path / "states").glob("*.bin")
    state.write_text(state.read_text() + " ")
    statuses: list[str] = []
    await fake_provider({"chunks": answer_chunks("Two.")}).complete(
        [UserMessage(content="b")], registry.definitions(), on_status=statuses.append
    )
    assert "restoring the prompt from the cache…" not in statuses
    assert state.is_file()
    assert not state.read_text().endswith(" ")


async def test_a_worker_that_cannot_load_says_why(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    provider = fake_provider(fail_load="RuntimeError: out of memory")
    with pytest.raises(ProviderUnavailableError, match="could not start: RuntimeError: out of"):
        await provider.complete([UserMessage(content="a")], registry.definitions())


async def test_a_worker_that_dies_is_reported_and_started_again(
    fake_provider: MakeProvider, registry: ToolRegistry
) -> None:
    provider = fake_provider({"chunks": answer_chunks("A word. " * 25, size=4), "delay": 0.02})
    engine = await provider.engine()
    started = asyncio.Event()
    step = asyncio.create_task(
        provider.complete(
            [UserMessage(content="story")],
            registry.definitions(),
            stream=True,
            on_text=lambda _: started.set(),
        )
    )
    await started.wait()
    assert engine.pid is not None
    os.kill(engine.pid, 9)
    with pytest.raises(ProviderUnavailableError, match="stopped"):
        await step
    again = await provider.complete([UserMessage(content="a")], registry.definitions())
    assert again.message.content == ("A word. " * 25).strip()  # a new worker, from its start
