"""A person's toolchains under their home folder run as in their shell: read-only calls of them
run without asking, in the sandbox, with the version the person's ``PATH`` picks.

The home folder is laid out like a real one under a temporary folder: a virtual environment's
console script, pyenv's shims and versions, a version manager's Node ahead of the system's, a
fnm-style symbolic link, a ``uv tool`` install linked from ``~/.local/bin``, a cargo home with
its rustup home, a user's own script in ``~/bin``, and Foehn's own virtual environment. The
programs are small scripts that print a version (a real Node or Rust is not needed to show
which one runs). Then this machine's real setup, where it has toolchains under the home.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.policy.approval import ApprovalGate, ApprovalRequest, Denied
from foehn_lsp.sandbox.toolchains import find
from foehn_lsp.tools import ToolRegistry
from sandbox.conftest import needs_sandbox

pytestmark = [pytest.mark.process, needs_sandbox]


class Nobody:
    """Says no to everything, and counts what it is asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> Denied:
        self.asked.append(request)
        return Denied(reason="the toolchain suite asks nothing")


def program(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def version(path: Path, printed: str) -> Path:
    return program(path, f"#!/bin/sh\necho '{printed}'\n")


def venv(folder: Path) -> Path:
    """A virtual environment made from the Python running the tests, without pip."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return folder


@pytest.fixture
def toolchains(home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The home's toolchains on ``PATH`` as a shell profile would put them; each program's
    name with the version it must print."""
    tools = venv(home / ".venvs" / "tools")
    program(
        tools / "bin" / "black",
        f"#!{tools / 'bin' / 'python'}\nimport sys\nprint('black, 99.1 (venv)', sys.prefix)\n",
    )
    pyenv = home / ".pyenv"
    version(pyenv / "versions" / "3.99.0" / "bin" / "python3", "Python 3.99.0")
    program(
        pyenv / "shims" / "python3",
        f'#!/bin/sh\nexec "{pyenv}/versions/$(cat {pyenv}/version)/bin/python3" "$@"\n',
    )
    (pyenv / "version").write_text("3.99.0\n")
    nvm = home / ".nvm" / "versions" / "node" / "v99.1.0"
    version(nvm / "bin" / "node", "v99.1.0")
    fnm = home / ".local" / "share" / "fnm" / "node-versions" / "v98.0.0" / "installation"
    version(fnm / "bin" / "deno", "deno 98.0.0 (fnm-style link)")
    shell = home / ".local" / "state" / "fnm_multishells" / "1234_5678"
    shell.parent.mkdir(parents=True)
    shell.symlink_to(fnm)
    ruff_venv = venv(home / ".local" / "share" / "uv" / "tools" / "ruff")
    version(ruff_venv / "bin" / "ruff", "ruff 99.9.9 (uv tool)")
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "ruff").symlink_to(ruff_venv / "bin" / "ruff")
    cargo, rustup = home / ".cargo", home / ".rustup"
    (rustup / "toolchains" / "stable").mkdir(parents=True)
    (rustup / "toolchains" / "stable" / "version").write_text("cargo 99.0.0 (rustup)\n")
    program(cargo / "bin" / "rustup", "#!/bin/sh\n")
    program(cargo / "bin" / "cargo", f"#!/bin/sh\ncat {rustup}/toolchains/stable/version\n")
    (cargo / "credentials.toml").write_text('[registry]\ntoken = "CANARY-CARGO-TOKEN"\n')
    version(home / "bin" / "jq", "jq-99.1 (a script of the user)")
    path = [
        home / "bin",
        cargo / "bin",
        pyenv / "shims",
        nvm / "bin",
        shell / "bin",
        home / ".local" / "bin",
        tools / "bin",
    ]
    monkeypatch.setenv("PATH", os.pathsep.join([*map(str, path), os.environ["PATH"]]))
    return {
        "black": "black, 99.1 (venv)",
        "python3": "Python 3.99.0",
        "node": "v99.1.0",
        "deno": "deno 98.0.0 (fnm-style link)",
        "ruff": "ruff 99.9.9 (uv tool)",
        "cargo": "cargo 99.0.0 (rustup)",
        "jq": "jq-99.1 (a script of the user)",
    }


async def unasked(registry: ToolRegistry, ctx: ToolContext, *command: str) -> ToolResult:
    person = Nobody()
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    result = await registry.call(
        "run_command", {"command": list(command)}, ctx, steps=(*steps(), gate)
    )
    assert person.asked == [], f"{command} asked"
    return result


async def test_each_toolchain_runs_read_only_unasked_with_its_version(
    toolchains: dict[str, str], ctx: ToolContext, registry: ToolRegistry, home: Path
) -> None:
    for name, printed in toolchains.items():
        result = await unasked(registry, ctx, name, "--version")
        assert result.ok, (name, result.output)
        assert printed in result.output, (name, result.output)
        assert "sandbox read-only" in result.output


async def test_the_venv_script_runs_with_its_own_environment(
    toolchains: dict[str, str], ctx: ToolContext, registry: ToolRegistry, home: Path
) -> None:
    result = await unasked(registry, ctx, "black", "--check", ".")
    assert result.ok, result.output
    assert str(home / ".venvs" / "tools") in result.output


