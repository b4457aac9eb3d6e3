"""Shared fixtures: real temporary workspaces with a canary folder beside them, an ``app`` in
one, a real model server on 127.0.0.1 (``model``) and the embedded model, assembled once per run
(``model_cache``); and how the suite is split among pytest-xdist's workers."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.testing import ModelServer
from foehn_lsp.tools import ToolRegistry, discover
from foehn_lsp.workspace import FileAccess, Workspace
from setup_steps import ready


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A folder outside the workspace holding a secret; nothing may read or change it."""
    folder = tmp_path / "canary"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP-SECRET\n")
    return folder


@pytest.fixture
def root(tmp_path: Path, canary: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def app(root: Path) -> Path:
    """The workspace with one file, ``app.py``, holding a TODO (``agent.turns.EDIT`` fixes it)."""
    (root / "app.py").write_text("def main():\n    return 1  # TODO\n")
    return root


@pytest.fixture
def model() -> Iterator[ModelServer]:
    """A real model server on 127.0.0.1, scripted by the test."""
    with ModelServer() as server:
        yield server


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace([root])


@pytest.fixture
def ctx(workspace: Workspace) -> ToolContext:
    return ToolContext(workspace=workspace, files=FileAccess(workspace))


@pytest.fixture
def approve_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Approve, as the person would, every file of a workspace that waits for approval by its
    content (``foehn_lsp.workspace.trust``); the approvals go to the test's own state folder."""
    from foehn_lsp.workspace.trust import approve, waiting

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "approvals"))

    def approve_all(root: Path) -> None:
        for item in waiting(root):
            assert item.sha256 is not None, item.reason
            approve(root, item.path, item.sha256)

    return approve_all


@pytest.fixture(scope="session")
def registry() -> ToolRegistry:
    found = discover()
    assert not found.problems, found.problems
    return found.registry


