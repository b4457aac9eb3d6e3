// The messages Foehn's server speaks beyond plain LSP, typed in one place (as rust-analyzer's
// lsp_ext.ts does). The run events mirror server/foehn_lsp/agent/events.py; the session
// commands mirror server/foehn_lsp/lsp/sessions.py. No VS Code API here: parseRunEvent is
// unit-tested, and the webview bundle imports these types too.

export const RUN_EVENT = "foehn/runEvent";
export const CONFIRM = "foehn/confirm";

/** JSON-RPC error code of a request the client cancelled (LSP's RequestCancelled). */
export const REQUEST_CANCELLED = -32800;

export type Risk = "read_only" | "write" | "destructive" | "undefined";
export type StopReason = "answer" | "max_iterations" | "budget" | "repeated_call" | "cancelled" | "error";
export type SandboxPolicy = "read-only" | "workspace-write" | "full";
export type Change = "created" | "modified" | "deleted" | "moved";
/** What kind of failure ended a turn (server/foehn_lsp/errors.py's ErrorKind). */
export type ErrorKind = "missing_key" | "auth" | "unavailable" | "request" | "protocol" | "config" | "internal";

export interface TextDelta {
  event: "text";
  text: string;
}

export interface Thinking {
  event: "thinking";
  iteration: number;
  /** What the wait is for, when the provider says ("loading the model…"). */
  detail?: string | null;
}

export interface ToolCall {
  event: "tool_call";
  id: string;
  tool: string;
  /** The parsed arguments, or the raw text when they were not valid JSON. */
  arguments: unknown;
  risk: Risk;
  /** The sandbox policy a program runs under, when the call starts one. */
  policy?: SandboxPolicy | null;
  /** The unified diff of the edit, when known before approval. */
  preview?: string | null;
}

export interface Approval {
  event: "approval";
  id: string;
  tool: string;
  decision: "allow" | "deny";
  reason: string;
}

export interface ToolResult {
  event: "tool_result";
  id: string;
  tool: string;
  ok: boolean;
  output: string;
  data?: unknown;
}

export interface Usage {
  event: "usage";
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  budget: number;
  /** The model's context window, when known. */
  window?: number | null;
  /** Tokens the conversation takes in the window now (the last request's input). */
  context_tokens?: number | null;
  /** What the session has cost so far, in US dollars, when the provider's prices are known. */
  cost?: number | null;
}

export interface TurnStarted {
  event: "turn";
  session: string;
  /** 1-based index of the turn in the session. */
  turn: number;
}

export interface ChangedFile {
  /** Relative to the workspace root, with "/". */
  path: string;
  change: Change;
  /** For `moved`: where the file was. */
  source?: string | null;
}

/** At a turn's end, before `done`: the files the turn changed (its checkpoint). */
export interface FilesChanged {
  event: "files_changed";
  session: string;
  turn: number;
  files: ChangedFile[];
}

/** Older parts of the conversation were shortened to fit the context window. */
export interface Compacted {
  event: "compacted";
  before_tokens: number;
  after_tokens: number;
  summary: string;
}

export interface Done {
  event: "done";
  reason: StopReason;
  /** For `error`: the server's message. */
  answer: string;
  iterations: number;
  /** For `error`: what kind of failure it was. */
  error?: ErrorKind | null;
}

export type TodoStatus = "pending" | "in_progress" | "done";

export interface TodoItem {
  id: string;
  text: string;
  status: TodoStatus;
}

/** The task list changed (the `todo` tool, or an approved plan): the whole list. */
export interface Todo {
  event: "todo";
  items: TodoItem[];
}

/** A problem the turn's edits added (one the file did not have before the turn). */
export interface CheckedProblem {
  /** Workspace-relative. */
  path: string;
  /** 1-based. */
  line: number;
  message: string;
  /** The checker: a language server's name, `editor`, or a program such as `mypy`. */
  source: string;
}

/** The files the turn changed were checked before the answer: the new problems (which went
 * back to the model) and the checkers that were skipped, one line each. */
export interface Checked {
  event: "checked";
  problems: CheckedProblem[];
  skipped: string[];
}

export type RunEvent =
  | TextDelta
  | Thinking
  | ToolCall
  | Approval
  | ToolResult
  | Usage
  | TurnStarted
  | FilesChanged
  | Compacted
  | Todo
  | Checked
  | Done;

/** The foehn/runEvent notification: one event of the run the client named. */
export type RunEventMessage = RunEvent & { runId: string };

type Shape = Record<string, "string" | "number" | "boolean" | "array" | "any">;

const SHAPES: Record<RunEvent["event"], Shape> = {
  text: { text: "string" },
  thinking: { iteration: "number" },
  tool_call: { id: "string", tool: "string", risk: "string", arguments: "any" },
  approval: { id: "string", tool: "string", decision: "string" },
  tool_result: { id: "string", tool: "string", ok: "boolean", output: "string" },
  usage: { input_tokens: "number", output_tokens: "number", total_tokens: "number" },
  turn: { session: "string", turn: "number" },
  files_changed: { session: "string", turn: "number", files: "array" },
  compacted: { before_tokens: "number", after_tokens: "number", summary: "string" },
  done: { reason: "string", answer: "string", iterations: "number" },
  todo: { items: "array" },
  checked: { problems: "array", skipped: "array" },
};

const TODO_STATUSES: readonly string[] = ["pending", "in_progress", "done"] satisfies TodoStatus[];

function isTodoItem(raw: unknown): raw is TodoItem {
  const item = raw as Record<string, unknown> | null;
  return (
    typeof item === "object" &&
    item !== null &&
    typeof item["id"] === "string" &&
    typeof item["text"] === "string" &&
    TODO_STATUSES.includes(item["status"] as string)
  );
}

