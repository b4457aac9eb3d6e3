// The chat's HTML, drawn from the state as strings: a turn, a tool-call card, an inline
// approval, a failure with its fixes, the review of changed files, a status banner, the empty
// chat. Every value is escaped; every button has a visible text or an aria-label and a
// data-action the webview routes. No DOM API here, so the drawing is unit-tested in node.
import { ALLOW_ALWAYS, ALLOW_RUN } from "./confirm";
import { commandOf, cwdOf, policyText, reaching, shellQuote, stringArg } from "./commandline";
import { askedBy, webPage } from "./elicit";
import { type Failure, failureView } from "./errors";
import { INVESTIGATE, renderInvestigation } from "./investigation";
import { escapeHtml as esc, renderInline, renderMarkdown } from "./markdown";
import type { StatusCommand } from "./actions";
import type { RecentChat, ServerStatus, SetupAction } from "./messages";
import type { ElicitField, TodoItem } from "../protocol";
import type { Block, Checks, NetworkLine, PendingApproval, Question, QueuedMessage, ReviewFile, ToolCard, Turn } from "./state";

const MAX_SUMMARY = 120;
const MAX_OUTPUT = 20_000;
const REASON_LINES = 3;

const STOP_TEXT: Record<string, string> = {
  answer: "Answered",
  max_iterations: "Stopped: too many tool rounds",
  budget: "Stopped: token budget spent",
  repeated_call: "Stopped: the same call repeated",
  cancelled: "Stopped by you",
  error: "Failed",
};

/** Questions the empty chat offers; a click puts one in the input. */
export const SUGGESTIONS = [
  "Explain what this workspace is for and how it is organised.",
  "Find the bug in the active file and propose a fix.",
  "Write tests for the active file.",
];

export function renderTurn(turn: Turn, options: { restorable: boolean }): string {
  const label = turn.index !== undefined ? `Turn ${turn.index}` : "Turn";
  const chips = turn.context.length
    ? `<div class="chips" aria-label="Context">${turn.context.map((c) => `<span class="chip">${esc(c)}</span>`).join("")}</div>`
    : "";
  const body = turn.blocks.map(renderBlock).join("\n");
  const thinking = turn.status === "running" ? `<div class="working" role="status">Working…</div>` : "";
  return (
    `<section class="turn${turn.undone ? " undone" : ""}" data-run="${esc(turn.runId)}" aria-label="${label}">` +
    `<div class="user"><div class="who">You${turn.plan ? ` <span class="badge mode">Plan</span>` : ""}</div>` +
    `${chips}<div class="task">${esc(turn.task)}</div></div>` +
    `<div class="assistant"><div class="who">Foehn</div>${turn.todo?.length ? renderTodo(turn.todo) : ""}${body}${thinking}` +
    (turn.failure ? renderFailure(turn.runId, turn.failure) : "") +
    `</div>` +
    (turn.notice ? `<p class="notice" role="status">${esc(turn.notice)}</p>` : "") +
    renderStop(turn) +
    renderReview(turn) +
    (options.restorable
      ? `<button type="button" class="link" data-action="restore" data-run="${esc(turn.runId)}" ` +
        `aria-label="Restore the workspace to how it was after ${label.toLowerCase()}">Restore to here</button>`
      : "") +
    `</section>`
  );
}

const TODO_MARK: Record<TodoItem["status"], string> = { pending: "○", in_progress: "◐", done: "✓" };
const TODO_WORDS: Record<TodoItem["status"], string> = { pending: "to do", in_progress: "in progress", done: "done" };

/** The model's task list, as a checklist: each item's state in a mark and in words. */
export function renderTodo(items: readonly TodoItem[]): string {
  const done = items.filter((item) => item.status === "done").length;
  const rows = items
    .map(
      (item) =>
        `<li class="todo-${item.status}"><span class="mark" aria-hidden="true">${TODO_MARK[item.status]}</span>` +
        `<span class="text">${renderInline(item.text)}</span><span class="visually-hidden"> (${TODO_WORDS[item.status]})</span></li>`,
    )
    .join("");
  return (
    `<div class="todo" role="group" aria-label="Task list">` +
    `<div class="label">Tasks (${done} of ${items.length} done)</div><ul>${rows}</ul></div>`
  );
}

