// What the chat view shows, as plain data: the turns of one session, each a stream of text and
// tool-call cards, then its stop reason and the files it changed. The extension host owns it
// and posts each changed turn to the webview, which only draws. No VS Code or DOM API here.
import { grantLines, rememberText } from "./confirm";
import type {
  ChangedFile,
  CheckedProblem,
  ConfirmParams,
  Decision,
  ElicitAnswer,
  ElicitField,
  ElicitParams,
  Risk,
  RunEvent,
  SandboxPolicy,
  StopReason,
  TodoItem,
} from "../protocol";
import type { Failure } from "./errors";
import { type Investigation, investigationOf } from "./investigation";
import { notApplied, ruleLine, whyAsked } from "./rules";

export interface ToolCard {
  id: string;
  tool: string;
  arguments: unknown;
  risk: Risk | string;
  policy?: SandboxPolicy | null;
  decision?: "allow" | "deny";
  reason?: string;
  ok?: boolean;
  output?: string;
  /** Set while the person is being asked inline; cleared by the answer. */
  approval?: PendingApproval;
  /** The rule the person saved with "Always allow" on this call, on one line. */
  savedRule?: string;
  /** An `investigate` call's findings, once its sub-run has answered. */
  investigation?: Investigation;
  /** What the running call last said of its progress (an MCP server's progress messages). */
  progress?: string;
  /** The connections the call attempted (through its proxy, or `fetch`'s), in order. */
  network?: NetworkLine[];
  /** Its MCP server's questions: asked (a form on the card) and answered. */
  questions?: Question[];
}

/** One connection a call attempted (a `network` run event). */
export interface NetworkLine {
  host: string;
  port: number;
  allowed: boolean;
  /** The granted entry and where, or why it was refused ("x is not granted"). */
  reason: string;
  bytesOut: number;
  bytesIn: number;
}

/** An MCP server's question (foehn/elicit) as the chat shows it, named as that server's. */
export interface Question {
  /** Names the question in the host. */
  key: string;
  server: string;
  tool: string | null;
  message: string;
  /** A page the server asks the person to open (then there are no fields). */
  url: string | null;
  fields: ElicitField[];
  /** Why the last answer could not be sent (a required field left empty, a wrong number). */
  error?: string;
  /** Set once answered (or given up: `cancel`). */
  answer?: ElicitAnswer["action"];
}

export interface PendingApproval {
  /** Names this question in the host (a turn may ask twice about the same call id). */
  key: string;
  summary: string;
  diff: string;
  files: string[];
  remember: string;
  sandbox?: SandboxPolicy | null;
  program?: string | null;
  /** Why the person is asked, in words (empty when the server did not say). */
  why: string;
  /** Rules that matched but did not decide, each with why. */
  notApplied: string[];
  /** The rule "Always allow" saves, on one line; absent when no rule should be saved. */
  always?: string;
  /** Plan mode's plan (a `plan` call): its steps, approved or rejected as a whole. */
  steps?: string[];
  /** The domains the call may reach if it runs; empty: none. */
  network: string[];
  /** Where each of them is granted (`example.org at FILE:LINE`). */
  grants: string[];
}

/** What checking the turn's edits found: the new problems and the checkers skipped. */
export interface Checks {
  problems: CheckedProblem[];
  skipped: string[];
}

export type Block =
  | { kind: "text"; text: string }
  | { kind: "tool"; card: ToolCard }
  | { kind: "checks"; checks: Checks }
  /** A server's question asked while no call of this turn is running (it has no card to go on). */
  | { kind: "question"; question: Question };

/** `reverted`: the person put the file back in the editor (Ctrl+Z), not through Foehn. */
export type FileState = "changed" | "kept" | "undone" | "reverted";

export interface ReviewFile extends ChangedFile {
  state: FileState;
}

export interface Turn {
  /** The client-chosen run id: every event and confirmation names it. */
  runId: string;
  /** The session's 1-based turn number once the server has said it (undo and restore use it). */
  index?: number;
  task: string;
  /** The context chips that went with the task, by label. */
  context: string[];
  blocks: Block[];
  status: "running" | "done";
  stop?: StopReason;
  iterations?: number;
  /** Why the turn failed, when it did: drawn as its own card with the fixes. */
  failure?: Failure;
  files: ReviewFile[];
  /** The whole turn was undone (or the session restored to before it). */
  undone?: boolean;
  /** The model's task list, as it last sent it (the whole list each time). */
  todo?: TodoItem[];
  /** Asked in plan mode. */
  plan?: boolean;
  /** Why an action on this turn waits (a turn is running), until that turn ends. */
  notice?: string;
}

