// Every message Foehn's server speaks beyond plain LSP, typed in one place (as rust-analyzer's
// lsp_ext.ts does): the commands it answers (workspace/executeCommand, in COMMANDS), the
// requests it sends the editor (foehn/confirm, foehn/diagnostics, the language tools', an MCP
// server's question foehn/elicit, its sign-in foehn/mcpSignIn and foehn/secrets*), and its
// notifications (foehn/runEvent, foehn/trustWaiting). The run events mirror
// server/foehn_lsp/events.py (schema/events-v1.json; a unit test compares the kinds), the
// commands server/foehn_lsp/lsp/. No VS Code API here: parseRunEvent is unit-tested, and the
// webview bundle imports these types too.

/** A command the server answers through workspace/executeCommand: its name; the arguments and
 * result are carried in the type (Server.send takes and returns them). */
export interface Command<Args extends unknown[], Result> {
  readonly command: string;
  /** Never set: only the type is used. */
  readonly shape?: (...args: Args) => Result;
}

/** A request the server sends the editor: its method; the params and answer in the type. */
export interface EditorRequest<Params, Answer> {
  readonly method: string;
  readonly shape?: (params: Params) => Answer;
}

/** A notification the server sends the editor. */
export interface EditorNotification<Params> {
  readonly method: string;
  readonly shape?: (params: Params) => void;
}

const command = <Args extends unknown[], Result>(name: string): Command<Args, Result> => ({ command: name });
const request = <Params, Answer>(method: string): EditorRequest<Params, Answer> => ({ method });
const notification = <Params>(method: string): EditorNotification<Params> => ({ method });

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
  /** What the tool does, for an icon: read, search, edit, move, delete, execute, think, fetch,
   * other; absent for a tool that does not exist. */
  tool_kind?: ToolKind | string | null;
}

export type ToolKind = "read" | "search" | "edit" | "move" | "delete" | "execute" | "think" | "fetch" | "other";

/** What a running call says of its progress (an MCP server's progress notifications). */
export interface ToolProgress {
  event: "tool_progress";
  id: string;
  tool: string;
  message: string;
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

export type PlanStatus = "proposed" | "approved" | "edited" | "rejected" | "unreviewed";

/** Plan mode: the plan the model proposes, then what the person decided about it. */
export interface PlanEvent {
  event: "plan";
  status: PlanStatus;
  /** The plan in words (for `edited`, the person's version). */
  plan: string;
  steps: string[];
  /** The files the plan names. */
  files: string[];
  reason?: string;
}

/** One connection a call attempted through its network proxy (or `fetch` made), allowed or
 * refused, once it ended; the audit log records the same. */
export interface NetworkEvent {
  event: "network";
  /** The id of the call it belongs to. */
  call: string;
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was allowed (the granted entry and where) or refused ("x is not granted"). */
  reason: string;
  bytes_out: number;
  bytes_in: number;
}

export type RunEvent =
  | TextDelta
  | PlanEvent
  | NetworkEvent
  | Thinking
  | ToolCall
  | ToolProgress
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
  tool_progress: { id: "string", tool: "string", message: "string" },
  usage: { input_tokens: "number", output_tokens: "number", total_tokens: "number" },
  turn: { session: "string", turn: "number" },
  files_changed: { session: "string", turn: "number", files: "array" },
  compacted: { before_tokens: "number", after_tokens: "number", summary: "string" },
  done: { reason: "string", answer: "string", iterations: "number" },
  todo: { items: "array" },
  checked: { problems: "array", skipped: "array" },
  plan: { status: "string", plan: "string", steps: "array", files: "array" },
  network: {
    call: "string",
    host: "string",
    port: "number",
    allowed: "boolean",
    reason: "string",
    bytes_out: "number",
    bytes_in: "number",
  },
};

