import assert from "node:assert/strict";
import { test } from "node:test";
import { askedBy, contentOf, inputProblem, webPage, windowQuestion } from "../chat/elicit";
import { parseViewMessage } from "../chat/messages";
import { applyEvent, askQuestion, newTurn, questionAnswered, type Turn } from "../chat/state";
import { renderTurn } from "../chat/view";
import type { ElicitField, ElicitParams } from "../protocol";

const FIELDS: ElicitField[] = [
  { name: "repo", title: "Repository", kind: "string", required: true, description: "owner/name" },
  { name: "count", title: "How many", kind: "integer", required: false, minimum: 1, maximum: 10 },
  { name: "draft", title: "As a draft", kind: "boolean", required: false, default: true },
  { name: "label", title: "Label", kind: "choice", required: false, options: [{ value: "bug", label: "Bug" }, { value: "docs", label: "Docs" }] },
  { name: "who", title: "Reviewers", kind: "choices", required: false, options: [{ value: "ann", label: "Ann" }, { value: "bo", label: "Bo" }], maximum: 1 },
  { name: "mail", title: "Mail", kind: "string", required: false, format: "email" },
];

const QUESTION: ElicitParams = {
  runId: "r1",
  server: "tracker",
  tool: "create_issue",
  message: "Which repository should the issue go to?",
  url: null,
  fields: FIELDS,
  schema: {},
};

function running(): Turn {
  let turn = newTurn("r1", "file an issue");
  turn = applyEvent(turn, { event: "tool_call", id: "c0", tool: "read_file", arguments: { path: "a" }, risk: "read_only" });
  turn = applyEvent(turn, { event: "tool_call", id: "c1", tool: "mcp__tracker__create_issue", arguments: { title: "x" }, risk: "write" });
  return turn;
}

test("a server's question is named as that server's, during its tool", () => {
  assert.equal(askedBy(QUESTION), 'The MCP server "tracker" asks during create_issue');
  assert.equal(askedBy({ server: "docs", tool: null }), 'The MCP server "docs" asks');
});

test("an accepted form sends each filled field in its type and leaves empty ones to the defaults", () => {
  const answer = contentOf(FIELDS, { repo: "foehn/foehn", count: "3", draft: false, label: "", who: ["bo"], mail: "" });
  assert.deepEqual(answer, { content: { repo: "foehn/foehn", count: 3, draft: false, who: ["bo"] } });
});

test("a form that does not fit is not sent, and says which field and why", () => {
  assert.deepEqual(contentOf(FIELDS, { repo: " " }), { error: "Repository is required." });
  assert.deepEqual(contentOf(FIELDS, { repo: "a", count: "2.5" }), { error: "How many: a whole number." });
  assert.deepEqual(contentOf(FIELDS, { repo: "a", count: "11" }), { error: "How many: at most 10." });
  assert.deepEqual(contentOf(FIELDS, { repo: "a", label: "feature" }), { error: "Label: one of bug, docs." });
  assert.deepEqual(contentOf(FIELDS, { repo: "a", who: ["ann", "bo"] }), { error: "Reviewers: at most 1 choices." });
  assert.deepEqual(contentOf(FIELDS, { repo: "a", mail: "nobody" }), { error: "Mail: a valid email." });
});

test("names the form does not have are never sent", () => {
  assert.deepEqual(contentOf(FIELDS, { repo: "a", token: "secret" }), { content: { repo: "a" } });
});

test("an input box checks a field as it is typed", () => {
  assert.equal(inputProblem(FIELDS[0]!, ""), "Repository is required.");
  assert.equal(inputProblem(FIELDS[1]!, ""), undefined);
  assert.equal(inputProblem(FIELDS[1]!, "x"), "How many: a whole number.");
  assert.equal(inputProblem(FIELDS[1]!, "4"), undefined);
});

test("only http and https pages are opened", () => {
  assert.equal(webPage("https://auth.example.org/authorize?x=1")?.host, "auth.example.org");
  assert.equal(webPage("http://127.0.0.1:8123/cb")?.host, "127.0.0.1:8123");
  for (const url of ["command:workbench.action.terminal.sendSequence", "file:///etc/passwd", "vscode://x", "not a url", null]) {
    assert.equal(webPage(url), undefined, String(url));
  }
});