/** A message sent while a turn was working: sent when it ends, unless removed first. */
export interface QueuedMessage {
  id: string;
  text: string;
  plan: boolean;
}

export interface Meter {
  used: number;
  window?: number;
  cost?: number;
}

export function newTurn(runId: string, task: string, context: string[] = []): Turn {
  return { runId, task, context, blocks: [], status: "running", files: [] };
}

/** The turn after one event (a new object, so a caller can tell what changed). */
export function applyEvent(turn: Turn, event: RunEvent): Turn {
  const next: Turn = { ...turn, blocks: [...turn.blocks] };
  const last = next.blocks[next.blocks.length - 1];
  switch (event.event) {
    case "text":
      if (last?.kind === "text") {
        next.blocks[next.blocks.length - 1] = { kind: "text", text: last.text + event.text };
      } else {
        next.blocks.push({ kind: "text", text: event.text });
      }
      break;
    case "tool_call":
      next.blocks.push({
        kind: "tool",
        card: { id: event.id, tool: event.tool, arguments: event.arguments, risk: event.risk, policy: event.policy },
      });
      break;
    case "approval":
      updateCard(next, event.id, (card) => ({
        ...card,
        decision: event.decision,
        reason: event.reason,
        approval: undefined,
      }));
      break;
    case "tool_result":
      updateCard(next, event.id, (card) => ({
        ...card,
        ok: event.ok,
        output: event.output,
        investigation: investigationOf(event.tool, event.data),
        progress: undefined,
      }));
      break;
    case "tool_progress":
      // The latest message replaces the one before: the card says where the call is now.
      if (!updateCard(next, event.id, (card) => ({ ...card, progress: event.message }))) {
        return turn;
      }
      break;
    case "network": {
      const line: NetworkLine = {
        host: event.host,
        port: event.port,
        allowed: event.allowed,
        reason: event.reason,
        bytesOut: event.bytes_out,
        bytesIn: event.bytes_in,
      };
      if (!updateCard(next, event.call, (card) => ({ ...card, network: [...(card.network ?? []), line] }))) {
        return turn;
      }
      break;
    }
    case "turn":
      next.index = event.turn;
      break;
    case "files_changed":
      next.files = mergeFiles(next.files, event.files);
      break;
    case "done":
      next.status = "done";
      next.stop = event.reason;
      next.iterations = event.iterations;
      if (event.reason === "error") {
        // The server's message is not an answer: it goes on the failure card.
        next.failure = { kind: event.error ?? "internal", message: event.answer };
      } else if (event.answer && !(last?.kind === "text" && last.text.trim())) {
        // A provider that does not stream gives the answer only here.
        next.blocks.push({ kind: "text", text: event.answer });
      }
      closeOpenCards(next);
      break;
    case "todo":
      next.todo = event.items;
      break;
    case "checked":
      // A check that found nothing and skipped nothing has nothing to say (as in the terminal).
      if (!event.problems.length && !event.skipped.length) {
        return turn;
      }
      next.blocks.push({ kind: "checks", checks: { problems: event.problems, skipped: event.skipped } });
      break;
    case "compacted":
      next.blocks.push({ kind: "text", text: `_Older messages were summarised to fit the context window (${event.before_tokens} → ${event.after_tokens} tokens)._` });
      break;
    case "thinking":
    case "usage":
      return turn;
  }
  return next;
}

/** The turn while the person is asked about one of its calls inline. */
export function askInline(turn: Turn, key: string, params: ConfirmParams, callId?: string): Turn {
  const approval: PendingApproval = {
    key,
    summary: params.preview?.summary ?? "",
    diff: params.preview?.diff ?? "",
    files: (params.preview?.files ?? []).map((f) => f.uri),
    remember: rememberText(params),
    sandbox: params.sandbox,
    program: params.program,
    why: whyAsked(params.why),
    ...(planSteps(params) ? { steps: planSteps(params) } : {}),
    notApplied: notApplied(params.why),
    network: params.network ?? [],
    grants: grantLines(params),
    ...(params.proposedRule && params.sandbox !== "full" ? { always: ruleLine(params.proposedRule) } : {}),
  };
  const next: Turn = { ...turn, blocks: [...turn.blocks] };
  const target = callId ?? lastCardWithout(next, params.tool);
  if (target === undefined || !updateCard(next, target, (card) => ({ ...card, approval }))) {
    next.blocks.push({
      kind: "tool",
      card: { id: key, tool: params.tool, arguments: params.arguments, risk: params.risk, approval },
    });
  }
  return next;
}

