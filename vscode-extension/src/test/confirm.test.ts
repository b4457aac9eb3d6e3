import assert from "node:assert/strict";
import { test } from "node:test";
import { ALLOW, ALLOW_RUN, DENY, confirmMessage, decisionFor } from "../confirm";

test("each choice maps to the server's decision; anything else denies", () => {
  assert.deepEqual(decisionFor(ALLOW), { decision: "allow" });
  assert.deepEqual(decisionFor(ALLOW_RUN), { decision: "allowRun" });
  assert.deepEqual(decisionFor(DENY), { decision: "deny", reason: "denied in VS Code" });
  assert.deepEqual(decisionFor(undefined), { decision: "deny", reason: "dismissed" });
});

test("the dialog shows the tool, its risk, the summary and the exact arguments", () => {
  const { message, detail } = confirmMessage({
    runId: "r",
    tool: "edit_file",
    risk: "read_only",
    arguments: { path: "a.py", edits: [{ old_text: "1", new_text: "2" }] },
    preview: { summary: "edit a.py (1 block)", diff: "-1\n+2" },
  });
  assert.equal(message, "Foehn wants to run edit_file (read-only): edit a.py (1 block)");
  assert.equal(JSON.parse(detail).edits[0].new_text, "2");
});
