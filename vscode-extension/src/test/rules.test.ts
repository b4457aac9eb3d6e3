import assert from "node:assert/strict";
import { test } from "node:test";
import { ALLOW, ALLOW_ALWAYS, ALLOW_RUN, DENY, confirmMessage, decisionFor } from "../chat/confirm";
import { parseViewMessage } from "../chat/messages";
import { notApplied, rankCommands, ruleLine, ruleSummary, slashQuery, whyAsked } from "../chat/rules";
import { answered, applyEvent, askInline, newTurn } from "../chat/state";
import { renderCard, renderTurn } from "../chat/view";
import type { ConfirmParams, CustomCommand, Explanation, Rule } from "../protocol";

// As the server sends them for `touch made.txt` (foehn explain --json -- touch made.txt).
const proposed: Rule = {
  tool: "run_command",
  program: "touch",
  args: ["?"],
  paths: null,
  decision: "allow",
  sandbox: "workspace-write",
  message: null,
  source: "",
};
const byTable: Explanation = {
  decision: "ask",
  rule: null,
  source: "table",
  risk: "write",
  sandbox: "workspace-write",
  remembered: { run: "run_command calls that run `touch`, at risk write, in the workspace-write sandbox", always: proposed },
};
const touch: ConfirmParams = {
  runId: "r1",
  callId: "c1",
  tool: "run_command",
  arguments: { command: ["touch", "made.txt"], cwd: "." },
  risk: "write",
  program: "touch",
  sandbox: "workspace-write",
  remember: "run_command calls that run `touch`, at risk write, in the workspace-write sandbox",
  proposedRule: proposed,
  why: byTable,
};

test("why a call is asked: the rule that asks, a hook, full access, else the setting for its risk", () => {
  assert.equal(
    whyAsked(byTable),
    "Its command line counts as write, and your foehn.approval.write setting asks before those.",
  );
  assert.equal(
    whyAsked({ ...byTable, source: "default", risk: "read_only" }),
    "It is a read-only call, and your foehn.approval.readOnly setting asks before those.",
  );
  assert.equal(
    whyAsked({ ...byTable, sandbox: "full", risk: "destructive" }),
    "Asked because it wants full access (your own rights and the network): that is always asked.",
  );
  assert.equal(whyAsked({ ...byTable, source: "/home/me/.config/foehn/config.toml:12" }), "Asked because the hook at /home/me/.config/foehn/config.toml:12 says ask.");
  const asking: Explanation = {
    ...byTable,
    source: "config.toml:3",
    rule: {
      tool: "run_command",
      program: "git",
      args: ["push", "*"],
      decision: "ask",
      source: "config.toml:3",
      applied: true,
      note: null,
      conflicts: [{ tool: "run_command", program: "git", decision: "allow", source: "config.toml:9", applied: false, note: "ask wins over allow" }],
    },
  };
  assert.equal(whyAsked(asking), 'Asked because your rule at config.toml:3 says ask: tool="run_command" program="git" args=["push","*"] decision="ask".');
  assert.deepEqual(notApplied(asking), ['tool="run_command" program="git" decision="allow" (config.toml:9): ask wins over allow']);
  assert.deepEqual(notApplied(byTable), []);
  assert.equal(whyAsked(undefined), "");
  assert.equal(whyAsked(null), "");
});

test("a rule on one line names only the keys it sets; in a list it reads as what it decides", () => {
  assert.equal(ruleLine(proposed), 'tool="run_command" program="touch" args=["?"] decision="allow" sandbox="workspace-write"');
  assert.equal(ruleSummary(proposed), "allow run_command touch ? (workspace-write sandbox)");
  assert.equal(ruleSummary({ tool: "run_command", program: "git", decision: "allow" }), "allow run_command git * (read-only sandbox)");
  assert.equal(ruleSummary({ tool: "write_file", paths: ["notes.md"], decision: "allow", sandbox: "workspace-write" }), "allow write_file on notes.md");
  assert.equal(ruleSummary({ tool: "mcp__github__*", decision: "deny", message: "no" }), "deny mcp__github__*");
});

test("the inline card says why it asks and offers Always allow with the rule it saves", () => {
  let turn = newTurn("r1", "Make the file");
  turn = applyEvent(turn, { event: "tool_call", id: "c1", tool: "run_command", arguments: touch.arguments, risk: "write" });
  turn = askInline(turn, "r1/1", touch, "c1");
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /<p class="asked-why">Its command line counts as write, and your foehn.approval.write setting asks before those.<\/p>/);
  assert.match(html, /data-decision="allowAlways" data-key="r1\/1" aria-describedby="always-r1\/1">Always allow</);
  assert.match(html, /id="always-r1\/1">“Always allow” saves this rule to your user config/);
  assert.match(html, /<code class="rule">tool=&quot;run_command&quot; program=&quot;touch&quot; args=\[&quot;\?&quot;\]/);
  // The remembered scope's backticks are drawn as code, not shown.
  assert.match(html, /that run <code>touch<\/code>/);
});

