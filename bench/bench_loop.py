"""Host CPU per tool step of a scripted 100-step run: Foehn's loop against pydantic-ai and the
OpenAI Agents SDK, each driving the same scripted HTTP server (in its own process, so only the
agent's CPU is counted) with an equivalent one-tool agent, in the same run. Model time is the
other process's; the tool does nothing; what is left is each host's own work per step."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from importlib.metadata import version

STEPS = 100
SERVER = f"""
import sys
from foehn_lsp.testing import ModelServer, Turn

def reply(body):
    done = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    if done >= {STEPS}:
        return Turn(text="finished")
    return Turn(tool_calls=[("echo", {{"n": done}})], input_tokens=50 + 40 * done)

with ModelServer() as server:
    server.script(*[reply] * 100_000)
    print(server.openai_url, flush=True)
    sys.stdin.read()
"""
TASK = "Call echo until you are told to stop."


def echo_impl(n: int) -> str:
    return f"echo {n}"


async def run_foehn(url: str) -> None:
    from foehn_lsp import RiskLevel, ToolContext, tool
    from foehn_lsp.agent import Agent, TurnRequest
    from foehn_lsp.agent.chain import Parts
    from foehn_lsp.agent.execution import TurnExecutor
    from foehn_lsp.config import Settings
    from foehn_lsp.policy import ApprovalGate, Approved, FixedApprover
    from foehn_lsp.providers import create_provider
    from foehn_lsp.tools import ToolRegistry
    from foehn_lsp.workspace import FileAccess, Workspace

    @tool(risk=RiskLevel.READ_ONLY)
    async def echo(n: int) -> str:
        """Echo a number."""
        return echo_impl(n)

    settings = Settings(
        provider="openai",
        base_url=url,
        max_retries=0,
        enable_streaming=False,
        max_tool_iterations=STEPS + 10,
        token_budget=10**9,
        repeat_limit=1000,
    )
    provider = create_provider(settings)
    agent = Agent(provider=provider, settings=settings)
    workspace = Workspace(["."])
    ctx = ToolContext(workspace=workspace, files=FileAccess(workspace))
    gate = ApprovalGate(settings.approval, FixedApprover(Approved()), lambda event: None)
    calls = TurnExecutor(ToolRegistry([echo]), ctx, lambda event: None, Parts(approval=gate))
    outcome = await agent.run_turn(TurnRequest(task=TASK), calls, lambda event: None)
    await provider.aclose()
    assert (outcome.reason, outcome.iterations) == ("answer", STEPS), outcome


async def run_pydantic_ai(url: str) -> None:
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    client = AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
    model = OpenAIChatModel("scripted", provider=OpenAIProvider(openai_client=client))
    agent = Agent(model)

    @agent.tool_plain
    def echo(n: int) -> str:
        """Echo a number."""
        return echo_impl(n)

    result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=None))
    await client.close()
    assert result.output == "finished"


async def run_openai_agents(url: str) -> None:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    set_tracing_disabled(True)

    @function_tool
    def echo(n: int) -> str:
        """Echo a number."""
        return echo_impl(n)

    client = AsyncOpenAI(base_url=url, api_key="unused", max_retries=0)
    agent = Agent(
        name="bench",
        instructions="Be brief.",
        tools=[echo],
        model=OpenAIChatCompletionsModel(model="scripted", openai_client=client),
    )
    result = await Runner.run(agent, TASK, max_turns=STEPS + 10)
    assert result.final_output == "finished"


def _cpu_per_step(run: Callable[[str], Coroutine[None, None, None]], url: str) -> float:
    asyncio.run(run(url))  # warm-up: imports, first connection
    start = time.process_time()
    asyncio.run(run(url))
    return (time.process_time() - start) / STEPS


def main() -> list[str]:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        figures = {
            "foehn": _cpu_per_step(run_foehn, url),
            f"pydantic-ai {version('pydantic-ai-slim')}": _cpu_per_step(run_pydantic_ai, url),
            f"openai-agents {version('openai-agents')}": _cpu_per_step(run_openai_agents, url),
        }
    finally:
        server.communicate("", timeout=30)
    foehn = figures.pop("foehn")
    fastest = min(figures.values())
    lines = [
        f"agent loop: host CPU per tool step, {STEPS}-step scripted run (lower is better)",
        f"  foehn                  {foehn * 1000:7.2f} ms",
    ]
    lines += [
        f"  {name:<22} {cpu * 1000:7.2f} ms   foehn/peer {foehn / cpu:5.2f}x"
        for name, cpu in figures.items()
    ]
    lines.append(f"  foehn against the fastest peer: {foehn / fastest:.2f}x (goal: at most 0.25x)")
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
