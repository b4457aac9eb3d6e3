"""The worker process seen from Foehn: started once per process and model, asked over HTTP on
127.0.0.1, stopped when told.

    chat(request) ─▶ worker running?  no ─▶ start it ("loading the model…")
                     fixed prompt in its slot?  no ─▶ restore the conversation held before a
                                                      request without it, else the saved state,
                                                      or read the prompt once and save it
                                                      ("first run only")
                     a request without a fixed prompt (the fix written as code) takes the
                     slot: the conversation in it is held (saved) first
                     stream the request; every chunk goes to the caller
                     stopped early (cancel, or the caller has enough)?
                         └─▶ closing the stream stops llama.cpp at its next token or prompt
                             step; if the worker is still busy after ``STOP_DEADLINE`` it is
                             killed, and the next request starts a new one from the saved state

One worker per model and settings is shared by every provider in the process (``engine_for``),
so the conversation's tokens stay cached from step to step and turn to turn. Requests take
turns: the worker has one slot. The worker is killed when the process exits, and exits by
itself when its parent is gone (its stdin closes), so exit never waits for it.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import secrets
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foehn_lsp.errors import (
    ProviderError,
    ProviderProtocolError,
    ProviderUnavailableError,
)
from foehn_lsp.providers.http import HttpClient
from foehn_lsp.providers.local import worker as worker_module
from foehn_lsp.providers.local.states import PromptStates, StateKey
from foehn_lsp.providers.local.worker import WorkerConfig
from foehn_lsp.providers.messages import StatusSink

log = logging.getLogger(__name__)

LOAD_TIMEOUT = 600.0
"""Seconds the worker may take to load the model (a busy machine is slow, never stuck)."""
READ_TIMEOUT = 600.0
"""Seconds between two chunks of a stream: one step of prompt reading on busy cores."""
STOP_DEADLINE = 0.5
"""Seconds a stopped request may keep the worker busy before the worker is killed."""
LABEL = "the local model"

ChunkSink = Callable[[Mapping[str, Any]], bool]
"""Gets each streamed chunk; returns ``True`` when it has what it needs (generation stops)."""


IDLE_SAMPLE = 0.25
"""Seconds over which the cores' idle time is measured before the worker starts."""


def threads(sample: float = IDLE_SAMPLE) -> int:
    """Threads for llama.cpp: the cores that are idle now, at least one. Its threads meet at a
    barrier for every layer of every token, so one thread descheduled by another program
    stalls the rest: on 2 busy cores, 2 threads generated 0.4 tokens/s where 1 thread made 2.9
    (the 1.5B model, load average about 13). On idle cores every core helps.

    "Now" is the last ``sample`` seconds of the kernel's CPU counters, not the load average:
    that one trails by a minute, so a worker started right after other work (the previous
    task's worker, a test run) got one thread on two idle cores and ran at half speed. Where
    the counters cannot be read, the load average decides."""
    cores = os.cpu_count() or 1
    try:
        before = _cpu_times()
        time.sleep(sample)
        after = _cpu_times()
    except (OSError, ValueError, IndexError):
        idle = cores - os.getloadavg()[0]
    else:
        total = sum(after) - sum(before)
        waited = (after[3] + after[4]) - (before[3] + before[4])
        idle = cores * waited / total if total > 0 else cores
    return max(1, min(cores, round(idle)))


def _cpu_times() -> list[int]:
    """The machine's CPU time counters (user, nice, system, idle, iowait, irq, softirq,
    steal), from ``/proc/stat``."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    if fields[0] != "cpu":
        raise ValueError("/proc/stat does not start with the cpu line")
    return [int(field) for field in fields[1:9]]


@dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """What the worker runs; one engine per distinct value."""

    model: Path
    model_sha256: str
    runtime: str
    """The runtime's version, for the saved states' keys."""
    window: int
    batch: int
    states: Path
    """The folder of saved prompt states."""
    command: tuple[str, ...] = ()
    """The worker's command line; empty: this interpreter running ``worker.py``."""
    threads: int = 0
    """Threads for generating and for reading prompts; 0: the cores idle when it starts."""


@dataclass(frozen=True, kw_only=True)
class FixedPrompt:
    """The part of every request that never changes (rules, catalogue, examples): computed
    once, then restored."""

    messages: tuple[Mapping[str, str], ...]
    sha256: str


