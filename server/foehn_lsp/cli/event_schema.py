"""The JSON Schema of ``foehn run --json`` events, generated from the event types.

The published file is ``server/foehn_lsp/schema/events-v{VERSION}.json``; a test checks that it
equals what this module generates, so it follows ``agent/events.py``. Adding an event type or an
optional field keeps the version; removing or changing a field's meaning needs a new version.

    python -m foehn_lsp.cli.event_schema          # print it
    python -m foehn_lsp.cli.event_schema --write  # regenerate the published file
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from foehn_lsp.events import TurnEvent

VERSION = 1
SCHEMA_FILE = Path(__file__).parents[1] / "schema" / f"events-v{VERSION}.json"


def event_schema() -> dict[str, Any]:
    """One JSON object per line of ``foehn run --json``: exactly one of the event types, told
    apart by ``event``, which every event carries."""
    adapter: TypeAdapter[Any] = TypeAdapter(Annotated[TurnEvent, Field(discriminator="event")])
    schema = adapter.json_schema(mode="serialization")
    for definition in schema.get("$defs", {}).values():
        properties = definition.get("properties", {})
        if "event" in properties:
            definition["required"] = ["event", *definition.get("required", [])]
        # Optional fields are left out when unknown rather than sent as null.
        definition.setdefault("additionalProperties", False)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"events-v{VERSION}.json",
        "title": f"Foehn run events, version {VERSION}",
        "description": (
            "One JSON object per line on stdout of `foehn run --json`, in order; `done` is last."
        ),
        **schema,
    }


def render() -> str:
    return json.dumps(event_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        SCHEMA_FILE.write_text(render(), encoding="utf-8")
    else:
        sys.stdout.write(render())