/** Every kind of run event this client knows (a test compares them with the server's schema). */
export const EVENT_KINDS = Object.keys(SHAPES) as RunEvent["event"][];

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
  /** Exactly what "Allow for this run" remembers, in words. */
  remember?: string | null;
  /** The narrowest allow rule that covers the call: what "always" saves, when one should. */
  proposedRule?: Rule | null;
  /** Why the person is asked: the `foehn explain` object for the call. */
  why?: Explanation | null;
  /** The domains the call may reach if it runs (`*.example.org`, `registry.example:8443`). */
  network?: string[];
}

/** A rule as the server shows it (policy/rules/ruleset.py's Rule.json). */
export interface Rule {
  tool: string;
  program?: string | null;
  args?: string[] | null;
  paths?: string[] | null;
  decision: "allow" | "ask" | "deny";
  sandbox?: SandboxPolicy | null;
  /** The domains an allow rule grants its program shape (only when it grants some). */
  network?: string[];
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

/** The `foehn explain` object (policy/rules/explain.py). */
export interface Explanation {
  decision: "allow" | "ask" | "deny";
  rule: ExplainedRule | null;
  /** FILE:LINE of the rule or hook that decided, else `table` (the risk was assessed from the
   * arguments) or `default` (the tool's declared risk). */
  source: string;
  risk: Risk | string;
  sandbox?: SandboxPolicy | null;
  /** The domains the call would reach if it ran, each with where it is granted. */
  network?: { domain: string; source: string }[];
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

/** foehn.chat.status: the provider the server will use and whether it can. */
export interface ProviderStatus {
  provider: string;
  model: string;
  embedded: boolean;
  needsKey: boolean;
  /** An OpenAI-compatible server with no key: requests go without Authorization. */
  keyless?: boolean;
  /** No provider is chosen and the offline model is not installed. */
  noModel?: boolean;
  error?: string | null;
}

/** foehn.tools: the tools the model can call, and where the audit log is. */
export interface ToolCatalogue {
  tools: { name: string; risk: string; risk_per_call?: boolean; description: string; parameters?: unknown }[];
  problems: { plugin: string; problems: string[] }[];
  auditLog: string | null;
}

export interface SessionSummary {
  id: string;
  title: string;
  updated: number;
  turns: number;
}

export interface SavedTurn {
  index: number;
  task: string;
  reason: StopReason;
  answer: string;
  iterations: number;
  files: ChangedFile[];
  /** Turns undone by this one, if it was an undo. */
  undoOf?: number[];
  /** For an undo of some files only: those files (their turns' other changes stay). */
  paths?: string[];
}

/** A message of the conversation as the server saves it (providers/messages.py). */
export type SavedMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string; tool_calls?: { id: string; name: string; arguments: string }[] }
  | { role: "tool"; call_id: string; name: string; content: string; is_error?: boolean };

export interface SavedSession {
  id: string;
  title: string;
  turns: SavedTurn[];
  messages?: SavedMessage[];
  meter?: { used: number; window?: number | null; cost?: number | null };
}

/** What an undo did (the session's RestoreReport). */
export interface UndoReport {
  applied: boolean;
  /** The turns whose changes were put back. */
  undone: number[];
  /** The undo's own turn (undo it to redo), when it changed files. */
  turn?: number | null;
  /** For a redo: the turns it brought back. */
  redone: number[];
  restored: string[];
  /** Files changed by someone else since: the undo refused them unless forced. */
  conflicts: string[];
  /** Files a program changed whose previous content Foehn never had. */
  unrestorable: string[];
  reason: string;
}

/** foehn.session.undo's argument: turns from `toTurn` on (none: the last one), a redo, or (with
 * `paths`) only those workspace-relative files, back as they were before turn `toTurn` (none:
 * the latest turn in effect). */
export interface UndoArguments {
  sessionId: string;
  toTurn?: number;
  paths?: string[];
  redo?: boolean;
  force?: boolean;
}

/** A file as it was before a turn, from the turn's checkpoint. */
export interface FileBefore {
  /** null: the file did not exist (or is binary, or lost). */
  before: string | null;
  lost: boolean;
  binary: boolean;
}

/** foehn.session.compact's answer. */
export interface Compaction {
  compacted: boolean;
  note: string;
  used: number;
  window: number | null;
  cost: number | null;
}

/** A file of a trusted workspace waiting for the person's approval (foehn.trust.list). */
export interface TrustEntry {
  path: string;
  kind: "plugin" | "mcp_servers" | "rules" | "command" | "system_prompt";
  status: "new" | "changed" | "refused";
  sha256: string | null;
  approvedSha256: string | null;
  approvedAt: string | null;
  reason: string | null;
  before: string | null;
  after: string | null;
  diff: string | null;
}

export interface TrustApproval {
  path: string;
  sha256: string;
  approvedAt: string;
}

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface LspLocation {
  uri: string;
  range: LspRange;
}

/** foehn/definition and foehn/references. */
export interface PositionParams {
  runId: string;
  uri: string;
  position: LspPosition;
}

export interface SymbolsParams {
  runId: string;
  query: string;
}

export interface RenameParams extends PositionParams {
  newName: string;
}

export interface LocationsAnswer {
  locations: LspLocation[];
}

export interface SymbolsAnswer {
  symbols: { name: string; kind: number; containerName?: string; location: LspLocation }[];
}

export interface RenameAnswer {
  edit: { changes: Record<string, { range: LspRange; newText: string }[]> } | null;
}

export interface DiagnosticsParams {
  runId: string;
  uris: string[];
}

/** LSP's Diagnostic: 0-based range, severity 1 (error) to 4 (hint). */
export interface LspDiagnostic {
  range: LspRange;
  message: string;
  severity?: 1 | 2 | 3 | 4;
  source?: string;
  code?: string | number;
}

export interface DiagnosticsAnswer {
  files: { uri: string; diagnostics: LspDiagnostic[] }[];
}

/** One field of an MCP server's question (foehn/elicit). */
export interface ElicitField {
  name: string;
  title: string;
  description?: string;
  kind: "string" | "number" | "integer" | "boolean" | "choice" | "choices";
  required: boolean;
  default?: unknown;
  /** For choice and choices. */
  options?: { value: string; label: string }[];
  /** For string: email, uri, date or date-time. */
  format?: string;
  /** Least and most: value (numbers), length (text) or number of choices. */
  minimum?: number;
  maximum?: number;
}

/** An MCP server's question during a call, named as that server's; ``url``: a page it asks
 * the person to open (no fields). ``schema`` is the same form as MCP's JSON Schema. */
export interface ElicitParams {
  runId: string;
  server: string;
  tool: string | null;
  message: string;
  url: string | null;
  fields: ElicitField[];
  schema: unknown;
}

/** What the person did; content (by field name) only with accept. */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** An MCP server's state in foehn.mcp.list; expiresAt in seconds since the epoch. */
export interface McpServerState {
  name: string;
  transport: "stdio" | "http";
  state: "stopped" | "starting" | "signing-in" | "running" | "failed";
  error: string | null;
  signsIn: boolean;
  signedIn: boolean;
  expiresAt: number | null;
}

/** The commands the server answers (server/foehn_lsp/lsp/): name, arguments, result. */
export const COMMANDS = {
  run: command<[RunArguments | Omit<RunArguments, "sessionId">], RunResult>("foehn.run"),
  /** No runId: every run. */
  cancel: command<[] | [string], { cancelled: boolean }>("foehn.cancel"),
  tools: command<[], ToolCatalogue>("foehn.tools"),
  status: command<[], ProviderStatus>("foehn.chat.status"),
  files: command<[], { files: string[]; truncated?: boolean }>("foehn.chat.files"),
  fileBefore: command<[{ session: string; turn: number; path: string }], FileBefore>("foehn.chat.fileDiff"),
  explain: command<[{ tool: string; arguments: unknown }], Explanation>("foehn.explain"),
  rulesList: command<[], RulesList>("foehn.rules.list"),
  rulesAdd: command<[{ rule: Omit<Rule, "source"> }], { rule: Rule }>("foehn.rules.add"),
  rulesRemove: command<[{ number: number }], { removed: Rule }>("foehn.rules.remove"),
  commandsList: command<[], { commands: CustomCommand[]; problems: string[] }>("foehn.commands.list"),
  create: command<[{ title?: string }], { sessionId: string; title: string }>("foehn.session.new"),
  prompt: command<[RunArguments], RunResult>("foehn.session.prompt"),
  list: command<[], { sessions: SessionSummary[]; problems: string[] }>("foehn.session.list"),
  load: command<[string], SavedSession>("foehn.session.load"),
  show: command<[string], SavedSession>("foehn.session.show"),
  rename: command<[string, string], { sessionId: string; title: string }>("foehn.session.rename"),
  undo: command<[UndoArguments], UndoReport & { sessionId: string }>("foehn.session.undo"),
  compact: command<[string], Compaction>("foehn.session.compact"),
  remove: command<[string], { deleted: string }>("foehn.session.delete"),
  trustList: command<
    [],
    { workspace: string; trusted: boolean; store: string; problem: string | null; waiting: TrustEntry[]; approved: TrustApproval[] }
  >("foehn.trust.list"),
  trustApprove: command<{ path: string; sha256: string }[], { approved: TrustApproval[]; refused: { path: string; reason: string }[] }>(
    "foehn.trust.approve",
  ),
  mcpList: command<[], { servers: McpServerState[] }>("foehn.mcp.list"),
  /** Signs in again (the page shown through foehn/mcpSignIn) and starts the server. */
  mcpSignIn: command<[string], { message: string }>("foehn.mcp.signIn"),
  mcpSignOut: command<[string], { forgotten: boolean }>("foehn.mcp.signOut"),
} as const;

/** The requests the server sends the editor (each opted into by an initializationOption). */
export const REQUESTS = {
  confirm: request<ConfirmParams, ConfirmAnswer>("foehn/confirm"),
  diagnostics: request<DiagnosticsParams, DiagnosticsAnswer>("foehn/diagnostics"),
  definition: request<PositionParams, LocationsAnswer>("foehn/definition"),
  references: request<PositionParams, LocationsAnswer>("foehn/references"),
  workspaceSymbols: request<SymbolsParams, SymbolsAnswer>("foehn/workspaceSymbols"),
  rename: request<RenameParams, RenameAnswer>("foehn/rename"),
  /** initializationOptions.elicitation. */
  elicit: request<ElicitParams, ElicitAnswer>("foehn/elicit"),
  /** initializationOptions.mcpSignIn: show the page (after asking), then {opened: true}. */
  mcpSignIn: request<{ server: string; url: string }, { opened: boolean }>("foehn/mcpSignIn"),
  /** initializationOptions.secretStorage: the extension's SecretStorage. */
  secretsGet: request<{ key: string }, { value: string | null }>("foehn/secretsGet"),
  secretsStore: request<{ key: string; value: string }, Record<string, never>>("foehn/secretsStore"),
  secretsDelete: request<{ key: string }, Record<string, never>>("foehn/secretsDelete"),
} as const;

/** The notifications the server sends the editor. */
export const NOTIFICATIONS = {
  /** Params: a RunEventMessage, read with parseRunEvent (a newer server's event is skipped). */
  runEvent: notification<unknown>("foehn/runEvent"),
  /** Files of a trusted workspace wait for approval (this extension leaves it to the server's
   * own message). */
  trustWaiting: notification<{ workspace: string; waiting: TrustEntry[] }>("foehn/trustWaiting"),
} as const;