@dataclass
class _Worker:
    process: subprocess.Popen[bytes]
    api_key: str
    address: str | None = None
    fixed: str | None = None
    """The digest of the fixed prompt now in the worker's slot."""
    held: str | None = None
    """The digest of the fixed prompt whose conversation was saved (``Engine._held``) before
    a request without it took the slot."""


class Engine:
    """Runs requests on a worker process; see the module docstring."""

    def __init__(self, settings: EngineSettings) -> None:
        self.settings = settings
        self.states = PromptStates(settings.states)
        self._log = settings.states.parent / "local-model.log"
        """Where the worker's own messages go (only a crash writes any)."""
        self._worker: _Worker | None = None
        self._held = f"partial-{os.getpid()}-{id(self):x}-held.bin"
        """Where the slot's conversation is saved while a request without the fixed prompt
        has the slot (a ``partial-`` name: the folder's bound deletes a leftover)."""
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs."""
        worker = self._worker
        return worker.process.pid if worker and worker.process.poll() is None else None

    def key(self, fixed: FixedPrompt) -> StateKey:
        return StateKey(
            model_sha256=self.settings.model_sha256,
            runtime=self.settings.runtime,
            prompt_sha256=fixed.sha256,
            window=self.settings.window,
            batch=self.settings.batch,
        )

    async def chat(
        self,
        body: Mapping[str, Any],
        on_chunk: ChunkSink,
        *,
        fixed: FixedPrompt | None = None,
        on_status: StatusSink = lambda _: None,
    ) -> None:
        """Stream one chat-completion request (``stream`` is set here), after making sure
        the worker runs and, with ``fixed``, that its slot starts with that prompt. Without
        ``fixed``, the request takes the slot over: the next request with a fixed prompt
        restores it."""
        async with self._lock():
            worker = await self._ready(fixed, on_status)
            if fixed is None:
                await self._hold(worker)
            await self._stream(worker, {**body, "stream": True}, on_chunk)

    async def start(
        self, *, fixed: FixedPrompt | None = None, on_status: StatusSink = lambda _: None
    ) -> None:
        """Start the worker and, with ``fixed``, put that prompt in its slot, now rather than
        at the first request."""
        async with self._lock():
            await self._ready(fixed, on_status)

    def _lock(self) -> asyncio.Lock:
        return self._locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())

    async def _ready(self, fixed: FixedPrompt | None, on_status: StatusSink) -> _Worker:
        worker = await self._running(on_status)
        if fixed is not None and worker.fixed != (digest := self.key(fixed).digest):
            held = worker.held == digest
            worker.held = None
            if not (held and await self._restore_held(worker, digest, on_status)):
                await self._prepare(worker, fixed, on_status)
        return worker

    async def _hold(self, worker: _Worker) -> None:
        """Save the slot's conversation (the fixed prompt and the steps after it) before a
        request without the fixed prompt takes the slot, so that the next step reads only
        what came after it. That is the conversation before the failing run: some 50 tokens
        when the turn's first step ran the tests (toolz ``remove``), most of a long turn's."""
        if worker.fixed is None:
            return
        client = self._client(worker)
        try:
            await client.post_json("/slots/0?action=save", {"filename": self._held})
            worker.held = worker.fixed
        except ProviderError as exc:
            log.warning("could not hold the conversation (the next step reads it again): %s", exc)
        finally:
            await client.aclose()
        worker.fixed = None

    async def _restore_held(self, worker: _Worker, digest: str, on_status: StatusSink) -> bool:
        """Put the held conversation back in the slot; whether it went back."""
        on_status("restoring the conversation…")
        client = self._client(worker)
        try:
            await client.post_json("/slots/0?action=restore", {"filename": self._held})
            worker.fixed = digest
            return True
        except ProviderError as exc:
            log.warning("the held conversation was refused; restoring the prompt: %s", exc)
            return False
        finally:
            await client.aclose()
            (self.settings.states / self._held).unlink(missing_ok=True)

    def close(self) -> None:
        """Kill the worker now (it holds nothing that needs saving)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            _kill(worker.process)
        (self.settings.states / self._held).unlink(missing_ok=True)

    async def _running(self, on_status: StatusSink) -> _Worker:
        worker = self._worker
        if worker is not None and worker.process.poll() is None and worker.address:
            return worker
        self.close()
        on_status("loading the model…")
        count = self.settings.threads or await asyncio.to_thread(threads)
        worker = self._worker = self._spawn(count)
        try:
            line = await asyncio.wait_for(_read_line(worker.process), LOAD_TIMEOUT)
        except BaseException:
            self.close()
            raise
        try:
            reply = json.loads(line) if line else {}
        except json.JSONDecodeError:
            reply = {}
        if not isinstance(reply, dict) or not isinstance(reply.get("address"), str):
            self.close()
            detail = reply.get("error") if isinstance(reply, dict) else None
            raise ProviderUnavailableError(
                f"{LABEL} could not start: {detail or 'its process ended while loading'} "
                f"(its messages are in {self._log})"
            )
        worker.address = reply["address"]
        return worker

    def _spawn(self, count: int) -> _Worker:
        api_key = secrets.token_urlsafe(24)
        self.settings.states.mkdir(parents=True, exist_ok=True)
        config = WorkerConfig(
            model=str(self.settings.model),
            window=self.settings.window,
            threads=count,
            batch_threads=count,
            batch=self.settings.batch,
            state_dir=str(self.settings.states),
            api_key=api_key,
        )
        command = self.settings.command or (sys.executable, worker_module.__file__)
        with open(self._log, "wb") as errors:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                # Its own session: a Ctrl-C at the terminal is for Foehn, which decides what
                # to stop; it must not kill the loaded model.
                start_new_session=True,
            )
        assert process.stdin is not None
        process.stdin.write(config.line().encode())
        process.stdin.flush()
        _live.add(process)
        return _Worker(process=process, api_key=api_key)

    def _client(self, worker: _Worker) -> HttpClient:
        assert worker.address is not None
        return HttpClient(
            label=LABEL,
            base_url=worker.address,
            headers={"authorization": f"Bearer {worker.api_key}"},
            secret=worker.api_key,
            timeout=READ_TIMEOUT,
            max_retries=0,
        )

    async def _prepare(self, worker: _Worker, fixed: FixedPrompt, on_status: StatusSink) -> None:
        key = self.key(fixed)
        client = self._client(worker)
        try:
            name = await asyncio.to_thread(self.states.find, key)
            if name is not None:
                on_status("restoring the prompt from the cache…")
                try:
                    await client.post_json("/slots/0?action=restore", {"filename": name})
                    worker.fixed = key.digest
                    return
                except ProviderError as exc:
                    log.warning("a saved prompt state was refused; computing it again: %s", exc)
                    self.states.discard(key)
        finally:
            await client.aclose()
        progress = PromptProgress(on_status, "reading the prompt (first run only)")
        # An empty user turn after the fixed prompt: what every real request starts with.
        request = {
            "messages": [*fixed.messages, {"role": "user", "content": ""}],
            "max_tokens": 1,
            "temperature": 0,
            "return_progress": True,
            "stream": True,
        }

        def on_chunk(chunk: Mapping[str, Any]) -> bool:
            progress.chunk(chunk)
            return False

        await self._stream(worker, request, on_chunk)
        client = self._client(worker)
        partial = self.states.partial_name(key)
        try:
            saved = await client.post_json("/slots/0?action=save", {"filename": partial})
            tokens = int(saved.get("n_saved") or 0) if isinstance(saved, dict) else 0
            await asyncio.to_thread(self.states.publish, key, partial, tokens)
        except (ProviderError, OSError) as exc:
            log.warning("could not save the prompt state (next process reads it again): %s", exc)
            (self.settings.states / partial).unlink(missing_ok=True)
        finally:
            await client.aclose()
        worker.fixed = key.digest

    async def _stream(self, worker: _Worker, body: Mapping[str, Any], on_chunk: ChunkSink) -> None:
        client = self._client(worker)
        finished = False
        try:
            async with client.stream_events("/v1/chat/completions", body) as events:
                async for event in events:
                    if event.data.strip() == "[DONE]":
                        finished = True
                        break
                    try:
                        chunk = json.loads(event.data)
                    except json.JSONDecodeError:
                        raise ProviderProtocolError(
                            f"{LABEL} sent a chunk that is not JSON: {event.data[:200]!r}"
                        ) from None
                    if isinstance(chunk, dict) and "error" in chunk:
                        raise ProviderProtocolError(f"{LABEL} failed: {chunk['error']}")
                    if on_chunk(chunk):
                        break
                else:
                    raise ProviderProtocolError(f"{LABEL} ended its answer before the end")
        except ProviderError as exc:
            code = await _exit_code(worker.process)
            if code is not None:
                self.close()
                raise ProviderUnavailableError(
                    f"{LABEL} stopped (its process exited with {code}); the next request "
                    "starts it again"
                ) from exc
            raise
        finally:
            if not finished:
                await self._settle(worker, client)
            await client.aclose()

    async def _settle(self, worker: _Worker, client: HttpClient) -> None:
        """After a request was stopped early: wait until the worker is idle, or kill it."""
        try:
            await asyncio.wait_for(_until_idle(client), STOP_DEADLINE)
        except asyncio.CancelledError:
            self.close()
            raise
        except (TimeoutError, ProviderError):
            log.info("the local model did not stop within %.1f s; killing it", STOP_DEADLINE)
            if self._worker is worker:
                self.close()


