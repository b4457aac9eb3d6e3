import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { setupMessage } from "../python/failures";
import { type Candidate, type Probe, choose, describeChoice, inside, onPath } from "../python/interpreters";
import { probe, readProbe } from "../python/probe";
import { python3, tempFolder } from "./pythonFixtures";

const PYTHONS = ["3.11", "3.12", "3.13", "3.14"];

function candidate(command: string, source: Candidate["source"] = "path", label = "python3 on PATH"): Candidate {
  return { command, args: [], source, label };
}

function probes(answers: Record<string, Probe>): (c: Candidate) => Promise<Probe> {
  return async (c) => answers[c.command] ?? { kind: "broken", detail: "not found" };
}

const ok = (version: [number, number, number], executable: string, venv = true): Probe => ({ kind: "ok", version, executable, venv });

test("the first candidate that fits is used, and every one tried says why", async () => {
  const choice = await choose(
    [candidate("/picked/python", "picked", "the Python you picked"), candidate("/ext/python", "pythonExtension", "the Python extension's interpreter"), candidate("/usr/bin/python3")],
    probes({ "/picked/python": { kind: "broken", detail: "it exited with code 127: pyenv: python3.12: command not found" }, "/ext/python": ok([3, 10, 13], "/ext/python"), "/usr/bin/python3": ok([3, 12, 1], "/usr/bin/python3.12") }),
    PYTHONS,
    ["/work/project"],
    "linux",
  );
  assert.deepEqual(choice.chosen, { executable: "/usr/bin/python3.12", version: "3.12.1", label: "python3 on PATH" });
  assert.deepEqual(describeChoice(choice), [
    "the Python you picked (/picked/python): does not run: it exited with code 127: pyenv: python3.12: command not found",
    "the Python extension's interpreter (/ext/python): Python 3.10.13, too old (Foehn needs 3.11 or newer).",
    "python3 on PATH (/usr/bin/python3): Python 3.12.1, used.",
  ]);
});

test("an interpreter inside the workspace is never run: a repository does not choose the agent's program", async () => {
  let ran = 0;
  const choice = await choose(
    [candidate("/work/project/.venv/bin/python", "pythonExtension", "the Python extension's interpreter")],
    async () => (ran++, ok([3, 12, 0], "/work/project/.venv/bin/python")),
    PYTHONS,
    ["/work/project"],
    "linux",
  );
  assert.equal(ran, 0);
  assert.equal(choice.chosen, undefined);
  assert.match(choice.tried[0]!.note, /not used, it lies inside the workspace folder/);
  assert.equal(inside("/work/project2/python", ["/work/project"], "linux"), false);
  assert.equal(inside("C:\\Work\\Project\\.venv\\python.exe", ["c:\\work\\project"], "win32"), true);
});

test("each way of finding no Python has its own message, and its action is to pick one", async () => {
  const cases: [Record<string, Probe>, RegExp][] = [
    [{}, /and none was found: python3 on PATH \(\/usr\/bin\/python3\): does not run: not found/],
    [{ "/usr/bin/python3": ok([2, 7, 18], "/usr/bin/python2.7") }, /the Pythons found are too old: .*Python 2\.7\.18, too old/],
    [{ "/usr/bin/python3": ok([3, 15, 0], "/usr/bin/python3.15") }, /carries its packages for Python 3\.11 to 3\.14: .*Python 3\.15\.0/],
    [{ "/usr/bin/python3": ok([3, 11, 2], "/usr/bin/python3.11", false) }, /has no venv module \(on Debian and Ubuntu: apt install python3\.11-venv\)/],
    [{ "/usr/bin/python3": { kind: "broken", detail: "it did not answer as a Python interpreter does" } }, /does not work: .*did not answer as a Python interpreter does\..* Pick another interpreter\./],
  ];
  for (const [answers, message] of cases) {
    const choice = await choose([candidate("/usr/bin/python3")], probes(answers), PYTHONS, [], "linux", ["The Python extension is not installed."]);
    assert.equal(choice.chosen, undefined);
    const said = setupMessage({ kind: "python", choice, pythons: PYTHONS });
    assert.match(said.message, message);
    assert.match(said.message, /The Python extension is not installed\./);
    assert.equal(said.action, "pickInterpreter");
  }
  const nothing = await choose([], probes({}), PYTHONS, [], "linux");
  assert.match(setupMessage({ kind: "python", choice: nothing, pythons: PYTHONS }).message, /none was found \(no python3 or python on PATH\)/);
});

