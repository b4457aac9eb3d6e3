"""The view by granting, its bad inputs and faults, the protected names and ``foehn sandbox``:
real programs in the real sandbox, in real temporary folders."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.cli.main import main
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.config.sandbox import SandboxSettings
from foehn_lsp.policy.approval import ApprovalGate, ApprovalRequest, Approved
from foehn_lsp.sandbox import Finished, SandboxViewError, system_sandbox
from foehn_lsp.sandbox.policy import SandboxPolicy
from foehn_lsp.sandbox.toolchains import is_system, within
from foehn_lsp.sandbox.view import PROTECTED_NAMES, machine
from foehn_lsp.tools import ToolRegistry
from foehn_lsp.workspace import Workspace
from sandbox.conftest import needs_sandbox

pytestmark = needs_sandbox
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


async def run(root: Path, argv: list[str], policy: SandboxPolicy = "read-only") -> Finished:
    return await system_sandbox().run(
        argv, workspace=Workspace([root]), cwd=root, policy=policy, seconds=60
    )


class Yes:
    """Approves everything it is asked, and keeps the requests."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> Approved:
        self.asked.append(request)
        return Approved()


async def approved(
    registry: ToolRegistry, ctx: ToolContext, tool: str, person: Yes, **arguments: object
) -> ToolResult:
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    return await registry.call(tool, arguments, ctx, steps=(*steps(), gate))


def test_the_view_grants_the_system_the_toolchains_and_foehns_python(home: Path) -> None:
    seen = machine(SandboxSettings())
    kinds = {e.kind for e in seen.granted}
    assert {"system"} == {e.kind for e in seen.system}
    assert {e.path for e in seen.system} >= {Path("/usr"), Path("/etc")}
    assert kinds <= {"toolchain", "foehn", "readable"}
    for prefix in (sys.prefix, sys.base_prefix):
        real = Path(os.path.realpath(prefix))
        assert is_system(real) or any(within(real, e.path) for e in seen.granted), real
    assert all(e.why for e in (*seen.system, *seen.granted))
    assert Path("/etc/shadow") in seen.masked or not Path("/etc/shadow").exists()


async def test_outside_the_granted_folders_nothing_is_there(
    home: Path, tmp_path: Path, root: Path
) -> None:
    (home / "secret.txt").write_text("SECRET-HOME\n")
    sibling = root.parent / "sibling"
    sibling.mkdir()
    (sibling / ".env").write_text("SECRET-SIBLING\n")
    (root / "out").symlink_to(sibling)
    code = "import os, sys\nfor path in sys.argv[1:]:\n    print(path, os.path.exists(path))\n"
    paths = [str(home / "secret.txt"), str(sibling / ".env"), "out/.env", "/srv", "/opt", "/mnt"]
    done = await run(root, [PY, "-c", code, *paths])
    assert done.output.splitlines() == [f"{p} False" for p in paths], done.output
    listing = await run(root, ["/bin/ls", "-a", str(root.parent), str(home)])
    # The parent holds the workspace and (here) the home folder, an empty scratch folder inside.
    assert listing.output.split() == [
        f"{root.parent}:",
        ".",
        "..",
        "home",
        root.name,
        f"{home}:",
        ".",
        "..",
    ]


async def test_etc_secrets_and_toolchain_credentials_cannot_be_opened(
    home: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cargo = home / ".cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin" / "cargo-like").write_text("#!/bin/sh\necho cargo-like 1.0\n")
    (cargo / "bin" / "cargo-like").chmod(0o755)
    (cargo / "credentials.toml").write_text('[registry]\ntoken = "CANARY-CARGO"\n')
    (home / ".npmrc").write_text("//registry/:_authToken=CANARY-NPM\n")
    monkeypatch.setenv("PATH", f"{cargo / 'bin'}{os.pathsep}{os.environ['PATH']}")
    done = await run(root, ["/bin/cat", str(cargo / "credentials.toml"), "/etc/shadow"])
    assert "CANARY" not in done.output
    assert done.exit_code != 0
    assert "cargo-like 1.0" in (await run(root, ["cargo-like"])).output


