// The chat webview: draws what the host posts (chat/view.ts makes the HTML) and posts back what
// the person did. It holds no conversation state of its own beyond what is on screen, so a
// reloaded view is redrawn from the host's "reset"; only the question being typed is kept in the
// webview's own state, so that hiding the view (which reloads it) loses no draft.
import type { Chip, HostMessage, RecentChat, ServerStatus, ViewMessage } from "../chat/messages";
import { renderEmpty, renderQueued, renderStatus, renderTurn } from "../chat/view";
import { canRestore, meterText, type Turn } from "../chat/state";
import { escapeHtml as esc } from "../chat/markdown";
import { slashQuery } from "../chat/rules";

declare function acquireVsCodeApi(): {
  postMessage(message: ViewMessage): void;
  getState(): unknown;
  setState(state: { draft: string }): void;
};

const vscode = acquireVsCodeApi();
const post = (message: ViewMessage): void => vscode.postMessage(message);

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const log = $<HTMLDivElement>("log");
const input = $<HTMLTextAreaElement>("input");
const send = $<HTMLButtonElement>("send");
const mode = $<HTMLSelectElement>("mode");
const stop = $<HTMLButtonElement>("stop");
const chips = $<HTMLDivElement>("chips");
const meter = $<HTMLSpanElement>("meter");
const status = $<HTMLDivElement>("status");
const title = $<HTMLHeadingElement>("title");
const list = $<HTMLUListElement>("mentions");
const empty = $<HTMLDivElement>("empty");
const queued = $<HTMLDivElement>("queued");

let turns: Turn[] = [];
const open = new Set<string>();
/** What the list above the input offers: files for `@word`, custom commands for `/word`. */
interface Completion {
  kind: "mention" | "slash";
  value: string;
  label: string;
  detail?: string;
}
let completions: Completion[] = [];
let completionIndex = 0;
let serverStatus: ServerStatus = { kind: "starting" };
let recent: RecentChat[] = [];
let copies = 0;
const COPIED_MS = 1500;

/** Whether each drawn turn offers "Restore to here", by run id. */
const restorable = new Map<string, boolean>();

function draw(turn: Turn, index: number): void {
  restorable.set(turn.runId, canRestore(turns, index));
  const html = renderTurn(turn, { restorable: restorable.get(turn.runId)! });
  let node = log.querySelector<HTMLElement>(`section[data-run="${CSS.escape(turn.runId)}"]`);
  if (node && node.dataset["html"] === html) {
    return;
  }
  const focused = document.activeElement instanceof HTMLElement ? focusKey(document.activeElement) : undefined;
  const template = document.createElement("template");
  template.innerHTML = html;
  const fresh = template.content.firstElementChild as HTMLElement;
  fresh.dataset["html"] = html;
  for (const details of fresh.querySelectorAll<HTMLDetailsElement>("details[data-details]")) {
    details.open = open.has(details.dataset["details"]!);
  }
  if (node) {
    carryInputs(node, fresh);
    node.replaceWith(fresh);
  } else {
    log.append(fresh);
  }
  node = fresh;
  if (focused) {
    node.querySelector<HTMLElement>(focused)?.focus();
  }
  const near = log.scrollHeight - log.scrollTop - log.clientHeight < 120;
  if (near || turn.status === "running") {
    log.scrollTop = log.scrollHeight;
  }
}

/** What the person typed or ticked in a turn's inputs (a question's fields, a denial's message)
 * survives the turn being drawn again while they type. */