test("no Always allow when the server proposes no rule (nor for full access)", () => {
  for (const params of [{ ...touch, proposedRule: null }, { ...touch, proposedRule: undefined, why: undefined }, { ...touch, sandbox: "full" as const }]) {
    let turn = newTurn("r1", "Make the file");
    turn = askInline(turn, "r1/1", params);
    const html = renderTurn(turn, { restorable: false });
    assert.ok(!html.includes("allowAlways"), html);
    assert.ok(!html.includes("Always allow"), html);
  }
  const bare = renderTurn(askInline(newTurn("r1", "x"), "r1/1", { ...touch, why: null }), { restorable: false });
  assert.ok(!bare.includes("asked-why"));
});

test("after Always allow the card shows the rule saved and where the server saved it", () => {
  let turn = newTurn("r1", "Make the file");
  turn = applyEvent(turn, { event: "tool_call", id: "c1", tool: "run_command", arguments: touch.arguments, risk: "write" });
  turn = askInline(turn, "r1/1", touch, "c1");
  turn = answered(turn, "r1/1", "allowAlways");
  turn = applyEvent(turn, { event: "approval", id: "c1", tool: "run_command", decision: "allow", reason: "approved; rule saved at config.toml:4" });
  const card = turn.blocks.find((b) => b.kind === "tool");
  assert.ok(card?.kind === "tool");
  const html = renderCard(card.card);
  assert.match(html, /Always allowed: approved; rule saved at config.toml:4\. <code class="rule">tool=&quot;run_command&quot;/);
  // Allow once leaves no such line.
  let once = askInline(newTurn("r1", "x"), "r1/1", touch);
  once = answered(once, "r1/1", "allow");
  const onceCard = once.blocks.find((b) => b.kind === "tool");
  assert.ok(onceCard?.kind === "tool" && onceCard.card.savedRule === undefined);
});

test("the modal offers Always allow with the rule, and says why it asks", () => {
  const { detail, choices } = confirmMessage(touch);
  assert.deepEqual(choices, [ALLOW, ALLOW_RUN, ALLOW_ALWAYS, DENY]);
  assert.match(detail, /^Its command line counts as write/);
  assert.match(detail, /"Always allow" saves this rule: tool="run_command" program="touch" args=\["\?"\] decision="allow" sandbox="workspace-write"\./);
  assert.deepEqual(decisionFor(ALLOW_ALWAYS), { decision: "allowAlways" });
  assert.deepEqual(confirmMessage({ ...touch, proposedRule: null }).choices, [ALLOW, ALLOW_RUN, DENY]);
});

test("the webview may answer allowAlways and ask for commands; nothing else new gets through", () => {
  assert.deepEqual(parseViewMessage({ type: "approve", key: "k", decision: "allowAlways" }), { type: "approve", key: "k", decision: "allowAlways" });
  assert.equal(parseViewMessage({ type: "approve", key: "k", decision: "always" }), undefined);
  assert.deepEqual(parseViewMessage({ type: "slash", query: "rev" }), { type: "slash", query: "rev" });
  assert.equal(parseViewMessage({ type: "slash", query: 3 }), undefined);
});

test("/ completes only while the command's name is typed at the very start", () => {
  assert.equal(slashQuery("/"), "");
  assert.equal(slashQuery("/rev"), "rev");
  assert.equal(slashQuery("/review-pr_2"), "review-pr_2");
  assert.equal(slashQuery("/review app.py"), undefined);
  assert.equal(slashQuery(" /rev"), undefined);
  assert.equal(slashQuery("see /etc/hosts"), undefined);
  assert.equal(slashQuery("/etc/"), undefined);
  const commands: CustomCommand[] = ["test", "review", "preview", "release"].map((name) => ({ name, description: null, hint: null, source: null }));
  assert.deepEqual(rankCommands(commands, "re").map((c) => c.name), ["review", "release", "preview"]);
  assert.deepEqual(rankCommands(commands, "REV").map((c) => c.name), ["review", "preview"]);
  assert.deepEqual(rankCommands(commands, "").map((c) => c.name), ["test", "review", "preview", "release"]);
  assert.deepEqual(rankCommands(commands, "zzz"), []);
});