function renderBlock(block: Block): string {
  switch (block.kind) {
    case "text":
      return `<div class="markdown">${renderMarkdown(block.text)}</div>`;
    case "tool":
      return renderCard(block.card);
    case "checks":
      return renderChecks(block.checks);
    case "question":
      return `<div class="card asked-alone">${renderQuestion(block.question)}</div>`;
  }
}

/** As many problems as the terminal shows; the model was sent them all. */
export const MAX_PROBLEMS_SHOWN = 10;

/** What checking the edits found, in the terminal's words: `checks: N new problems`, then each
 * as FILE:LINE: MESSAGE (SOURCE), then one line per skipped checker. */
export function renderChecks(checks: Checks): string {
  const count = checks.problems.length;
  const shown = checks.problems.slice(0, MAX_PROBLEMS_SHOWN);
  const more = count - shown.length;
  const problems = count
    ? `<div class="label">checks: ${count} new problem${count === 1 ? "" : "s"}</div><ul>` +
      shown.map((p) => `<li><code>${esc(p.path)}:${p.line}</code>: ${esc(p.message)} <span class="source">(${esc(p.source)})</span></li>`).join("") +
      (more ? `<li>… and ${more} more</li>` : "") +
      `</ul>`
    : "";
  const skipped = checks.skipped.map((line) => `<div class="skipped">checks: ${esc(line)}</div>`).join("");
  return `<div class="checks${count ? " found" : ""}" role="status">${problems}${skipped}</div>`;
}

/** A failed turn: what went wrong in VS Code's words, and the buttons that fix it. */
export function renderFailure(runId: string, failure: Failure): string {
  const view = failureView(failure);
  const actions = view.actions
    .map((action) => {
      switch (action.kind) {
        case "retry":
          return `<button type="button" class="primary" data-action="retry" data-run="${esc(runId)}">${esc(action.label)}</button>`;
        case "command":
          return `<button type="button" data-action="command" data-command="${action.command}">${esc(action.label)}</button>`;
        case "settings":
          return `<button type="button" data-action="openSettings" data-query="${esc(action.query)}">${esc(action.label)}</button>`;
      }
    })
    .join("");
  return (
    `<div class="failure" role="alert"><p class="failure-title"><strong>${esc(view.title)}</strong></p>` +
    (view.detail ? `<p class="failure-detail">${esc(view.detail)}</p>` : "") +
    `<div class="actions">${actions}</div></div>`
  );
}

/** A card's one-line summary: what the call is about (the file, the command line, the
 * pattern), not its JSON. */
export function cardSummary(card: Pick<ToolCard, "tool" | "arguments">): string {
  const args = card.arguments;
  const argv = commandOf(card.tool, args);
  let summary: string;
  if (argv) {
    summary = shellQuote(argv);
  } else if (typeof args === "object" && args !== null) {
    const value = args as Record<string, unknown>;
    const text = (key: string) => stringArg(args, key);
    const moved = text("source") && text("destination") ? `${text("source")} → ${text("destination")}` : undefined;
    const pattern = text("pattern") ? `${text("pattern")}${text("path") ? ` in ${text("path")}` : ""}` : undefined;
    const count = (key: string, noun: string) =>
      Array.isArray(value[key]) ? `${value[key].length} ${noun}${value[key].length === 1 ? "" : "s"}` : undefined;
    const listed = card.tool === "plan" ? count("steps", "step") : card.tool === "todo" ? count("items", "task") : undefined;
    summary = moved ?? pattern ?? listed ?? text("path") ?? text("question") ?? JSON.stringify(args);
  } else {
    summary = JSON.stringify(args) ?? "";
  }
  return summary.length > MAX_SUMMARY ? summary.slice(0, MAX_SUMMARY) + "…" : summary;
}