async def test_credentials_inside_a_toolchain_stay_masked(
    toolchains: dict[str, str], ctx: ToolContext, registry: ToolRegistry, home: Path
) -> None:
    read = await registry.call(
        "run_command",
        {
            "command": ["cat", str(home / ".cargo" / "credentials.toml")],
            "sandbox": "workspace-write",
        },
        ctx,
        steps=steps(),
    )
    assert "CANARY-CARGO-TOKEN" not in read.output
    assert not read.ok


async def test_the_rest_of_the_home_stays_out_of_sight(
    toolchains: dict[str, str], ctx: ToolContext, registry: ToolRegistry, home: Path
) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("CANARY-KEY\n")
    (home / "notes.txt").write_text("CANARY-NOTES\n")
    listing = await registry.call(
        "run_command",
        {"command": ["ls", "-a", str(home)], "sandbox": "workspace-write"},
        ctx,
        steps=steps(),
    )
    shown = set(listing.output.splitlines()[2:])
    assert shown <= {".", "..", ".venvs", ".pyenv", ".nvm", ".local", ".cargo", ".rustup", "bin"}
    assert ".ssh" not in shown
    assert "notes.txt" not in shown


def test_foehns_own_venv_under_the_home_runs_its_python_in_the_sandbox(
    home: Path, root: Path
) -> None:
    """Foehn installed in a virtual environment under the home folder: the interpreter that
    ``run_tests`` and sandboxed Python calls use is Foehn's own, and it must be visible."""
    own = venv(home / ".local" / "share" / "foehn")
    site = subprocess.run(
        [
            str(own / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.strip()
    sources = [Path(p) for p in sys.path if p.endswith(("site-packages", "server", "plugins"))]
    Path(site, "foehn-under-test.pth").write_text("".join(f"{p}\n" for p in sources))
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from pathlib import Path
        from foehn_lsp.sandbox import system_sandbox
        from foehn_lsp.workspace import Workspace
        root = Path({str(root)!r})
        done = asyncio.run(system_sandbox().run(
            [sys.executable, "-c", "import sys; print('inside', sys.prefix)"],
            workspace=Workspace([root]), cwd=root, policy="workspace-write", seconds=60))
        print(done.exit_code, done.output)
        """
    )
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run(
        [str(own / "bin" / "python"), "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "inside", str(own)], done.stdout + done.stderr


def _under_home(name: str) -> Path | None:
    found = shutil.which(name)
    if found is None:
        return None
    home = Path(os.path.realpath(Path.home()))
    real = Path(os.path.realpath(found))
    return Path(found) if home in real.parents or home in Path(found).parents else None


@pytest.mark.parametrize("name", ["python3", "cargo"])
async def test_this_machines_toolchains_under_the_home_work(
    name: str, ctx: ToolContext, registry: ToolRegistry
) -> None:
    """The machine's own setup (where it keeps these under the home folder, as these machines
    do: pyenv's shim for python3, cargo under ~/.cargo)."""
    found = _under_home(name)
    if found is None:
        pytest.skip(f"{name} is not installed under this machine's home folder")
    outside = (
        await asyncio.to_thread(
            subprocess.run,
            [name, "--version"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    ).stdout.strip()
    result = await unasked(registry, ctx, name, "--version")
    assert result.ok, result.output
    assert result.output.endswith(outside)


def _layout(home: Path, kind: str) -> tuple[Path, Path]:
    """A ``PATH`` entry laid out as ``kind`` installs it, and the root that must be bound."""
    if kind == "conda":
        env = home / "miniforge3" / "envs" / "data"
        (env / "conda-meta").mkdir(parents=True)
        return version(env / "bin" / "python3", "Python 3.99").parent, env
    if kind == "volta":
        volta = home / ".volta"
        version(volta / "bin" / "volta-shim", "volta")
        (volta / "tools" / "image" / "node" / "99.0.0").mkdir(parents=True)
        return volta / "bin", volta
    if kind == "sdkman":
        java = home / ".sdkman" / "candidates" / "java"
        version(java / "99.0.1-tem" / "bin" / "java", "java 99")
        (java / "current").symlink_to(java / "99.0.1-tem")
        return java / "current" / "bin", java / "99.0.1-tem"
    if kind == "homebrew":
        brew = home.parent / "linuxbrew" / ".linuxbrew"
        version(brew / "Cellar" / "jq" / "9.9" / "bin" / "jq", "jq-9.9")
        (brew / "bin").mkdir(parents=True)
        (brew / "bin" / "jq").symlink_to(brew / "Cellar" / "jq" / "9.9" / "bin" / "jq")
        return brew / "bin", brew
    if kind == "go":
        return version(home / "go" / "bin" / "gopls", "gopls v9").parent, home / "go"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["conda", "volta", "sdkman", "homebrew", "go"])
def test_each_installation_is_bound_whole_and_no_wider(home: Path, kind: str) -> None:
    entry, root = _layout(home, kind)
    found = find(str(entry), home, {})
    assert [r.path for r in found.roots] == [root.resolve()], found
    assert found.path == (entry.resolve(),)
    assert found.dropped == ()


def test_a_toolchain_variable_brings_its_folder_and_is_passed_on(home: Path) -> None:
    goroot = home / "sdk" / "go99"
    version(goroot / "bin" / "go", "go99")
    found = find("/usr/bin", home, {"GOROOT": str(goroot), "GOPATH": str(home)})
    assert [r.path for r in found.roots] == [goroot.resolve()]
    assert found.variables == ("GOROOT",)
    assert found.refused == (
        f"{home} (toolchain variable GOPATH) is the whole home folder: not bound",
    )
