import assert from "node:assert/strict";
import { test } from "node:test";
import { explicitServer, managedLaunch } from "../discovery";

function only(...executables: string[]) {
  return (file: string) => executables.includes(file);
}

test("the serverPath setting wins", () => {
  const found = explicitServer({ serverPath: "/opt/foehn", pythonPath: "/py/bin/python", isExecutable: only("/opt/foehn", "/py/bin/python") });
  assert.deepEqual(found, { command: "/opt/foehn", prefix: [], source: "foehn.serverPath" });
});

test("pythonPath runs the module", () => {
  const found = explicitServer({ serverPath: "", pythonPath: "/py/bin/python", isExecutable: only("/py/bin/python") });
  assert.deepEqual(found, { command: "/py/bin/python", prefix: ["-m", "foehn_lsp"], source: "foehn.pythonPath" });
});

test("a setting that names no executable is said, not passed over", () => {
  const found = explicitServer({ serverPath: "/missing", pythonPath: "", isExecutable: only("/usr/bin/foehn") });
  assert.deepEqual(found, { error: "foehn.serverPath (/missing) is not an executable file." });
});

test("with neither setting the managed environment runs, isolated: no workspace .venv, no PATH", () => {
  assert.equal(explicitServer({ serverPath: "", pythonPath: "", isExecutable: () => true }), undefined);
  assert.deepEqual(managedLaunch("/storage/python/envs/k/bin/python"), {
    command: "/storage/python/envs/k/bin/python",
    prefix: ["-I", "-m", "foehn_lsp"],
    source: "the managed environment",
  });
});