test("outside the chat, the modal names the server, the message, the page and what is asked", () => {
  const form = windowQuestion(QUESTION);
  assert.equal(form.message, 'The MCP server "tracker" asks during create_issue:');
  assert.match(form.detail, /Which repository/);
  assert.match(form.detail, /It asks for: Repository, How many, As a draft, Label, Reviewers, Mail\./);
  assert.equal(form.accept, "Answer…");
  const page = windowQuestion({ ...QUESTION, fields: [], url: "https://tracker.example/consent" });
  assert.match(page.detail, /The page: https:\/\/tracker\.example\/consent/);
  assert.equal(page.accept, "Open the page");
  assert.equal(windowQuestion({ ...QUESTION, fields: [] }).accept, "Accept");
});

test("the question goes on the running card of that server's tool, as a form naming the server", () => {
  const turn = askQuestion(running(), "r1/q1", QUESTION);
  const card = turn.blocks[1]!.kind === "tool" ? turn.blocks[1]!.card : undefined;
  assert.equal(card?.questions?.[0]?.key, "r1/q1");
  assert.equal(turn.blocks[0]!.kind === "tool" && turn.blocks[0]!.card.questions, undefined);
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /aria-label="The MCP server &quot;tracker&quot; asks during create_issue"/);
  assert.match(html, /Which repository should the issue go to\?/);
  assert.match(html, /<label for="[^"]+">Repository \(required\)<\/label><span class="help">owner\/name<\/span><input type="text"[^>]*data-field="repo"/);
  assert.match(html, /<input type="number"[^>]*data-field="count" data-kind="integer" step="1" min="1" max="10">/);
  assert.match(html, /<input type="checkbox"[^>]*data-field="draft" data-kind="boolean" checked>/);
  assert.match(html, /<select[^>]*data-field="label"[^>]*><option value="" selected>\(none\)<\/option><option value="bug">Bug<\/option>/);
  assert.match(html, /data-field="who" data-kind="choices" data-value="bo">/);
  assert.match(html, /data-action="elicit" data-answer="accept" data-key="r1\/q1">Submit</);
  assert.match(html, /data-answer="decline"[^>]*>Decline</);
  assert.match(html, /data-answer="cancel"[^>]*>Cancel</);
});

test("an answer that does not fit keeps the form with why; once answered, one line says what became of it", () => {
  let turn = askQuestion(running(), "r1/q1", QUESTION);
  turn = questionAnswered(turn, "r1/q1", { error: "Repository is required." });
  assert.match(renderTurn(turn, { restorable: false }), /<p class="why" role="alert">Repository is required\.<\/p>/);
  turn = questionAnswered(turn, "r1/q1", { answer: "decline" });
  const html = renderTurn(turn, { restorable: false });
  assert.ok(!html.includes('data-action="elicit"'));
  assert.match(html, /The MCP server &quot;tracker&quot; asks during create_issue: “Which repository should the issue go to\?” — you declined\./);
});

test("a question with no running call is shown on its own; the turn's end gives it up", () => {
  let turn = askQuestion(newTurn("r1", "t"), "r1/q1", { ...QUESTION, tool: null, fields: [], url: "https://docs.example/ok" });
  assert.equal(turn.blocks[0]!.kind, "question");
  let html = renderTurn(turn, { restorable: false });
  assert.match(html, /The page: <code>https:\/\/docs.example\/ok<\/code>/);
  assert.match(html, />Open the page</);
  turn = applyEvent(turn, { event: "done", reason: "answer", answer: "ok", iterations: 1 });
  html = renderTurn(turn, { restorable: false });
  assert.ok(!html.includes('data-action="elicit"'));
  assert.match(html, /— not answered\./);
});

test("a page that is not a web page cannot be accepted", () => {
  const turn = askQuestion(running(), "r1/q1", { ...QUESTION, fields: [], url: "command:foehn.setApiKey" });
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /not a web page: Foehn does not open it/);
  assert.ok(!html.includes('data-answer="accept"'));
  assert.match(html, /data-answer="decline"/);
});

test("the webview's answer is accepted only in its shape", () => {
  assert.deepEqual(parseViewMessage({ type: "elicit", key: "r/q1", answer: "accept", content: { a: "1" } }), {
    type: "elicit",
    key: "r/q1",
    answer: "accept",
    content: { a: "1" },
  });
  assert.deepEqual(parseViewMessage({ type: "elicit", key: "r/q1", answer: "cancel" }), { type: "elicit", key: "r/q1", answer: "cancel" });
  assert.equal(parseViewMessage({ type: "elicit", key: "r/q1", answer: "always" }), undefined);
  assert.equal(parseViewMessage({ type: "elicit", key: "r/q1", answer: "accept", content: ["a"] }), undefined);
  assert.equal(parseViewMessage({ type: "elicit", answer: "accept" }), undefined);
});