async def _until_idle(client: HttpClient) -> None:
    while True:
        slots = await client.get_json("/slots")
        if isinstance(slots, list) and not any(
            isinstance(s, dict) and s.get("is_processing") for s in slots
        ):
            return
        await asyncio.sleep(0.05)


class PromptProgress:
    """Turns a stream's prompt-reading progress into status lines, one per step of 5%, when
    at least ``minimum`` tokens are new (less is over before anyone could read it)."""

    def __init__(self, on_status: StatusSink, label: str, *, minimum: int = 0) -> None:
        self.on_status = on_status
        self.label = label
        self.minimum = minimum
        self.shown = -1

    def chunk(self, chunk: Mapping[str, Any]) -> bool:
        """Report ``chunk``'s progress if it carries any; whether it did."""
        progress = chunk.get("prompt_progress")
        if not isinstance(progress, Mapping):
            return False
        total = int(progress.get("total") or 0) - int(progress.get("cache") or 0)
        done = int(progress.get("processed") or 0) - int(progress.get("cache") or 0)
        if total <= 0 or total < self.minimum:
            return True
        percent = min(100, max(0, 100 * done // total))
        if percent // 5 != self.shown // 5 or self.shown < 0:
            self.shown = percent
            self.on_status(f"{self.label}… {percent}% of {total:,} tokens")
        return True


async def _read_line(process: subprocess.Popen[bytes]) -> bytes:
    """The worker's first line of output, read without a thread (a thread blocked on a pipe
    would keep the process from exiting); empty if the worker ends first."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    loop = asyncio.get_running_loop()
    line: asyncio.Future[bytes] = loop.create_future()
    buffer = bytearray()

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        buffer.extend(data)
        if (not data or b"\n" in buffer) and not line.done():
            line.set_result(bytes(buffer).split(b"\n", 1)[0])

    loop.add_reader(fd, readable)
    try:
        return await line
    finally:
        loop.remove_reader(fd)


async def _exit_code(process: subprocess.Popen[bytes], wait: float = 1.0) -> int | None:
    """The worker's exit code if it has ended or is ending (its connections close before it
    is gone), else ``None``."""
    for _ in range(int(wait / 0.02)):
        code = process.poll()
        if code is not None:
            return code
        await asyncio.sleep(0.02)
    return process.poll()


def _kill(process: subprocess.Popen[bytes]) -> None:
    _live.discard(process)
    if process.poll() is None:
        process.kill()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        log.warning("the local model's process %d did not end after SIGKILL", process.pid)
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()


_live: set[subprocess.Popen[bytes]] = set()
_engines: dict[EngineSettings, Engine] = {}
_engines_lock = threading.Lock()


def engine_for(settings: EngineSettings) -> Engine:
    """The process's engine for ``settings`` (one worker per model and settings)."""
    with _engines_lock:
        engine = _engines.get(settings)
        if engine is None:
            engine = _engines[settings] = Engine(settings)
        return engine


@atexit.register
def _kill_workers() -> None:
    for process in list(_live):
        _kill(process)
