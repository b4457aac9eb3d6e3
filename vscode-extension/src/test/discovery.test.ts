import assert from "node:assert/strict";
import { test } from "node:test";
import { INSTALL_HINT, findServer } from "../discovery";

const base = {
  serverPath: "",
  pythonPath: "",
  workspaceFolders: ["/work/project"],
  pathVariable: "/usr/local/bin:/usr/bin",
  platform: "linux" as NodeJS.Platform,
};

function only(...executables: string[]) {
  return (file: string) => executables.includes(file);
}

test("the serverPath setting wins", () => {
  const found = findServer({ ...base, serverPath: "/opt/foehn", isExecutable: only("/opt/foehn", "/usr/bin/foehn") });
  assert.deepEqual(found, { command: "/opt/foehn", args: ["serve"], source: "foehn.serverPath" });
});

test("pythonPath runs the module", () => {
  const found = findServer({ ...base, pythonPath: "/py/bin/python", isExecutable: only("/py/bin/python") });
  assert.deepEqual(found, {
    command: "/py/bin/python",
    args: ["-m", "foehn_lsp", "serve"],
    source: "foehn.pythonPath",
  });
});

test("a setting that points nowhere is an error, not a fallback", () => {
  const found = findServer({ ...base, serverPath: "/missing", isExecutable: only("/usr/bin/foehn") });
  assert.ok("error" in found && found.error.includes("/missing"));
});

test("the workspace .venv comes before PATH", () => {
  const found = findServer({
    ...base,
    isExecutable: only("/work/project/.venv/bin/foehn", "/usr/bin/foehn"),
  });
  assert.deepEqual(found, {
    command: "/work/project/.venv/bin/foehn",
    args: ["serve"],
    source: "the workspace's .venv",
  });
});

test("then foehn on PATH", () => {
  const found = findServer({ ...base, isExecutable: only("/usr/bin/foehn") });
  assert.deepEqual(found, { command: "/usr/bin/foehn", args: ["serve"], source: "PATH" });
});

test("nothing found is one message with the pip command", () => {
  const found = findServer({ ...base, isExecutable: only() });
  assert.deepEqual(found, { error: INSTALL_HINT });
  assert.match(INSTALL_HINT, /pip install foehn-lsp/);
});

test("Windows looks in Scripts for foehn.exe", () => {
  const found = findServer({
    ...base,
    platform: "win32",
    pathVariable: "",
    workspaceFolders: ["C:/p"],
    isExecutable: (file) => file.endsWith("Scripts/foehn.exe") || file.endsWith("Scripts\\foehn.exe"),
  });
  assert.ok("command" in found && found.command.endsWith("foehn.exe"));
});