export function renderCard(card: ToolCard): string {
  const outcome =
    card.decision === "deny"
      ? `<span class="outcome denied">denied</span>`
      : card.ok === undefined
        ? card.approval
          ? `<span class="outcome asking">needs your approval</span>`
          : `<span class="outcome running">running…</span>`
        : card.ok
          ? `<span class="outcome ok">✓ done</span>`
          : `<span class="outcome failed">✗ failed</span>`;
  // Why a call failed or was refused is read without opening the card.
  const why =
    card.decision === "deny"
      ? card.reason || "denied"
      : card.ok === false && card.output
        ? card.output.split("\n").slice(0, REASON_LINES).join("\n")
        : "";
  const policy = card.policy ? `<span class="badge sandbox" title="sandbox policy">${esc(card.policy)}</span>` : "";
  const output = card.output
    ? `<div class="label">Output</div><pre class="output">${esc(card.output.slice(0, MAX_OUTPUT))}${card.output.length > MAX_OUTPUT ? "\n…" : ""}</pre>`
    : "";
  // A sub-run's card shows what it found; its JSON would only repeat the question.
  const body =
    card.tool === INVESTIGATE && (card.investigation || card.ok === undefined)
      ? renderInvestigation(card.arguments, card.investigation)
      : `<div class="label">Arguments</div><pre class="arguments">${esc(JSON.stringify(card.arguments, null, 2) ?? "")}</pre>${output}`;
  return (
    `<div class="card risk-${esc(String(card.risk))}" data-card="${esc(card.id)}">` +
    `<div class="card-head"><span class="tool">${esc(card.tool)}</span>` +
    (card.risk ? `<span class="badge risk">${esc(String(card.risk).replace(/_/g, "-"))}</span>` : "") +
    `${policy}${outcome}</div>` +
    (why ? `<div class="why">${esc(why)}</div>` : "") +
    (card.savedRule && card.decision !== "deny"
      ? `<div class="saved-rule">Always allowed: ${card.reason ? `${esc(card.reason)}. ` : ""}<code class="rule">${esc(card.savedRule)}</code></div>`
      : "") +
    (card.progress && card.ok === undefined ? `<div class="progress" role="status">${esc(card.progress)}</div>` : "") +
    (card.network?.length ? renderNetwork(card.network) : "") +
    `<details data-details="${esc(card.id)}"><summary><code>${esc(cardSummary(card))}</code></summary>` +
    body +
    `</details>` +
    (card.questions ?? []).map(renderQuestion).join("") +
    (card.approval ? renderApproval(card, card.approval) : "") +
    `</div>`
  );
}

/** As many connections as a card lists; the audit log has them all. */
export const MAX_NETWORK_SHOWN = 20;

/** A call's connections, one line each: where, allowed or refused and why, the bytes each way. */
export function renderNetwork(lines: readonly NetworkLine[]): string {
  const shown = lines.slice(-MAX_NETWORK_SHOWN);
  const more = lines.length - shown.length;
  return (
    `<div class="network"><div class="label">Network</div><ul>` +
    (more ? `<li>… ${more} earlier</li>` : "") +
    shown.map(networkLine).join("") +
    `</ul></div>`
  );
}

function networkLine(line: NetworkLine): string {
  // The proxy's tally of the attempts past its record (host `*`) is said in its own words.
  if (line.host === "*") {
    return `<li class="refused">${esc(line.reason)}</li>`;
  }
  const where = `<code>${esc(line.host)}:${line.port}</code>`;
  return line.allowed
    ? `<li class="allowed">${where} allowed${line.reason ? ` (${esc(line.reason)})` : ""} · ${bytes(line.bytesOut)} out, ${bytes(line.bytesIn)} in</li>`
    : `<li class="refused">${where} refused: ${esc(line.reason || "not granted")}</li>`;
}

function bytes(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : n >= 1000 ? `${(n / 1000).toFixed(1)} kB` : `${n} B`;
}

const ANSWERED: Record<NonNullable<Question["answer"]>, string> = {
  accept: "you answered",
  decline: "you declined",
  cancel: "not answered",
};

/** An MCP server's question, named as that server's: the form while it waits (its fields, Submit,
 * Decline, Cancel), then one line with what became of it. */
