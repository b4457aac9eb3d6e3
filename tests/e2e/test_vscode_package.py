"""The platform ``.vsix`` holds only what belongs (``vsce ls`` and the package itself), within
its size budget, and its server bundle serves Pythons 3.11 to 3.14 on linux-x64."""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from vscode_harness import EXTENSION, installed

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not installed() and not os.environ.get("FOEHN_E2E_REQUIRED"),
        reason="real VS Code is not installed; run scripts/setup-vscode-e2e",
    ),
]

BELONGS = re.compile(
    r"(package\.json|readme\.md|README\.md|changelog\.md|CHANGELOG\.md|LICENSE(\.txt)?"
    r"|THIRD_PARTY_NOTICES\.md|out/(extension\.js|webview\.js|webview\.css)"
    r"|bundled/(manifest\.json|offline-model\.txt|pip-[\d.]+-py3-none-any\.whl|wheels/[^/]+\.whl)"
    r"|media/(icon\.png|foehn\.svg|walkthrough/[a-z]+\.md))"
)
"""Every file of the extension the package may hold (paths below ``extension/``)."""
BUDGET = {"package": 50_000_000, "wheels": 45_000_000, "out/extension.js": 1_000_000}
"""Bytes: the whole .vsix (compressed), the wheels it carries, the bundled extension code."""


def test_the_package_holds_only_what_belongs_within_its_budget(packaged: Path) -> None:
    with zipfile.ZipFile(packaged) as archive:
        entries = {info.filename: info.file_size for info in archive.infolist()}
        manifest = json.loads(archive.read("extension/bundled/manifest.json"))
        vsixmanifest = archive.read("extension.vsixmanifest").decode()
    files = {name.removeprefix("extension/"): size for name, size in entries.items()}
    stray = [
        name
        for name in files
        if name not in ("[Content_Types].xml", "extension.vsixmanifest")
        and not BELONGS.fullmatch(name)
    ]
    assert stray == []
    assert packaged.stat().st_size <= BUDGET["package"], packaged.stat().st_size
    wheels = sum(size for name, size in files.items() if name.startswith("bundled/wheels/"))
    assert wheels <= BUDGET["wheels"], wheels
    assert files["out/extension.js"] <= BUDGET["out/extension.js"]
    assert 'TargetPlatform="linux-x64"' in vsixmanifest
    assert manifest["target"] == "linux-x64"
    assert manifest["pythons"] == ["3.11", "3.12", "3.13", "3.14"]
    assert (
        sorted(name.removeprefix("bundled/wheels/") for name in files if "/wheels/" in name)
        == (manifest["wheels"])
    )
    for python in ("cp311", "cp312", "cp313", "cp314"):
        assert any("pydantic_core-" in w and f"-{python}-" in w for w in manifest["wheels"])


def test_vsce_lists_only_what_belongs(packaged: Path) -> None:
    listed = subprocess.run(
        [str(EXTENSION / "node_modules" / ".bin" / "vsce"), "ls", "--no-dependencies"],
        cwd=EXTENSION,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.split()
    assert "package.json" in listed
    assert [name for name in listed if not BELONGS.fullmatch(name)] == []