function carryInputs(from: HTMLElement, to: HTMLElement): void {
  const name = (input: HTMLInputElement | HTMLSelectElement) =>
    ["data-field-of", "data-field", "data-value", "data-message-for"].map((a) => input.getAttribute(a) ?? "").join("\n");
  const fresh = new Map([...to.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input, select")].map((input) => [name(input), input]));
  for (const input of from.querySelectorAll<HTMLInputElement | HTMLSelectElement>("input, select")) {
    const target = fresh.get(name(input));
    if (target instanceof HTMLInputElement && input instanceof HTMLInputElement && input.type === "checkbox") {
      target.checked = input.checked;
    } else if (target) {
      target.value = input.value;
    }
  }
}

/** A question's inputs, by field name: text as typed, a yes/no's state, the choices ticked. */
function fieldsOf(key: string): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const input of document.querySelectorAll<HTMLInputElement | HTMLSelectElement>(`[data-field-of="${CSS.escape(key)}"]`)) {
    const field = input.dataset["field"]!;
    const kind = input.dataset["kind"];
    if (kind === "choices") {
      const ticked = (content[field] as string[] | undefined) ?? [];
      content[field] = input instanceof HTMLInputElement && input.checked ? [...ticked, input.dataset["value"]!] : ticked;
    } else if (kind === "boolean" && input instanceof HTMLInputElement) {
      content[field] = input.checked;
    } else {
      content[field] = input.value;
    }
  }
  return content;
}

function focusKey(element: HTMLElement): string | undefined {
  const attrs = ["data-action", "data-key", "data-run", "data-path", "data-decision"]
    .filter((a) => element.hasAttribute(a))
    .map((a) => `[${a}="${CSS.escape(element.getAttribute(a)!)}"]`);
  return attrs.length ? attrs.join("") : undefined;
}

function redraw(): void {
  log.replaceChildren();
  restorable.clear();
  turns.forEach(draw);
  drawEmpty();
}

function drawEmpty(): void {
  empty.hidden = turns.length > 0;
  if (!empty.hidden) {
    empty.innerHTML = renderEmpty(serverStatus, recent);
  }
}

function drawChips(list: Chip[]): void {
  chips.innerHTML = list
    .map(
      (chip) =>
        `<span class="chip chip-${chip.kind}">${esc(chip.label)}` +
        `<button type="button" class="remove" data-action="removeChip" data-id="${esc(chip.id)}" ` +
        `aria-label="Remove ${esc(chip.label)} from the context">×</button></span>`,
    )
    .join("");
}

/** While a turn works, Send queues: the message goes when the turn ends. */
function setBusy(value: boolean): void {
  stop.hidden = !value;
  send.textContent = value ? "Queue" : "Send";
  send.title = value ? "Sent when the turn that is working ends; you can remove it until then" : "";
}

window.addEventListener("message", (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  switch (message.type) {
    case "reset":
      turns = message.turns;
      title.textContent = message.title;
      meter.textContent = meterText(message.meter);
      redraw();
      break;
    case "turn": {
      const index = turns.findIndex((t) => t.runId === message.turn.runId);
      if (index >= 0) {
        turns[index] = message.turn;
      } else {
        turns.push(message.turn);
      }
      empty.hidden = true;
      // Whether an earlier turn offers "Restore to here" depends on the later ones: those whose
      // offer changed are drawn again too (drawing is not cheap: Markdown and highlighting).
      turns.forEach((turn, i) => {
        if (turn.runId === message.turn.runId || restorable.get(turn.runId) !== canRestore(turns, i)) {
          draw(turn, i);
        }
      });
      break;
    }
    case "status":
      serverStatus = message.status;
      status.innerHTML = renderStatus(message.status);
      drawEmpty();
      break;
    case "recent":
      recent = message.chats;
      drawEmpty();
      break;
    case "copied": {
      const button = document.querySelector<HTMLButtonElement>(`button[data-copy-token="${CSS.escape(message.token)}"]`);
      if (button) {
        button.textContent = "Copied ✓";
        setTimeout(() => (button.textContent = "Copy"), COPIED_MS);
      }
      break;
    }
    case "chips":
      drawChips(message.chips);
      break;
    case "meter":
      meter.textContent = meterText(message.meter);
      break;
    case "busy":
      setBusy(message.busy);
      break;
    case "queued":
      queued.innerHTML = renderQueued(message.queued);
      break;
    case "mentions":
      showCompletions("mention", message.query, message.files.map((file) => ({ kind: "mention", value: file, label: file })));
      break;
    case "slashCommands":
      showCompletions(
        "slash",
        message.query,
        message.commands.map((command) => ({
          kind: "slash",
          value: command.name,
          label: `/${command.name}${command.hint ? ` ${command.hint}` : ""}`,
          ...(command.description ? { detail: command.description } : {}),
        })),
      );
      break;
    case "focus":
      if (message.prefill !== undefined) {
        input.value = message.prefill;
        keepDraft();
      }
      input.focus();
      break;
  }
});