export function renderQuestion(question: Question): string {
  const key = esc(question.key);
  if (question.answer) {
    const message = question.message.length > MAX_SUMMARY ? `${question.message.slice(0, MAX_SUMMARY)}…` : question.message;
    return `<p class="asked-line">${esc(askedBy(question))}: “${esc(message)}” — ${ANSWERED[question.answer]}.</p>`;
  }
  const page = question.url
    ? `<p class="where">The page: <code>${esc(question.url)}</code>${webPage(question.url) ? "" : " (not a web page: Foehn does not open it)"}</p>`
    : "";
  const accept = question.url ? "Open the page" : "Submit";
  const canAccept = !question.url || webPage(question.url) !== undefined;
  return (
    `<div class="approval elicitation" role="group" aria-label="${esc(askedBy(question))}">` +
    `<p class="question"><strong>${esc(askedBy(question))}:</strong></p>` +
    `<p class="asked">${esc(question.message)}</p>` +
    page +
    question.fields.map((field, i) => renderField(question.key, field, i)).join("") +
    (question.error ? `<p class="why" role="alert">${esc(question.error)}</p>` : "") +
    `<div class="answer"><div class="actions">` +
    (canAccept ? `<button type="button" class="primary" data-action="elicit" data-answer="accept" data-key="${key}">${accept}</button>` : "") +
    `<button type="button" data-action="elicit" data-answer="decline" data-key="${key}">Decline</button>` +
    `<button type="button" data-action="elicit" data-answer="cancel" data-key="${key}">Cancel</button>` +
    `</div></div></div>`
  );
}

/** One field of a server's form, its input named by its label; the webview reads the inputs
 * marked data-field-of when the person submits. */
function renderField(key: string, field: ElicitField, index: number): string {
  const id = `field-${esc(key.replace(/[^\w-]/g, "-"))}-${index}`;
  const data = `data-field-of="${esc(key)}" data-field="${esc(field.name)}" data-kind="${field.kind}"`;
  const label = `${esc(field.title)}${field.required ? " (required)" : ""}`;
  const help = field.description ? `<span class="help">${esc(field.description)}</span>` : "";
  const bound = (name: string, value: number | undefined) => (value !== undefined ? ` ${name}="${value}"` : "");
  switch (field.kind) {
    case "boolean":
      return (
        `<p class="field"><label><input type="checkbox" id="${id}" ${data}${field.default === true ? " checked" : ""}> ${label}</label>${help}</p>`
      );
    case "choice": {
      const options = (field.options ?? [])
        .map((o) => `<option value="${esc(o.value)}"${o.value === field.default ? " selected" : ""}>${esc(o.label)}</option>`)
        .join("");
      const none = field.required && field.default !== undefined ? "" : `<option value=""${field.default === undefined ? " selected" : ""}>(none)</option>`;
      return `<p class="field"><label for="${id}">${label}</label>${help}<select id="${id}" ${data}>${none}${options}</select></p>`;
    }
    case "choices": {
      const chosen = Array.isArray(field.default) ? (field.default as unknown[]).map(String) : [];
      const boxes = (field.options ?? [])
        .map(
          (o) =>
            `<label><input type="checkbox" ${data} data-value="${esc(o.value)}"${chosen.includes(o.value) ? " checked" : ""}> ${esc(o.label)}</label>`,
        )
        .join("");
      return `<fieldset class="field"><legend>${label}</legend>${help}${boxes}</fieldset>`;
    }
    case "number":
    case "integer":
      return (
        `<p class="field"><label for="${id}">${label}</label>${help}<input type="number" id="${id}" ${data}` +
        ` step="${field.kind === "integer" ? "1" : "any"}"${bound("min", field.minimum)}${bound("max", field.maximum)}` +
        `${typeof field.default === "number" ? ` value="${field.default}"` : ""}></p>`
      );
    case "string":
      return (
        `<p class="field"><label for="${id}">${label}</label>${help}<input type="text" id="${id}" ${data}` +
        `${field.format ? ` placeholder="${esc(field.format)}"` : ""}${typeof field.default === "string" ? ` value="${esc(field.default)}"` : ""}></p>`
      );
  }
}

