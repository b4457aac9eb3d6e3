import assert from "node:assert/strict";
import { test } from "node:test";
import { ALLOW, ALLOW_FULL, ALLOW_RUN, DENY, confirmMessage, decisionFor, inlineAnswer, surfaceFor } from "../chat/confirm";
import type { ConfirmParams } from "../protocol";

const edit: ConfirmParams = {
  runId: "r",
  tool: "edit_file",
  risk: "write",
  arguments: { path: "a.py", edits: [{ old_text: "1", new_text: "2" }] },
  preview: { summary: "edit a.py (1 block)", diff: "-1\n+2" },
  remember: "edit_file on a.py",
};
const full: ConfirmParams = {
  runId: "r",
  tool: "run_command",
  risk: "destructive",
  arguments: { command: ["curl", "https://example.org"] },
  program: "curl",
  sandbox: "full",
  remember: "run_command curl",
};

test("each choice maps to the server's decision; anything else denies", () => {
  assert.deepEqual(decisionFor(ALLOW), { decision: "allow" });
  assert.deepEqual(decisionFor(ALLOW_FULL), { decision: "allow" });
  assert.deepEqual(decisionFor(ALLOW_RUN), { decision: "allowRun" });
  assert.deepEqual(decisionFor(DENY), { decision: "deny", reason: "denied in VS Code" });
  assert.deepEqual(decisionFor(undefined), { decision: "deny", reason: "dismissed" });
});

test("the modal shows the tool, risk, summary, exact arguments and what is remembered", () => {
  const { message, detail, choices } = confirmMessage(edit);
  assert.equal(message, "Foehn wants to run edit_file (write): edit a.py (1 block)");
  assert.equal(JSON.parse(detail.split("\n\"")[0]!).edits[0].new_text, "2");
  assert.match(detail, /"Allow for this run" remembers: edit_file on a.py, until this run ends\./);
  assert.deepEqual(choices, [ALLOW, ALLOW_RUN, DENY]);
});

test("full sandbox rights are always asked in a modal, once, and said plainly", () => {
  assert.equal(surfaceFor(full, "inline", true), "modal");
  assert.equal(surfaceFor(edit, "inline", true), "inline");
  assert.equal(surfaceFor(edit, "modal", true), "modal");
  assert.equal(surfaceFor(edit, "inline", false), "modal");
  const { detail, choices } = confirmMessage(full);
  assert.match(detail, /Program: curl/);
  assert.match(detail, /FULL — it runs with your own rights and the network/);
  assert.ok(!detail.includes("remembers"));
  assert.deepEqual(choices, [ALLOW_FULL, DENY]);
});

test("an inline denial carries the person's message to the model", () => {
  assert.deepEqual(inlineAnswer("deny", "  use the helper instead "), { decision: "deny", reason: "use the helper instead" });
  assert.deepEqual(inlineAnswer("deny", ""), { decision: "deny", reason: "denied in the chat" });
  assert.deepEqual(inlineAnswer("allowRun", "ignored"), { decision: "allowRun" });
});

test("without the server's words, what is remembered is said from the call's scope", () => {
  const { detail } = confirmMessage({ runId: "r", tool: "run_command", risk: "write", arguments: {}, program: "touch", sandbox: "workspace-write" });
  assert.match(detail, /remembers: run_command calls that run `touch`, at risk write, in the workspace-write sandbox, until this run ends\./);
});
