"""The VS Code extension's store metadata agrees with the Python package's: the repository is
the one pyproject.toml names, the icon is a PNG of at least 128 px, the categories include the
store's AI and chat ones, and nothing reports usage (no telemetry module, no such setting)."""

from __future__ import annotations

import json
import struct
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXTENSION = REPO / "vscode-extension"


def _package() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((EXTENSION / "package.json").read_text())
    return manifest


def test_the_repository_is_the_one_pyproject_names() -> None:
    urls = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]
    assert _package()["repository"]["url"] == urls["Repository"]
    assert str(_package()["homepage"]).startswith(urls["Repository"])


def test_the_icon_is_a_png_of_at_least_128_pixels() -> None:
    icon = EXTENSION / str(_package()["icon"])
    header = icon.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert width >= 128, width
    assert height >= 128, height


def test_the_store_finds_it_under_ai_and_chat_with_keywords() -> None:
    package = _package()
    assert {"AI", "Chat"} <= set(package["categories"])
    assert 5 <= len(package["keywords"]) <= 30


def test_no_telemetry() -> None:
    dependencies = {**_package()["dependencies"], **_package()["devDependencies"]}
    assert not [name for name in dependencies if "telemetry" in name or "insights" in name]
    sources = "\n".join(p.read_text() for p in (EXTENSION / "src").rglob("*.ts"))
    assert "telemetry" not in sources.lower()