export function renderApproval(card: ToolCard, approval: PendingApproval): string {
  const key = esc(approval.key);
  if (approval.steps) {
    return renderPlanApproval(key, approval.steps);
  }
  const argv = commandOf(card.tool, card.arguments);
  const runs = argv
    ? `<div class="label">Runs</div><pre class="command-line">${esc(shellQuote(argv))}</pre>` +
      `<p class="where">in <code>${esc(cwdOf(card.arguments))}</code>` +
      (approval.sandbox
        ? `, sandbox <strong>${esc(approval.sandbox)}</strong>: ${esc(policyText(approval.sandbox, approval.network))}`
        : "") +
      `</p>`
    : approval.program
      ? `<p class="where">Runs <code>${esc(approval.program)}</code>${approval.sandbox ? ` in the <strong>${esc(approval.sandbox)}</strong> sandbox` : ""}.</p>`
      : "";
  // `full` says "the network" itself; a grant is named, with where each domain is granted.
  const reach =
    approval.network.length && approval.sandbox !== "full"
      ? `<p class="reach">It may reach <strong>${esc(reaching(approval.network))}</strong>.</p>` +
        approval.grants.map((line) => `<p class="asked-why">Granted: ${esc(line)}</p>`).join("")
      : "";
  const diff = approval.diff
    ? `<pre class="diff" aria-label="Proposed change">${renderDiff(approval.diff)}</pre>` +
      `<button type="button" data-action="openDiff" data-key="${key}">Open diff in editor</button>`
    : "";
  return (
    `<div class="approval" role="group" aria-label="Approve ${esc(card.tool)}">` +
    `<p class="question">Allow <strong>${esc(card.tool)}</strong>${approval.summary ? `: ${esc(approval.summary)}` : ""}?</p>` +
    (approval.why ? `<p class="asked-why">${esc(approval.why)}</p>` : "") +
    approval.notApplied.map((line) => `<p class="asked-why not-applied">Not applied: ${esc(line)}</p>`).join("") +
    runs +
    reach +
    diff +
    // Kept in view while the diff above scrolls (chat.css: sticky), so the answer is always reachable.
    `<div class="answer">` +
    `<div class="actions">` +
    `<button type="button" class="primary" data-action="approve" data-decision="allow" data-key="${key}">Allow</button>` +
    `<button type="button" data-action="approve" data-decision="allowRun" data-key="${key}" ` +
    `aria-describedby="remember-${key}">${ALLOW_RUN}</button>` +
    (approval.always
      ? `<button type="button" data-action="approve" data-decision="allowAlways" data-key="${key}" ` +
        `aria-describedby="always-${key}">${ALLOW_ALWAYS}</button>`
      : "") +
    `<button type="button" data-action="approve" data-decision="deny" data-key="${key}">Deny</button>` +
    `</div>` +
    `<p class="remember" id="remember-${key}">“${ALLOW_RUN}” remembers: ${renderInline(approval.remember)}.</p>` +
    (approval.always
      ? `<p class="remember" id="always-${key}">“${ALLOW_ALWAYS}” saves this rule to your user config ` +
        `(<em>Foehn: Rules…</em> lists and removes it): <code class="rule">${esc(approval.always)}</code></p>`
      : "") +
    `<input type="text" class="deny-message" data-message-for="${key}" ` +
    `aria-label="Message to the model if you deny (optional)" placeholder="Message to the model if you deny (optional)">` +
    `</div>` +
    `</div>`
  );
}

/** Plan mode's plan: its steps, approved or rejected as a whole (a rejection's message goes to
 * the model, which plans again). */
function renderPlanApproval(key: string, steps: readonly string[]): string {
  return (
    `<div class="approval" role="group" aria-label="Approve the plan">` +
    `<p class="question">Carry out this plan?</p>` +
    `<ol class="plan">${steps.map((step) => `<li>${renderInline(step)}</li>`).join("")}</ol>` +
    `<div class="answer"><div class="actions">` +
    `<button type="button" class="primary" data-action="approve" data-decision="allow" data-key="${key}">Approve plan</button>` +
    `<button type="button" data-action="approve" data-decision="deny" data-key="${key}">Reject</button>` +
    `</div>` +
    `<input type="text" class="deny-message" data-message-for="${key}" ` +
    `aria-label="What to change, if you reject (optional)" placeholder="What to change, if you reject (optional)">` +
    `</div></div>`
  );
}