/** The turn while an MCP server's question waits for the person: on the card of the call that
 * runs (the one of that server's tool, else the latest running), or on its own if none runs. */
export function askQuestion(turn: Turn, key: string, params: ElicitParams): Turn {
  const question: Question = {
    key,
    server: params.server,
    tool: params.tool,
    message: params.message,
    url: params.url,
    fields: params.fields,
  };
  const next: Turn = { ...turn, blocks: [...turn.blocks] };
  const running = next.blocks.flatMap((block) => (block.kind === "tool" && block.card.ok === undefined && block.card.decision !== "deny" ? [block.card] : []));
  const own = running.filter((card) => card.tool.endsWith(`__${params.tool ?? ""}`) && card.tool.includes(params.server));
  const target = own[own.length - 1] ?? running[running.length - 1];
  if (!target || !updateCard(next, target.id, (card) => ({ ...card, questions: [...(card.questions ?? []), question] }))) {
    next.blocks.push({ kind: "question", question });
  }
  return next;
}

/** The turn after a question is answered (`cancel`: given up), or with why its answer could not
 * be sent (it stays asked). */
export function questionAnswered(turn: Turn, key: string, outcome: { answer: ElicitAnswer["action"] } | { error: string }): Turn {
  const change = (question: Question): Question => (question.key !== key ? question : { ...question, ...outcome });
  const blocks = turn.blocks.map((block): Block => {
    if (block.kind === "question") {
      return { kind: "question", question: change(block.question) };
    }
    if (block.kind === "tool" && block.card.questions?.some((q) => q.key === key)) {
      return { kind: "tool", card: { ...block.card, questions: block.card.questions.map(change) } };
    }
    return block;
  });
  return { ...turn, blocks };
}

/** The steps of plan mode's plan, when `params` asks about one (the tool `plan`). */
export function planSteps(params: Pick<ConfirmParams, "tool" | "arguments">): string[] | undefined {
  const steps = (params.arguments as { steps?: unknown } | null)?.steps;
  return params.tool === "plan" && Array.isArray(steps) && steps.every((s) => typeof s === "string") ? steps : undefined;
}

/** The turn once an inline question is answered (the approval event will confirm it); an
 * "Always allow" keeps the rule it saved on the card. */
export function answered(turn: Turn, key: string, decision?: Decision): Turn {
  const next: Turn = { ...turn, blocks: [...turn.blocks] };
  for (const [i, block] of next.blocks.entries()) {
    if (block.kind === "tool" && block.card.approval?.key === key) {
      const saved = decision === "allowAlways" ? block.card.approval.always : undefined;
      // A plan's answer is its outcome: no approval event or result follows for it.
      const plan: Partial<ToolCard> = !block.card.approval.steps
        ? {}
        : decision === "deny"
          ? { decision: "deny", reason: "you rejected the plan" }
          : decision
            ? { decision: "allow", ok: true, output: "you approved the plan" }
            : {};
      next.blocks[i] = { kind: "tool", card: { ...block.card, approval: undefined, ...plan, ...(saved ? { savedRule: saved } : {}) } };
    }
  }
  return next;
}

/** The turn when its request failed without a `done` (the server was not running, or
 * refused the request itself). */
export function failed(turn: Turn, failure: Failure): Turn {
  const next: Turn = { ...turn, status: "done", stop: "error", failure, blocks: [...turn.blocks] };
  closeOpenCards(next);
  return next;
}

export function markFiles(turn: Turn, paths: readonly string[] | "all", state: FileState): Turn {
  const files = turn.files.map((f) => (paths === "all" || paths.includes(f.path) ? { ...f, state } : f));
  const undone = files.length > 0 && files.every((f) => f.state === "undone");
  return { ...turn, files, undone: turn.undone || undone };
}