def test_bad_path_entries_are_left_out_with_one_line_each(home: Path, tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    entries = ["", "relative/bin", str(tmp_path / "missing"), str(loop), str(home), "/usr/bin"]
    seen = machine(SandboxSettings(), {"PATH": os.pathsep.join(entries), "HOME": str(home)})
    why = dict(seen.dropped)
    assert why == {
        "": "an empty entry means the current folder, which may be the workspace",
        "relative/bin": "a relative entry depends on the current folder, which may be the "
        "workspace",
        str(tmp_path / "missing"): "it does not exist",
        str(loop): "it is a symbolic link loop",
        str(home): f"its installation {home} is the whole home folder",
    }
    assert seen.path == (Path("/usr/bin"),)
    assert f"{home} (PATH entry {home}: folder on PATH) is the whole home folder: not bound" in (
        seen.refused
    )
    assert not any(e.path == home for e in seen.granted)


def test_readable_folders_that_are_too_wide_or_missing_are_refused(home: Path) -> None:
    (home / "datasets").mkdir()
    settings = SandboxSettings(readable=("~", "~/datasets", "~/nothing-here", "/"))
    seen = machine(settings, {"PATH": "/usr/bin", "HOME": str(home)})
    assert [e.path for e in seen.granted if e.kind == "readable"] == [home / "datasets"]
    assert seen.refused == (
        "readable '~' is the whole home folder: not bound",
        "readable '~/nothing-here' is not a folder here: not bound",
        "readable '/' is the whole file system: not bound",
    )


async def test_readable_and_hidden_from_the_user_config(
    home: Path, root: Path, sandbox_config: Callable[[str], None]
) -> None:
    data = home / "datasets"
    data.mkdir()
    (data / "a.csv").write_text("1,2\n")
    (data / "private").mkdir()
    (data / "private" / "key").write_text("CANARY-HIDDEN\n")
    sandbox_config('readable = ["~/datasets"]\nhidden = ["~/datasets/private"]')
    done = await run(root, ["/bin/cat", str(data / "a.csv"), str(data / "private" / "key")])
    assert "1,2" in done.output
    assert "CANARY-HIDDEN" not in done.output


async def test_a_workspace_cannot_widen_the_view(home: Path, root: Path) -> None:
    """A repository's own settings never reach the sandbox: only the user config does."""
    (home / "secret").mkdir()
    (home / "secret" / "x").write_text("CANARY\n")
    (root / ".foehn").mkdir()
    (root / ".foehn" / "config.toml").write_text('[sandbox]\nreadable = ["~/secret"]\n')
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text('{"foehn.sandbox": {"readable": ["~"]}}')
    done = await run(root, ["/bin/cat", str(home / "secret" / "x")])
    assert "CANARY" not in done.output


async def test_an_unreadable_sandbox_config_stops_every_sandboxed_call(
    home: Path, root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (home / ".config" / "foehn" / "config.toml").write_text("[sandbox]\nmemory_mb = 'lots'\n")
    result = await registry.call("run_command", {"command": ["ls"]}, ctx, steps=steps())
    assert not result.ok
    assert "sandbox.memory_mb" in result.output
    assert "no sandboxed program runs until it is fixed" in result.output


async def test_a_path_bubblewrap_cannot_bind_fails_the_call_closed(
    home: Path, root: Path, sandbox_config: Callable[[str], None]
) -> None:
    data = home / "data"
    data.mkdir()
    sandbox_config('readable = ["~/data"]')
    system_sandbox().machine()  # built while the folder is there
    data.rmdir()
    with pytest.raises(SandboxViewError, match="the sandbox could not be built, so nothing ran"):
        await run(root, ["/bin/true"])


async def test_a_symlink_loop_in_the_workspace_gets_one_clear_line(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    (root / "a").symlink_to(root / "b")
    (root / "b").symlink_to(root / "a")
    result = await registry.call("run_command", {"command": ["cat", "a"]}, ctx, steps=steps())
    assert not result.ok
    assert "Too many levels of symbolic links" in result.output or "loop" in result.output


async def test_protected_names_cannot_be_made_and_leave_nothing_behind(root: Path) -> None:
    code = (
        "import os\n"
        "for name in ('.git', '.foehn', '.vscode'):\n"
        "    for attempt in (lambda: os.makedirs(name + '/hooks'), lambda: os.rmdir(name),\n"
        "                    lambda: os.rename(name, 'moved'), lambda: os.symlink('x', name)):\n"
        "        try:\n"
        "            attempt(); print(name, 'changed')\n"
        "        except OSError as exc:\n"
        "            print(name, 'refused', exc.strerror)\n"
        "try:\n"
        "    open('.envrc', 'w').write('x'); print('.envrc changed')\n"
        "except OSError as exc:\n"
        "    print('.envrc refused', exc.strerror)\n"
        "open('ordinary.txt', 'w').write('x')\n"
    )
    calls = [run(root, [PY, "-c", code], "workspace-write") for _ in range(3)]
    for done in await asyncio.gather(*calls):
        assert "changed" not in done.output, done.output
        assert done.output.count("refused") == 13
    assert sorted(os.listdir(root)) == ["ordinary.txt"]


async def test_existing_protected_names_stay_as_they_are(root: Path) -> None:
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n")
    (root / ".envrc").write_text("export A=1\n")
    done = await run(
        root,
        ["/bin/sh", "-c", "echo x >> .envrc; echo y > .vscode/settings.json; rm -rf .vscode"],
        "workspace-write",
    )
    assert done.exit_code != 0
    assert (root / ".envrc").read_text() == "export A=1\n"
    assert (root / ".vscode" / "settings.json").read_text() == "{}\n"


async def test_a_placeholder_the_person_filled_is_kept(root: Path) -> None:
    started = asyncio.create_task(
        run(root, [PY, "-c", "import time; time.sleep(3)"], "workspace-write")
    )
    for _ in range(500):
        if (root / ".git").is_dir():
            break
        await asyncio.sleep(0.01)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # the person's git init
    await started
    assert (root / ".git" / "HEAD").is_file()
    assert not (root / ".envrc").exists()


async def test_git_init_is_its_own_approved_call(
    root: Path, ctx: ToolContext, registry: ToolRegistry
) -> None:
    refused = await registry.call("run_command", {"command": ["git", "init"]}, ctx, steps=steps())
    assert not refused.ok
    assert refused.output == (
        "git init was not run: create_repository makes a repository (the person is asked); "
        "programs cannot create .git."
    )
    person = Yes()
    made = await approved(registry, ctx, "create_repository", person, initial_branch="main")
    assert made.ok, made.output
    assert (root / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert person.asked[0].summary == "creates a git repository (.git/) in the workspace root"
    again = await approved(registry, ctx, "create_repository", person)
    assert not again.ok
    assert "already has .git" in again.output


def test_foehn_sandbox_prints_the_view_with_why(root: Path, home: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["sandbox", "--json", "--workspace", str(root)]) == 0
    data = json.loads(out.getvalue())
    assert data["available"] is True
    kinds = {entry["kind"] for entry in data["visible"]}
    assert {"system", "workspace"} <= kinds
    assert all(entry["why"] for entry in data["visible"])
    assert data["writable"]["workspace-write"] == [str(root)]
    assert data["writable"]["protected"] == [str(root / name) for name in PROTECTED_NAMES]
    assert data["writable"]["read-only layer"] is system_sandbox().layer
    assert set(data["limits"]) >= {"memory_mb", "processes", "file_size_mb", "cpu_seconds"}
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        assert main(["sandbox", "--workspace", str(root)]) == 0
    shown = text.getvalue()
    assert "visible (read-only unless said):" in shown
    if system_sandbox().layer:
        assert "lands in a throwaway layer and vanishes with the call" in shown
    assert any(
        line.split()[:3] == [str(root), "workspace:", "workspace"] for line in shown.splitlines()
    )
    tools = io.StringIO()
    with contextlib.redirect_stdout(tools):
        assert main(["tools", "--workspace", str(root)]) == 0
    assert "(foehn sandbox lists them)" in tools.getvalue()