export function renderDiff(diff: string): string {
  return diff
    .split("\n")
    .map((line) => {
      const kind = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
      return `<span class="d-${kind}">${esc(line)}</span>`;
    })
    .join("\n");
}

function renderStop(turn: Turn): string {
  if (turn.status !== "done") {
    return "";
  }
  const reason = turn.stop ? (STOP_TEXT[turn.stop] ?? turn.stop) : "Finished";
  const rounds = turn.iterations ? ` · ${turn.iterations} tool round${turn.iterations === 1 ? "" : "s"}` : "";
  return `<div class="stop stop-${esc(turn.stop ?? "answer")}">${esc(reason)}${rounds}</div>`;
}

const FILE_STATE: Record<ReviewFile["state"], string> = {
  changed: "",
  kept: "kept",
  undone: "undone",
  reverted: "undone in the editor",
};

function renderReview(turn: Turn): string {
  if (!turn.files.length || turn.status !== "done") {
    return "";
  }
  const run = esc(turn.runId);
  const pending = turn.files.some((f) => f.state === "changed");
  const rows = turn.files.map((file) => renderFile(run, file)).join("");
  const whole = pending
    ? `<div class="actions"><button type="button" data-action="keep" data-run="${run}">Keep all</button>` +
      `<button type="button" data-action="undo" data-run="${run}">Undo turn</button></div>`
    : "";
  return (
    `<div class="review" role="group" aria-label="Changed files">` +
    `<div class="label">Changed files (${turn.files.length})</div><ul>${rows}</ul>${whole}</div>`
  );
}

function renderFile(run: string, file: ReviewFile): string {
  const path = esc(file.path);
  const state = FILE_STATE[file.state] ? `<span class="state">${FILE_STATE[file.state]}</span>` : "";
  const actions =
    file.state === "changed"
      ? `<button type="button" data-action="keep" data-run="${run}" data-path="${path}" aria-label="Keep ${path}">Keep</button>` +
        `<button type="button" data-action="undo" data-run="${run}" data-path="${path}" aria-label="Undo ${path}">Undo</button>`
      : "";
  return (
    `<li class="file file-${file.state}">` +
    `<button type="button" class="link" data-action="openFileDiff" data-run="${run}" data-path="${path}" ` +
    `aria-label="Show the diff of ${path}">${path}</button>` +
    `<span class="change">${esc(file.change)}</span>${state}${actions}</li>`
  );
}

export function renderStatus(status: ServerStatus): string {
  const button = (command: string, text: string) =>
    `<button type="button" data-action="command" data-command="${command}">${text}</button>`;
  switch (status.kind) {
    case "starting":
      return `<div class="banner" role="status">Starting Foehn's server…</div>`;
    case "ready":
      if (status.embedded) {
        return (
          `<div class="banner info" role="status">Using the embedded model (small, offline): fine for a demo, weak at real work. ` +
          `${button("foehn.chooseProvider", "Choose a provider")}</div>`
        );
      }
      return status.keyless
        ? `<div class="banner info" role="status">No key set for ${esc(status.provider)}: requests go without Authorization, ` +
            `which suits a local server. ${button("foehn.setApiKey", "Set API key…")}` +
            `<button type="button" data-action="dismissHint" data-hint="keyless">Got it</button></div>`
        : "";
    case "notFound":
      return (
        `<div class="banner error" role="alert"><strong>Server not found.</strong> ${esc(status.message)} ` +
        `${button("foehn.locateServer", "Locate the server…")}${button("foehn.openWalkthrough", "Set up Foehn")}</div>`
      );
    case "noModel":
      return (
        `<div class="banner warn" role="alert"><strong>Choose a model.</strong> Foehn needs a provider and its key, ` +
        `or the small offline model. ${button("foehn.chooseProvider", "Choose a provider")}` +
        `${button("foehn.useOfflineModel", OFFLINE_OFFER)}</div>`
      );
    case "noKey":
      return (
        `<div class="banner warn" role="alert"><strong>No API key for ${esc(status.provider)}.</strong> ` +
        `${button("foehn.setApiKey", "Set API key…")}${button("foehn.chooseProvider", "Choose another provider")}</div>`
      );
    case "restricted":
      return (
        `<div class="banner warn" role="alert"><strong>Restricted mode.</strong> This workspace is not trusted, so Foehn ` +
        `answers with read-only tools only and ignores the workspace's own settings, plugins and rules. ` +
        `${button("workbench.trust.manage", "Manage workspace trust")}</div>`
      );
    case "failed":
      return `<div class="banner error" role="alert">${esc(status.message)} ${button("foehn.restartServer", "Restart the server")}</div>`;
    case "settingUp":
      return `<div class="banner" role="status">Setting up Foehn's server (the first start takes a moment; the notification shows each step)…</div>`;
    case "setupFailed":
      return (
        `<div class="banner error" role="alert"><strong>Foehn's server is not set up.</strong> ${esc(status.message)} ` +
        `${button(SETUP_ACTIONS[status.action].command, SETUP_ACTIONS[status.action].label)}</div>`
      );
  }
}