/** The person changed a reviewed file in the editor (undo, redo): the review notices when its
 * text is back to how it was before the turn, and when it no longer is. */
export function noticeEditorText(turn: Turn, path: string, text: string, before: string): Turn {
  const file = turn.files.find((f) => f.path === path);
  if (!file) {
    return turn;
  }
  const state: FileState | undefined =
    file.state === "changed" && text === before ? "reverted" : file.state === "reverted" && text !== before ? "changed" : undefined;
  return state ? { ...turn, files: turn.files.map((f) => (f.path === path ? { ...f, state } : f)) } : turn;
}

/** Whether "Restore to here" makes sense under `turns[index]`: the turn changed files itself,
 * and a later turn changed files that are still changed. */
export function canRestore(turns: readonly Turn[], index: number): boolean {
  const turn = turns[index];
  const changedFiles = (t: Turn) => t.files.length > 0 && !t.undone;
  return (
    turn !== undefined &&
    turn.status === "done" &&
    turn.index !== undefined &&
    changedFiles(turn) &&
    turns.slice(index + 1).some((t) => t.status === "done" && changedFiles(t))
  );
}

/** Marks which turns are undone (as the session's undo records say), leaving the rest as
 * they were or, for a turn a redo brought back, changed again. */
export function withUndone(turn: Turn, undone: boolean): Turn {
  if (turn.undone === undone) {
    return turn;
  }
  if (undone) {
    return { ...markFiles(turn, "all", "undone"), undone: true };
  }
  return { ...turn, undone: false, files: turn.files.map((f) => (f.state === "undone" ? { ...f, state: "changed" } : f)) };
}

/** Usage adds up over a session: the meter shows the last known context size. */
export function meterFrom(previous: Meter | undefined, event: RunEvent): Meter | undefined {
  if (event.event !== "usage") {
    return previous;
  }
  return {
    used: event.context_tokens ?? event.input_tokens + event.output_tokens,
    window: event.window ?? previous?.window,
    cost: event.cost ?? previous?.cost,
  };
}

export function meterText(meter: Meter | undefined): string {
  if (!meter) {
    return "";
  }
  const used = compact(meter.used);
  const part = meter.window ? `${used} / ${compact(meter.window)} tokens` : `${used} tokens`;
  // A model without a price (the embedded one, a local server) has no cost to show.
  if (!meter.cost) {
    return part;
  }
  const cost = meter.cost < 0.001 ? "< $0.001" : `$${meter.cost.toFixed(meter.cost < 1 ? 3 : 2)}`;
  return `${part} · ${cost}`;
}

function compact(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function updateCard(turn: Turn, id: string, change: (card: ToolCard) => ToolCard): boolean {
  for (let i = turn.blocks.length - 1; i >= 0; i--) {
    const block = turn.blocks[i]!;
    if (block.kind === "tool" && block.card.id === id) {
      turn.blocks[i] = { kind: "tool", card: change(block.card) };
      return true;
    }
  }
  return false;
}

function lastCardWithout(turn: Turn, tool: string): string | undefined {
  for (let i = turn.blocks.length - 1; i >= 0; i--) {
    const block = turn.blocks[i]!;
    if (block.kind === "tool" && block.card.tool === tool && block.card.decision === undefined) {
      return block.card.id;
    }
  }
  return undefined;
}

function closeOpenCards(turn: Turn): void {
  const close = (question: Question): Question => (question.answer ? question : { ...question, answer: "cancel" });
  for (const [i, block] of turn.blocks.entries()) {
    if (block.kind === "tool" && (block.card.approval || block.card.progress || block.card.questions)) {
      const questions = block.card.questions?.map(close);
      turn.blocks[i] = { kind: "tool", card: { ...block.card, approval: undefined, progress: undefined, ...(questions ? { questions } : {}) } };
    } else if (block.kind === "question") {
      turn.blocks[i] = { kind: "question", question: close(block.question) };
    }
  }
}

function mergeFiles(known: ReviewFile[], changed: readonly ChangedFile[]): ReviewFile[] {
  const byPath = new Map(known.map((f) => [f.path, f]));
  for (const file of changed) {
    byPath.set(file.path, { ...file, state: "changed" });
  }
  return [...byPath.values()];
}