document.addEventListener("click", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>("[data-action]");
  if (!target) {
    return;
  }
  const data = target.dataset;
  switch (data["action"]) {
    case "copy":
    case "insert":
    case "apply":
    case "runInTerminal": {
      const block = target.closest<HTMLElement>(".code");
      const code = block?.querySelector("code")?.textContent ?? "";
      if (data["action"] === "copy") {
        const token = `copy-${++copies}`;
        target.dataset["copyToken"] = token;
        post({ type: "copy", text: code, token });
      } else if (data["action"] === "apply") {
        const path = block?.dataset["path"];
        post({ type: "apply", text: code, ...(path ? { path } : {}) });
      } else {
        post({ type: data["action"] as "insert" | "runInTerminal", text: code });
      }
      break;
    }
    case "retry":
      post({ type: "retry", runId: data["run"]! });
      break;
    case "openSettings":
      post({ type: "openSettings", query: data["query"] as never });
      break;
    case "resume":
      post({ type: "resume", session: data["session"]! });
      break;
    case "dismissHint":
      post({ type: "dismissHint", hint: "keyless" });
      break;
    case "suggest":
      input.value = data["text"] ?? "";
      keepDraft();
      input.focus();
      break;
    case "approve": {
      const key = data["key"]!;
      const message = document.querySelector<HTMLInputElement>(`input[data-message-for="${CSS.escape(key)}"]`)?.value.trim();
      const decision = data["decision"] as "allow" | "allowRun" | "allowAlways" | "deny";
      post({ type: "approve", key, decision, ...(decision === "deny" && message ? { message } : {}) });
      for (const button of target.parentElement?.querySelectorAll("button") ?? []) {
        button.disabled = true;
      }
      // The card goes once answered; the keyboard should not be left nowhere.
      input.focus();
      break;
    }
    case "elicit": {
      const key = data["key"]!;
      const answer = data["answer"] as "accept" | "decline" | "cancel";
      post({ type: "elicit", key, answer, ...(answer === "accept" ? { content: fieldsOf(key) } : {}) });
      break;
    }
    case "openDiff":
      post({ type: "openDiff", key: data["key"]! });
      break;
    case "openFileDiff":
      post({ type: "openFileDiff", runId: data["run"]!, path: data["path"]! });
      break;
    case "keep":
    case "undo":
      post({ type: data["action"], runId: data["run"]!, ...(data["path"] ? { path: data["path"] } : {}) });
      break;
    case "restore":
      post({ type: "restore", runId: data["run"]! });
      break;
    case "removeChip":
      post({ type: "removeChip", id: data["id"]! });
      break;
    case "unqueue":
      post({ type: "unqueue", id: data["id"]! });
      break;
    case "command":
      post({ type: "command", command: data["command"] as never });
      break;
    case "newChat":
      post({ type: "newChat" });
      break;
    case "history":
      post({ type: "history" });
      break;
  }
});

document.addEventListener("toggle", (event) => {
  const details = event.target as HTMLDetailsElement;
  const id = details.dataset?.["details"];
  if (id) {
    if (details.open) {
      open.add(id);
    } else {
      open.delete(id);
    }
  }
}, true);

