"""What each policy lets a real program do, checked from inside the sandbox and from outside."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

import pytest

from foehn_lsp import ToolContext
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalDecision, ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.sandbox import (
    Finished,
    ProgramStartError,
    Sandbox,
    SandboxUnavailableError,
    SandboxViewError,
    system_sandbox,
)
from foehn_lsp.sandbox.environment import allowed_environment
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import Workspace

PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

pytestmark = pytest.mark.skipif(
    not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
)


async def run(root: Path, policy: SandboxPolicy, code: str) -> Finished:
    return await system_sandbox().run(
        [PY, "-c", code], workspace=Workspace([root]), cwd=root, policy=policy, seconds=30
    )


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".foehn").mkdir()
    (root / "a.txt").write_text("a\n")
    return root


WRITE = (
    "import sys\n"
    "for path in sys.argv[1:] or ['new.txt', '.git/x', '.foehn/x', '/tmp/x']:\n"
    "    try:\n"
    "        open(path, 'w').write('x'); print(path, 'written')\n"
    "    except OSError as exc:\n"
    "        print(path, 'refused', exc.strerror)\n"
)


async def test_read_only_writes_nothing_but_its_own_tmp(project: Path) -> None:
    done = await run(project, "read-only", WRITE)
    # Where the throwaway layer exists, the write works inside it and vanishes with the call.
    layer = system_sandbox().layer
    assert ("new.txt written" if layer else "new.txt refused Read-only file system") in done.output
    assert ".git/x refused" in done.output
    assert ".foehn/x refused" in done.output
    assert "/tmp/x written" in done.output
    assert sorted(os.listdir(project)) == [".foehn", ".git", "a.txt"]
    assert done.sandbox == "read-only"


async def test_workspace_write_writes_the_workspace_but_not_git_or_foehn(project: Path) -> None:
    done = await run(project, "workspace-write", WRITE)
    assert "new.txt written" in done.output
    assert ".git/x refused Read-only file system" in done.output
    assert ".foehn/x refused Read-only file system" in done.output
    assert (project / "new.txt").read_text() == "x"
    assert not (project / ".git" / "x").exists()


async def test_tmp_is_private_to_each_call(project: Path) -> None:
    marker = f"/tmp/foehn-private-{os.getpid()}"
    await run(project, "workspace-write", f"open({marker!r}, 'w').write('x')")
    assert not await asyncio.to_thread(os.path.exists, marker)
    again = await run(project, "read-only", f"import os; print(os.path.exists({marker!r}))")
    assert again.output.strip() == "False"


async def test_home_is_empty_and_the_root_is_read_only(project: Path) -> None:
    code = (
        "import os\n"
        "print(sorted(os.listdir(os.path.expanduser('~'))))\n"
        "try:\n"
        "    open('/etc/foehn-test', 'w')\n"
        "except OSError as exc:\n"
        "    print('etc', exc.strerror)\n"
    )
    done = await run(project, "workspace-write", code)
    home = Path.home().resolve()
    view = system_sandbox().view(Workspace([project]), project, "workspace-write")
    toolchains = sorted(  # the person's toolchains under the home, re-bound read-only
        {e.path.relative_to(home).parts[0] for e in view.entries() if home in e.path.parents}
    )
    assert done.output.splitlines()[:2] == [str(toolchains), "etc Read-only file system"]


async def test_no_network_not_even_the_hosts_loopback(project: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.settimeout(0.5)
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), 5); print('connected')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.strerror)\n"
    )
    try:
        done = await run(project, "workspace-write", code)
        assert done.output.startswith("refused")
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()


async def test_only_its_own_processes_are_visible(project: Path) -> None:
    done = await run(project, "read-only", "import os; print(sorted(os.listdir('/proc')))")
    pids = [p for p in eval(done.output) if p.isdigit()]
    assert len(pids) <= 3  # bubblewrap's init and the program
    assert str(os.getpid()) not in pids or int(str(os.getpid())) <= 3


async def test_full_runs_with_the_persons_rights_and_the_allowlisted_environment(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOEHN_API_KEY", "sk-never-shown")
    # Full writes the real /tmp: it is left out here.
    workspace_only = WRITE.replace(", '/tmp/x'", "")
    done = await run(project, "full", workspace_only + "import os; print(sorted(os.environ))")
    assert "new.txt written" in done.output
    assert ".git/x written" in done.output
    assert "sk-never-shown" not in done.output
    assert "FOEHN_API_KEY" not in done.output


def test_the_environment_is_an_allowlist() -> None:
    env = allowed_environment(
        home="/sandbox-home",
        virtual_env=Path("/ws/.venv"),
        extra={"GIT_PAGER": "cat"},
        source={
            "PATH": "/usr/bin",
            "LANG": "C.UTF-8",
            "LC_CTYPE": "C.UTF-8",
            "PGPASSWORD": "x",
            "DATABASE_URL": "postgres://u:p@h/d",
            "SSH_AUTH_SOCK": "/run/agent",
            "HOME": "/root",
        },
    )
    assert env == {
        "PATH": "/ws/.venv/bin:/usr/bin",
        "LANG": "C.UTF-8",
        "LC_CTYPE": "C.UTF-8",
        "HOME": "/sandbox-home",
        "TMPDIR": "/tmp",
        "VIRTUAL_ENV": "/ws/.venv",
        "GIT_PAGER": "cat",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


@pytest.mark.parametrize(("own", "passed"), [(None, "1"), ("", ""), ("x", "x")])
def test_python_writes_no_bytecode_unless_the_person_says_otherwise(
    own: str | None, passed: str
) -> None:
    source = {"PATH": "/usr/bin"} | ({} if own is None else {"PYTHONDONTWRITEBYTECODE": own})
    env = allowed_environment(home="/h", source=source)
    assert env["PYTHONDONTWRITEBYTECODE"] == passed


async def test_a_sandboxed_policy_without_a_sandbox_is_refused(project: Path) -> None:
    none = Sandbox(bwrap=None, note="none here")
    assert none.policy_for("read-only") == "full"
    with pytest.raises(SandboxUnavailableError):
        await none.run(
            ["true"], workspace=Workspace([project]), cwd=project, policy="read-only", seconds=5
        )


def test_programs_on_the_persons_path_are_offered_and_others_are_not(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.path.realpath(tmp_path / "home"))
    for folder in ("bin", "elsewhere"):
        (home / folder).mkdir(parents=True)
        tool = home / folder / f"only-in-{folder}"
        tool.write_text("#!/bin/sh\n")
        tool.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    workspace = Workspace([project])
    sandbox = system_sandbox()
    assert sandbox.which("only-in-bin", workspace, "read-only") == str(home / "bin" / "only-in-bin")
    assert sandbox.hides(str(home / "elsewhere" / "only-in-elsewhere"), workspace, "read-only")
    assert sandbox.which("ls", workspace, "read-only") is not None


def test_a_program_in_a_hidden_folder_is_named_as_hidden(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.path.realpath(tmp_path / "home"))
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    workspace = Workspace([project])
    assert system_sandbox().hides(str(home / "tool"), workspace, "read-only")
    assert not system_sandbox().hides(str(home / "tool"), workspace, "full")
    assert not system_sandbox().hides("/usr/bin/env", workspace, "read-only")


async def test_a_git_folder_behind_a_symlink_is_read_only_and_never_replaced(root: Path) -> None:
    """A program could remove the link and make a real ``.git``: nothing that may write runs
    there, and read-only programs see it read-only."""
    (root / "gitdata").mkdir()
    (root / ".git").symlink_to(root / "gitdata")
    with pytest.raises(SandboxViewError, match=r"the workspace's \.git is a symbolic link"):
        await run(root, "workspace-write", WRITE)
    done = await run(root, "read-only", WRITE)
    assert ".git/x refused Read-only file system" in done.output
    assert not (root / "gitdata" / "x").exists()
    assert (root / ".git").is_symlink()


def test_a_bubblewrap_that_cannot_work_here_is_reported_in_its_own_words(
    tmp_path: Path,
) -> None:
    from foehn_lsp.sandbox.bwrap import probe

    failing = tmp_path / "bwrap"
    said = "bwrap: No permissions to create new namespace"
    failing.write_text(f"#!/bin/sh\necho '{said}' >&2\nexit 1\n")
    failing.chmod(0o755)
    assert probe(str(failing)) == f"{failing} cannot create namespaces here: {said}"
    assert "could not be started" in (probe(str(tmp_path / "missing")) or "")


WRITES_RAN = "open('ran.txt', 'w').write('ran')"
TOO_LONG = "x" * 200_000
"""One argument over the kernel's limit on a single argument (128 KiB): ``exec`` fails with
``E2BIG`` before anything runs."""


@pytest.mark.parametrize("policy", ["workspace-write", "full"])
async def test_a_program_that_cannot_start_is_said_so_and_nothing_runs(
    project: Path, policy: SandboxPolicy
) -> None:
    with pytest.raises(ProgramStartError) as raised:
        await system_sandbox().run(
            [PY, "-c", WRITES_RAN, TOO_LONG],
            workspace=Workspace([project]),
            cwd=project,
            policy=policy,
            seconds=30,
        )
    said = str(raised.value)
    assert "Argument list too long" in said
    assert "nothing ran" in said
    assert "limits" not in said
    assert not (project / "ran.txt").exists()


async def test_a_missing_program_or_bubblewrap_is_named_and_not_taken_for_the_limits(
    project: Path, tmp_path: Path
) -> None:
    workspace = Workspace([project])
    with pytest.raises(ProgramStartError, match="No such file or directory") as raised:
        await system_sandbox().run(
            [str(tmp_path / "no-such-program")],
            workspace=workspace,
            cwd=project,
            policy="full",
            seconds=30,
        )
    assert "limits" not in str(raised.value)
    gone = Sandbox(
        bwrap=str(tmp_path / "gone" / "bwrap"),
        note="removed since",
        prlimit=system_sandbox().prlimit,
    )
    with pytest.raises(ProgramStartError, match="bubblewrap") as raised:
        await gone.run(
            [PY, "-c", WRITES_RAN], workspace=workspace, cwd=project, policy="read-only", seconds=30
        )
    assert "No such file or directory" in str(raised.value)
    assert "limits" not in str(raised.value)
    assert not (project / "ran.txt").exists()


class Yes:
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        return Approved()


async def test_run_command_says_its_program_could_not_start(
    project: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    gate = ApprovalGate(ApprovalSettings(), Yes(), lambda event: None)
    result = await registry.call(
        "run_command",
        {"command": ["python3", "-c", WRITES_RAN, TOO_LONG]},
        ctx,
        steps=(*steps(), gate),
    )
    assert not result.ok
    assert "python3 was not run" in result.output
    assert "Argument list too long" in result.output
    assert "limits" not in result.output
    assert "internal error" not in result.output
    assert not (project / "ran.txt").exists()