/** A setup failure's one action, as a banner button. */
const SETUP_ACTIONS: Record<SetupAction, { command: StatusCommand; label: string }> = {
  pickInterpreter: { command: "foehn.pickPython", label: "Pick a Python…" },
  openLog: { command: "foehn.showLog", label: "Open the log" },
  retry: { command: "foehn.restartServer", label: "Retry" },
};

/** The offer of the offline model, where a chat could use it: its size said first. */
export const OFFLINE_OFFER = "Use the offline model (1.1 GB)";

/** The chat before its first question: which model answers, a few questions to start from,
 * and the workspace's recent chats. */
export function renderEmpty(status: ServerStatus, recent: readonly RecentChat[]): string {
  const model =
    status.kind === "ready"
      ? `<p class="model">Answering: <strong>${esc(status.provider)}</strong>${status.model ? ` · <code>${esc(status.model)}</code>` : ""}` +
        ` <button type="button" class="link" data-action="command" data-command="foehn.chooseProvider">Change</button></p>`
      : "";
  const suggestions = SUGGESTIONS.map(
    (text) => `<li><button type="button" class="suggestion" data-action="suggest" data-text="${esc(text)}">${esc(text)}</button></li>`,
  ).join("");
  const chats = recent.length
    ? `<div class="label">Recent chats</div><ul class="recent">` +
      recent
        .map(
          (chat) =>
            `<li><button type="button" class="link" data-action="resume" data-session="${esc(chat.id)}" ` +
            `aria-label="Resume the chat ${esc(chat.title || "(untitled)")}">${esc(chat.title || "(untitled)")}</button>` +
            `<span class="detail">${esc(chat.detail)}</span></li>`,
        )
        .join("") +
      `</ul>`
    : "";
  const offline =
    (status.kind === "ready" && !status.embedded) || status.kind === "noKey" || status.kind === "noModel"
      ? `<p class="offline"><button type="button" class="link" data-action="command" data-command="foehn.useOfflineModel">${OFFLINE_OFFER}</button>` +
        ` <span class="detail">a small model that runs on this computer, no key, no network once downloaded</span></p>`
      : "";
  return (
    model +
    offline +
    `<p>Ask Foehn about this workspace, or to change it. Type <kbd>@</kbd> to add a file. Every change waits for your approval and can be undone.</p>` +
    `<div class="label">Try</div><ul class="suggestions">${suggestions}</ul>` +
    chats
  );
}

/** The messages sent while a turn works, each with its Remove button; sent in order when the
 * turn ends. */
export function renderQueued(queued: readonly QueuedMessage[]): string {
  if (!queued.length) {
    return "";
  }
  const items = queued
    .map(
      (message) =>
        `<li class="queued-message"><span class="badge">Queued${message.plan ? " · Plan" : ""}</span>` +
        `<span class="text">${esc(message.text)}</span>` +
        `<button type="button" class="link" data-action="unqueue" data-id="${esc(message.id)}" ` +
        `aria-label="Remove the queued message: ${esc(message.text.slice(0, 60))}">Remove</button></li>`,
    )
    .join("");
  return `<div class="label">Sent when the turn that is working ends</div><ul aria-label="Queued messages">${items}</ul>`;
}