function ask(): void {
  const text = input.value.trim();
  if (!text) {
    return;
  }
  post({ type: "ask", text, ...(mode.value === "plan" ? { mode: "plan" as const } : {}) });
  input.value = "";
  keepDraft();
  hideCompletions();
}

/** The question being typed, kept for a reloaded view. */
function keepDraft(): void {
  vscode.setState({ draft: input.value });
}

send.addEventListener("click", ask);
stop.addEventListener("click", () => post({ type: "stop" }));

input.addEventListener("keydown", (event) => {
  if (!list.hidden && completions.length) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      completionIndex = (completionIndex + (event.key === "ArrowDown" ? 1 : completions.length - 1)) % completions.length;
      drawCompletions();
      event.preventDefault();
      return;
    }
    if (event.key === "Enter" || event.key === "Tab") {
      pick(completions[completionIndex]!);
      event.preventDefault();
      return;
    }
    if (event.key === "Escape") {
      hideCompletions();
      event.preventDefault();
      return;
    }
  }
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    ask();
  }
});

input.addEventListener("input", () => {
  keepDraft();
  const query = typed();
  if (query === undefined) {
    hideCompletions();
  } else {
    post({ type: query.kind, query: query.query });
  }
});

/** What is being typed at the cursor that the list completes: a `/command` at the start, or
 * an `@file` anywhere. */
function typed(): { kind: Completion["kind"]; query: string } | undefined {
  const before = input.value.slice(0, input.selectionStart ?? input.value.length);
  const slash = slashQuery(before);
  if (slash !== undefined) {
    return { kind: "slash", query: slash };
  }
  const match = /(?:^|\s)@([^\s@]*)$/.exec(before);
  return match ? { kind: "mention", query: match[1]! } : undefined;
}

/** The host's answer for `query`. Answers may come out of order: one for an earlier query is
 * dropped, leaving the list as the latest answer drew it. */
function showCompletions(kind: Completion["kind"], query: string, items: Completion[]): void {
  const now = typed();
  if (now && (now.kind !== kind || now.query !== query)) {
    return;
  }
  if (!now || !items.length) {
    hideCompletions();
    return;
  }
  completions = items;
  completionIndex = 0;
  list.setAttribute("aria-label", kind === "slash" ? "Commands" : "Files");
  drawCompletions();
}

function drawCompletions(): void {
  list.innerHTML = completions
    .map(
      (item, i) =>
        `<li role="option" id="completion-${i}" ${item.kind === "slash" ? "data-command" : "data-file"}="${esc(item.value)}" ` +
        `aria-selected="${i === completionIndex}">${esc(item.label)}` +
        (item.detail ? ` <span class="detail">${esc(item.detail)}</span>` : "") +
        `</li>`,
    )
    .join("");
  list.hidden = false;
  input.setAttribute("aria-expanded", "true");
  input.setAttribute("aria-activedescendant", `completion-${completionIndex}`);
}

function hideCompletions(): void {
  list.hidden = true;
  completions = [];
  input.setAttribute("aria-expanded", "false");
  input.removeAttribute("aria-activedescendant");
}

function pick(item: Completion): void {
  const cursor = input.selectionStart ?? input.value.length;
  const typedText = input.value.slice(0, cursor);
  const before = item.kind === "slash" ? `/${item.value} ` : typedText.replace(/@([^\s@]*)$/, `@${item.value} `);
  input.value = before + input.value.slice(cursor);
  input.selectionStart = input.selectionEnd = before.length;
  keepDraft();
  hideCompletions();
  input.focus();
}

list.addEventListener("mousedown", (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>("li[role=option]");
  const index = target ? Number(target.id.replace("completion-", "")) : -1;
  const item = completions[index];
  if (item) {
    event.preventDefault();
    pick(item);
  }
});

const saved = vscode.getState() as { draft?: unknown } | undefined;
if (typeof saved?.draft === "string") {
  input.value = saved.draft;
}
post({ type: "ready" });
