// The chat's HTML, drawn from the state as strings: a turn, a tool-call card, an inline
// approval, the review of changed files, a status banner. Every value is escaped; every button
// has a visible text or an aria-label and a data-action the webview routes. No DOM API here,
// so the drawing is unit-tested in node.
import { ALLOW_RUN } from "../confirm";
import { escapeHtml as esc, renderMarkdown } from "./markdown";
import type { ServerStatus } from "./messages";
import type { Block, PendingApproval, ReviewFile, ToolCard, Turn } from "./state";

const MAX_ARGUMENTS = 120;
const MAX_OUTPUT = 20_000;

const STOP_TEXT: Record<string, string> = {
  answer: "Answered",
  max_iterations: "Stopped: too many tool rounds",
  budget: "Stopped: token budget spent",
  repeated_call: "Stopped: the same call repeated",
  cancelled: "Stopped by you",
  error: "Failed",
};

export function renderTurn(turn: Turn, options: { last: boolean }): string {
  const label = turn.index !== undefined ? `Turn ${turn.index}` : "Turn";
  const chips = turn.context.length
    ? `<div class="chips" aria-label="Context">${turn.context.map((c) => `<span class="chip">${esc(c)}</span>`).join("")}</div>`
    : "";
  const body = turn.blocks.map(renderBlock).join("\n");
  const thinking = turn.status === "running" ? `<div class="working" role="status">Working…</div>` : "";
  return (
    `<section class="turn${turn.undone ? " undone" : ""}" data-run="${esc(turn.runId)}" aria-label="${label}">` +
    `<div class="user"><div class="who">You</div>${chips}<div class="task">${esc(turn.task)}</div></div>` +
    `<div class="assistant"><div class="who">Foehn</div>${body}${thinking}</div>` +
    renderStop(turn) +
    renderReview(turn) +
    (turn.status === "done" && !options.last && turn.index !== undefined && !turn.undone
      ? `<button type="button" class="link" data-action="restore" data-run="${esc(turn.runId)}" ` +
        `aria-label="Restore the workspace to how it was after ${label.toLowerCase()}">Restore to here</button>`
      : "") +
    `</section>`
  );
}

function renderBlock(block: Block): string {
  return block.kind === "text" ? `<div class="markdown">${renderMarkdown(block.text)}</div>` : renderCard(block.card);
}

export function renderCard(card: ToolCard): string {
  const outcome =
    card.decision === "deny"
      ? `<span class="outcome denied">denied${card.reason ? `: ${esc(card.reason)}` : ""}</span>`
      : card.ok === undefined
        ? card.approval
          ? `<span class="outcome asking">needs your approval</span>`
          : `<span class="outcome running">running…</span>`
        : card.ok
          ? `<span class="outcome ok">✓ done</span>`
          : `<span class="outcome failed">✗ failed</span>`;
  const policy = card.policy ? `<span class="badge sandbox" title="sandbox policy">${esc(card.policy)}</span>` : "";
  const args = JSON.stringify(card.arguments) ?? "";
  const short = args.length > MAX_ARGUMENTS ? args.slice(0, MAX_ARGUMENTS) + "…" : args;
  const output = card.output
    ? `<div class="label">Output</div><pre class="output">${esc(card.output.slice(0, MAX_OUTPUT))}${card.output.length > MAX_OUTPUT ? "\n…" : ""}</pre>`
    : "";
  return (
    `<div class="card risk-${esc(String(card.risk))}" data-card="${esc(card.id)}">` +
    `<div class="card-head"><span class="tool">${esc(card.tool)}</span>` +
    (card.risk ? `<span class="badge risk">${esc(String(card.risk).replace(/_/g, "-"))}</span>` : "") +
    `${policy}${outcome}</div>` +
    `<details data-details="${esc(card.id)}"><summary><code>${esc(short)}</code></summary>` +
    `<div class="label">Arguments</div><pre class="arguments">${esc(JSON.stringify(card.arguments, null, 2) ?? "")}</pre>${output}` +
    `</details>` +
    (card.approval ? renderApproval(card, card.approval) : "") +
    `</div>`
  );
}

export function renderApproval(card: ToolCard, approval: PendingApproval): string {
  const key = esc(approval.key);
  const where = approval.program
    ? `<p class="program">Runs <code>${esc(approval.program)}</code>${approval.sandbox ? ` in the <strong>${esc(approval.sandbox)}</strong> sandbox` : ""}.</p>`
    : "";
  const diff = approval.diff
    ? `<pre class="diff" aria-label="Proposed change">${renderDiff(approval.diff)}</pre>` +
      `<button type="button" data-action="openDiff" data-key="${key}">Open diff in editor</button>`
    : "";
  return (
    `<div class="approval" role="group" aria-label="Approve ${esc(card.tool)}">` +
    `<p class="question">Allow <strong>${esc(card.tool)}</strong>${approval.summary ? `: ${esc(approval.summary)}` : ""}?</p>` +
    where +
    diff +
    `<div class="actions">` +
    `<button type="button" class="primary" data-action="approve" data-decision="allow" data-key="${key}">Allow</button>` +
    `<button type="button" data-action="approve" data-decision="allowRun" data-key="${key}" ` +
    `aria-describedby="remember-${key}">${ALLOW_RUN}</button>` +
    `<button type="button" data-action="approve" data-decision="deny" data-key="${key}">Deny</button>` +
    `</div>` +
    `<p class="remember" id="remember-${key}">“${ALLOW_RUN}” remembers: ${esc(approval.remember)}.</p>` +
    `<input type="text" class="deny-message" data-message-for="${key}" ` +
    `aria-label="Message to the model if you deny (optional)" placeholder="Message to the model if you deny (optional)">` +
    `</div>`
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
  const error = turn.error ? `: ${esc(turn.error)}` : "";
  return `<div class="stop stop-${esc(turn.stop ?? "answer")}">${esc(reason)}${rounds}${error}</div>`;
}

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
  const state =
    file.state === "kept" ? `<span class="state">kept</span>` : file.state === "undone" ? `<span class="state">undone</span>` : "";
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
      return status.embedded
        ? `<div class="banner info" role="status">Using the embedded model (small, offline): fine for a demo, weak at real work. ` +
            `${button("foehn.chooseProvider", "Choose a provider")}</div>`
        : "";
    case "notFound":
      return (
        `<div class="banner error" role="alert"><strong>Server not found.</strong> ${esc(status.message)} ` +
        `${button("foehn.locateServer", "Locate the server…")}${button("foehn.openWalkthrough", "Set up Foehn")}</div>`
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
  }
}