function isCheckedProblem(raw: unknown): raw is CheckedProblem {
  const problem = raw as Record<string, unknown> | null;
  return (
    typeof problem === "object" &&
    problem !== null &&
    typeof problem["path"] === "string" &&
    Number.isInteger(problem["line"]) &&
    typeof problem["message"] === "string" &&
    typeof problem["source"] === "string"
  );
}

/** The notification's params as a typed event, or undefined when they do not have the shape
 * of a known event (a newer server's event is skipped, not misread). */
export function parseRunEvent(raw: unknown): RunEventMessage | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const value = raw as Record<string, unknown>;
  if (typeof value["runId"] !== "string" || typeof value["event"] !== "string") {
    return undefined;
  }
  const shape = SHAPES[value["event"] as RunEvent["event"]];
  if (!shape || !Object.hasOwn(SHAPES, value["event"])) {
    return undefined;
  }
  for (const [field, kind] of Object.entries(shape)) {
    const present = value[field];
    const ok =
      kind === "any" ? field in value : kind === "array" ? Array.isArray(present) : typeof present === kind;
    if (!ok) {
      return undefined;
    }
  }
  if (value["event"] === "todo" && !(value["items"] as unknown[]).every(isTodoItem)) {
    return undefined;
  }
  if (
    value["event"] === "checked" &&
    !((value["problems"] as unknown[]).every(isCheckedProblem) && (value["skipped"] as unknown[]).every((s) => typeof s === "string"))
  ) {
    return undefined;
  }
  if (value["event"] === "approval" && typeof value["reason"] !== "string") {
    return { ...(value as unknown as RunEventMessage), reason: "" } as RunEventMessage;
  }
  return value as unknown as RunEventMessage;
}

export interface FilePreview {
  uri: string;
  /** null for a file the edit creates. */
  before: string | null;
  after: string;
}

/** The foehn/confirm request: a call that policy says to ask about. */
export interface ConfirmParams {
  runId: string;
  /** The tool call's id (its tool_call event's `id`), when the server says it. */
  callId?: string;
  tool: string;
  arguments: unknown;
  risk: Risk | string;
  preview?: { summary?: string | null; diff?: string | null; files?: FilePreview[] };
  /** The program the call starts, if any. */
  program?: string | null;
  /** The sandbox policy that program runs under; `full` is the person's own rights. */
  sandbox?: SandboxPolicy | null;
  /** Exactly what "allow for this session" remembers, in words. */
  remember?: string | null;
  /** The narrowest allow rule that covers the call: what "always" saves, when one should. */
  proposedRule?: Rule | null;
  /** Why the person is asked: the `foehn explain` object for the call. */
  why?: Explanation | null;
}

/** A rule as the server shows it (agent/rules/ruleset.py's Rule.json). */
export interface Rule {
  tool: string;
  program?: string | null;
  args?: string[] | null;
  paths?: string[] | null;
  decision: "allow" | "ask" | "deny";
  sandbox?: SandboxPolicy | null;
  message?: string | null;
  /** FILE:LINE of its table; empty for a proposed rule. */
  source?: string;
}

/** A rule of the explanation: whether it decided, and why not when it did not. */
export interface ExplainedRule extends Rule {
  applied: boolean;
  note?: string | null;
  conflicts?: ExplainedRule[];
}

/** The `foehn explain` object (agent/rules/explain.py). */
export interface Explanation {
  decision: "allow" | "ask" | "deny";
  rule: ExplainedRule | null;
  /** FILE:LINE of the rule or hook that decided, else `table` (the risk was assessed from the
   * arguments) or `default` (the tool's declared risk). */
  source: string;
  risk: Risk | string;
  sandbox?: SandboxPolicy | null;
  remembered?: { run: string | null; always: Rule | null } | null;
}

/** foehn.rules.list's answer. `number` is the rule's place in the user file (for
 * foehn.rules.remove); workspace rules have none. */
export interface RulesList {
  file: string;
  rules: (Rule & { number: number | null; origin: "user" | "workspace" })[];
  problems: string[];
  warnings: string[];
}

/** A custom command as foehn.commands.list gives it. */
export interface CustomCommand {
  name: string;
  description: string | null;
  /** What its arguments are, e.g. "FILE". */
  hint: string | null;
  source: string | null;
}

/** `allowAlways`: allow, and save the request's `proposedRule` to the user config. */
export type Decision = "allow" | "allowRun" | "allowAlways" | "deny";

export interface ConfirmAnswer {
  decision: Decision;
  reason?: string;
}

/** foehn.session.prompt's argument. `runId` is chosen by the client, so events and
 * confirmations of this turn are known from the first notification on (no polling). */
export interface RunArguments {
  task: string;
  runId: string;
  sessionId: string;
  uri?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  diagnostic?: unknown;
  /** Extra context the person chose: @-mentioned files, the selection chip's text. */
  context?: string;
  /** `plan`: only read-only calls run, and the turn ends with a plan to approve. Absent: act. */
  mode?: "plan";
}

export interface RunResult {
  runId: string;
  answer: string;
  stopReason: StopReason;
  iterations: number;
  /** For stopReason `error`: what kind of failure it was. */
  error?: ErrorKind;
  sessionId?: string;
  /** The session's 1-based turn number. */
  turn?: number;
}

/** A JSON-RPC error as vscode-languageclient rejects with it. */
export function isCancellation(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    (error as { code: unknown }).code === REQUEST_CANCELLED
  );
}