test("the same interpreter reached twice is said once", async () => {
  const choice = await choose(
    [candidate("/a/python3"), candidate("/b/python", "path", "python on PATH")],
    probes({ "/a/python3": ok([3, 10, 1], "/usr/bin/python3.10"), "/b/python": ok([3, 10, 1], "/usr/bin/python3.10") }),
    PYTHONS,
    [],
    "linux",
  );
  assert.match(choice.tried[1]!.note, /the same interpreter as above/);
});

test("every other failure has one message and one action", () => {
  const cases = [
    [{ kind: "noBundle", detail: "no manifest" }, "openLog", /Install the \.vsix for your system, or set foehn\.serverPath/],
    [{ kind: "readOnly", folder: "/s" }, "retry", /cannot write its environment to \/s: the folder is read-only/],
    [{ kind: "diskFull", folder: "/s" }, "retry", /The disk holding \/s is full.*nothing was left half made/],
    [{ kind: "busy", holder: "process 7 on host" }, "retry", /Another VS Code window \(process 7 on host\)/],
    [{ kind: "install", detail: "ERROR: bad wheel" }, "openLog", /failed: ERROR: bad wheel/],
    [{ kind: "verify", detail: "it says version 1, not 2" }, "openLog", /does not start: it says version 1, not 2/],
    [{ kind: "cancelled" }, "retry", /was stopped/],
  ] as const;
  for (const [failure, action, message] of cases) {
    const said = setupMessage(failure);
    assert.equal(said.action, action, failure.kind);
    assert.match(said.message, message);
  }
});

test("PATH is searched for python3, then python; py -3 first on Windows", () => {
  const found = onPath("/opt/bin:/usr/bin", "linux", (file) => ["/usr/bin/python3", "/opt/bin/python"].includes(file));
  assert.deepEqual(
    found.map((c) => [c.command, c.label]),
    [
      ["/usr/bin/python3", "python3 on PATH"],
      ["/opt/bin/python", "python on PATH"],
    ],
  );
  const windows = onPath("C:\\Windows;C:\\Python312", "win32", (file) => file.endsWith("py.exe") || file === path.join("C:\\Python312", "python.exe"));
  assert.deepEqual(windows[0]!.args, ["-3"]);
  assert.equal(windows[0]!.label, "py -3 on PATH");
});

test("probing real programs: a Python answers; a missing file, a shim that fails and a program that is no Python are broken", { skip: !python3() }, async () => {
  const real = await probe(candidate(python3()!));
  assert.equal(real.kind, "ok");
  const folder = tempFolder("probe");
  const shim = path.join(folder, "python3.12");
  writeFileSync(shim, "#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n");
  chmodSync(shim, 0o755);
  const liar = path.join(folder, "python");
  writeFileSync(liar, "#!/bin/sh\necho hello\n");
  chmodSync(liar, 0o755);
  assert.deepEqual(await probe(candidate(path.join(folder, "missing"))), { kind: "broken", detail: "not found" });
  assert.deepEqual(await probe(candidate(shim)), { kind: "broken", detail: "it exited with code 127: pyenv: python3.12: command not found" });
  assert.deepEqual(await probe(candidate(liar)), { kind: "broken", detail: "it did not answer as a Python interpreter does" });
  assert.deepEqual(readProbe({ code: null, stdout: "", stderr: "", failure: "timeout" }), { kind: "broken", detail: "no answer within 20 s" });
});