def snapshot(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` (links not followed) with a hash of its content and mode."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink():
                state[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                state[str(path)] = f"{digest}:{oct(path.stat().st_mode)}"
            else:
                state[str(path)] = "dir"
    return state


@pytest.fixture
def canary_untouched(canary: Path) -> Callable[[], None]:
    """Call at the end of a test: the canary is exactly as it was, and was not even read."""
    before = snapshot(canary)
    secret = canary / "secret.txt"
    atime = secret.stat().st_atime_ns
    os.utime(secret, ns=(atime - 10**9 * 3600, secret.stat().st_mtime_ns))
    marked = secret.stat().st_atime_ns

    def check() -> None:
        assert secret.stat().st_atime_ns == marked, "the canary was read"
        assert snapshot(canary) == before

    return check


GROUPS = {
    "tests/providers/local/test_local_model.py": "embedded-model",
    "tests/cli/test_cli.py::test_the_demo_runs_offline_with_the_embedded_model": "embedded-model",
    "tests/e2e/test_vscode.py": "vscode",
    "tests/e2e/test_vscode_setup.py": "vscode",
    "tests/e2e/test_vscode_package.py": "vscode",
    "tests/sandbox/test_attacks.py": "attacks",
    "tests/sandbox/test_network_attacks.py": "network-attacks",
    "tests/conformance/test_mcp_conformance.py::test_foehn_mcp_passes": "conformance-server",
    "tests/conformance/test_mcp_conformance.py::test_a_server_scenario_that_does_not_apply_"
    "does_not_pass": "conformance-server",
}
"""Tests (by node id prefix) that run on one xdist worker, one after another, by group: each
worker that runs the embedded model loads its own 2 GB copy, and two inferences at once only
slow each other down; the VS Code tests share one platform ``.vsix`` and write the same
screenshot folder; the attack suite's tests share one campaign (a module fixture), which every
worker given one of them would run again (the network attack suite's too, and the MCP
conformance suite's run against ``foehn mcp``, which ran on all four workers)."""


LONGEST = (
    "tests/lsp/test_load.py::test_finished_runs_leave_nothing_behind",
    "tests/workspace/trust/test_effects.py",
    "tests/acp/test_agent.py::test_a_client_that_goes_away_ends_the_turn_and_the_session_is_saved",
    "tests/workspace/trust/test_trust_attacks.py",
    "tests/mcp/test_ways_out.py",
    "tests/plugins/test_fetch.py::test_a_silent_site_is_cut_after_thirty_seconds",
)
"""Tests (by node id prefix, longest first) that took longest in ``--durations``: collected
first, so that the scheduler hands them out first (after the groups) and none is left running
alone at the end."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test not marked ``process`` (by its module's ``pytestmark``: it starts Foehn, an
    MCP server or an editor as a process, runs the embedded model, or runs the attack campaign)
    is ``unit``, the tier that stays quick."""
    for item in items:
        if item.get_closest_marker("process") is None:
            item.add_marker(pytest.mark.unit)
    items.sort(key=_longest_first)


def _longest_first(item: pytest.Item) -> int:
    """The rank of ``item``'s entry in ``LONGEST``; every other test after them all."""
    ranks = (rank for rank, prefix in enumerate(LONGEST) if item.nodeid.startswith(prefix))
    return next(ranks, len(LONGEST))


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        from xdist_groups import GroupScheduling

        config.pluginmanager.register(GroupScheduling(GROUPS), "foehn-xdist-groups")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A worker's first test outside the embedded model's group lowers the worker's priority
    (and its programs') for the rest of the run: the model's group, on one worker, one test
    after another behind the demo's run, is the run's longest chain, and on two cores every
    other worker's programs took its CPU (the demo's run: 83 s alone, 320 s in the suite).
    A process can lower its own priority but never raise it again, so the model's worker is
    the one that never does this before its group is done."""
    global _YIELDED
    if _YIELDED or "PYTEST_XDIST_WORKER" not in os.environ:
        return
    from xdist_groups import group_of

    if group_of(item.nodeid, GROUPS) != "embedded-model":
        os.nice(10)
        _YIELDED = True


_YIELDED = False
"""Whether this worker has lowered its priority (``pytest_runtest_setup``)."""


@contextlib.contextmanager
def _locked(lock: Path, *, within: float) -> Iterator[None]:
    """Hold an exclusive lock on ``lock``, waiting up to ``within`` seconds for another worker."""
    with open(lock, "a") as handle:
        deadline = time.monotonic() + within
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, f"{lock} was held for {within:g} s"
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ``XDG_CACHE_HOME`` whose ``foehn/models`` holds the verified embedded model.

    It is assembled once per run: xdist's workers share the folder (beside their own temporary
    folders) and the first to take its lock assembles the model. ``FOEHN_TEST_MODEL_CACHE``
    names one made beside the run (``scripts/test`` makes it beside its other set-up steps, the
    fixed prompt's state with it); it is waited for."""
    from foehn_lsp.providers.local import ensure_model

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    made = os.environ.get("FOEHN_TEST_MODEL_CACHE")
    if made:
        ready("model")
    cache = Path(made) if made else shared / "xdg-cache"
    models = cache / "foehn" / "models"
    models.mkdir(parents=True, exist_ok=True)
    done = models / ".assembled"
    # Assembling writes and hashes 1.1 GB; on a busy machine that takes minutes, never hours.
    with _locked(models / ".lock", within=1800):
        if not done.exists():
            ensure_model(models)
            done.touch()
    return cache


@pytest.fixture(scope="session")
def model_home(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Iterator[Path]:
    """A user cache (``XDG_CACHE_HOME``) for the tests that run the embedded model, holding the
    run's one assembled model (linked, not copied) and the fixed prompts' saved states. Those
    tests share one worker (``GROUPS``) and so this folder: only the first to read a fixed
    prompt pays for it (minutes on 2 busy cores); every later process restores it. The link
    goes with the session: pytest keeps the temporary folder of a run with a failure, and once
    ``scripts/test`` has removed its own link, this one would keep the 1.1 GB there."""
    from foehn_lsp.providers.local import MODEL_NAME, ensure_model

    root = tmp_path_factory.mktemp("model-home")
    models = root / "foehn" / "models"
    models.mkdir(parents=True)
    for name in (f"{MODEL_NAME}.gguf", f"{MODEL_NAME}.verified"):
        os.link(model_cache / "foehn" / "models" / name, models / name)
    ensure_model(models)  # verifies the link by its stamp, as a later process would
    states = model_cache / "foehn" / "prompt-states"
    if states.is_dir():  # computed before the run: every process here restores them
        (root / "foehn" / "prompt-states").mkdir()
        for state in states.iterdir():
            os.link(state, root / "foehn" / "prompt-states" / state.name)
    yield root
    (models / f"{MODEL_NAME}.gguf").unlink()
