// The session shown in the chat view: asks a turn with an id this side chooses (so its events
// and confirmations are known from the first one), applies the events to the turn, and asks the
// person inline (or in a modal), both about calls and the MCP servers' questions during them.
// review.ts undoes and restores what turns changed.
import * as vscode from "vscode";
import type { FailureKind } from "./chat/errors";
import type { HostMessage } from "./chat/messages";
import {
  type Meter,
  type QueuedMessage,
  type Turn,
  answered,
  applyEvent,
  askInline,
  askQuestion,
  questionAnswered,
  failed,
  meterFrom,
  newTurn,
  withUndone,
} from "./chat/state";
import { confirmMessage, decisionFor, inlineAnswer, surfaceFor } from "./chat/confirm";
import { contentOf, webPage } from "./chat/elicit";
import { askInWindow } from "./elicitWindow";
import type { DiffDocuments } from "./diffs";
import {
  type ConfirmAnswer,
  type ConfirmParams,
  type ElicitAnswer,
  type ElicitParams,
  type RunArguments,
  type RunResult,
  COMMANDS,
  isCancellation,
  parseRunEvent,
} from "./protocol";
import type { Server } from "./server";
import { turnsOf, undoneTurns } from "./savedSessions";

/** The chat view as the conversation sees it. */
export interface ChatPort {
  post(message: HostMessage): void;
  /** Shows the chat view; `focus` moves the keyboard to its input. */
  reveal(focus: boolean): Promise<void>;
  readonly visible: boolean;
}

/** What the editor adds to a task: the file, the selection, a diagnostic, mentioned files. */
export interface TaskContext {
  uri?: string;
  range?: RunArguments["range"];
  diagnostic?: unknown;
  context?: string;
  /** The chips' labels, shown with the task. */
  labels: string[];
  /** `plan`: only read-only calls run, and the turn ends with a plan to approve. */
  mode?: "plan";
}

interface Question {
  runId: string;
  params: ConfirmParams;
  resolve: (answer: ConfirmAnswer) => void;
}

/** An MCP server's question waiting on a card. */
interface Asked {
  runId: string;
  params: ElicitParams;
  resolve: (answer: ElicitAnswer) => void;
}

const STREAM_INTERVAL_MS = 40;
/** workspaceState key: the session the chat showed last, opened again after a reload. */
const LAST_SESSION = "foehn.lastSession";

/** Where the chat remembers its last session (context.workspaceState). */
export interface Memory {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export class Conversation implements vscode.Disposable {
  private current: string | undefined;
  title = "New chat";
  turns: Turn[] = [];
  meter: Meter | undefined;
  /** The turns the session's undo turns undid, as last synced. */
  private undoneBySession = new Set<number>();
  /** Each turn's context, to ask it again (Retry). */
  private readonly contexts = new Map<string, TaskContext>();
  /** Runs in flight, by the id this side chose; removed when the run's request settles. */
  private readonly runs = new Map<string, vscode.CancellationTokenSource>();
  private readonly questions = new Map<string, Question>();
  private readonly asking = new Map<string, Asked>();
  /** What files were before a run touched them, from the diffs the person approved. */
  private readonly before = new Map<string, Map<string, string | null>>();
  private readonly scheduled = new Map<string, ReturnType<typeof setTimeout>>();
  private asked = 0;
  /** Messages sent while a turn worked, asked in order when it ends. */
  private queue: (QueuedMessage & { context: TaskContext })[] = [];
  private queuedCount = 0;
  private readonly busyChanged = new vscode.EventEmitter<boolean>();
  readonly onBusy = this.busyChanged.event;

  constructor(
    private readonly server: Server,
    private readonly port: ChatPort,
    private readonly diffs: DiffDocuments,
    private readonly output: vscode.LogOutputChannel,
    private readonly memory: Memory,
  ) {}

  /** The session shown, remembered for the next window of this workspace. */
  get session(): string | undefined {
    return this.current;
  }

  set session(id: string | undefined) {
    if (id !== this.current) {
      this.current = id;
      void this.memory.update(LAST_SESSION, id);
    }
  }

  /** After a reload: the chat shows the session it showed before, if it still exists. */
  async reopen(): Promise<void> {
    const last = this.memory.get<string>(LAST_SESSION);
    if (!last || this.current || this.turns.length) {
      return;
    }
    try {
      await this.resume(last);
    } catch (error) {
      // Kept: the server may only be missing for now.
      this.output.info(`the last chat (${last}) did not open again: ${String(error)}`);
    }
  }

  get busy(): boolean {
    return this.runs.size > 0;
  }

  snapshot(): HostMessage {
    return { type: "reset", session: this.session, title: this.title, turns: this.turns, meter: this.meter };
  }

  /** One turn: shown in the chat as it streams; resolves when the run ends. Asked while a turn
   * works, it is queued (shown as queued, removable) and asked when that turn ends. */
  async ask(task: string, context: TaskContext): Promise<RunResult | undefined> {
    if (this.busy) {
      this.queue.push({ id: `queued-${++this.queuedCount}`, text: task, plan: context.mode === "plan", context });
      this.postQueue();
      return undefined;
    }
    const runId = newRunId();
    const source = new vscode.CancellationTokenSource();
    this.runs.set(runId, source);
    this.contexts.set(runId, context);
    this.turns.push({ ...newTurn(runId, task, context.labels), ...(context.mode ? { plan: true } : {}) });
    if (this.turns.length === 1) {
      this.title = task.split("\n")[0]!.slice(0, 60);
      this.port.post(this.snapshot());
    } else {
      this.post(runId);
    }
    this.port.post({ type: "busy", busy: true });
    this.busyChanged.fire(true);
    const base = {
      task,
      runId,
      ...(context.uri ? { uri: context.uri } : {}),
      ...(context.range ? { range: context.range } : {}),
      ...(context.diagnostic ? { diagnostic: context.diagnostic } : {}),
      ...(context.context ? { context: context.context } : {}),
      ...(context.mode ? { mode: context.mode } : {}),
    };
    try {
      const sessionId = this.session ?? (await this.server.send(COMMANDS.create, [{ title: this.title }])).sessionId;
      this.session = sessionId;
      const argument: RunArguments = { ...base, sessionId };
      const result = await this.server.send(COMMANDS.prompt, [argument], source.token);
      this.update(runId, (turn) => {
        const finished =
          turn.status === "done"
            ? turn
            : applyEvent(turn, {
                event: "done",
                reason: result.stopReason,
                answer: result.answer,
                iterations: result.iterations,
                ...(result.error ? { error: result.error } : {}),
              });
        return { ...finished, index: finished.index ?? result.turn };
      });
      return result;
    } catch (error) {
      this.update(runId, (turn) =>
        isCancellation(error)
          ? applyEvent(turn, { event: "done", reason: "cancelled", answer: "", iterations: turn.iterations ?? 0 })
          : failed(turn, { kind: failureKind(error), message: error instanceof Error ? error.message : String(error) }),
      );
      return undefined;
    } finally {
      this.runs.delete(runId);
      source.dispose();
      for (const [key, question] of this.questions) {
        if (question.runId === runId) {
          this.settle(key, { decision: "deny", reason: "the run ended" });
        }
      }
      for (const [key, asked] of this.asking) {
        if (asked.runId === runId) {
          this.settleQuestion(key, { action: "cancel" });
        }
      }
      this.flush(runId);
      this.port.post({ type: "busy", busy: false });
      this.busyChanged.fire(false);
      void this.diffs.release(runId);
      for (const turn of this.turns.filter((t) => t.notice)) {
        this.update(turn.runId, (t) => ({ ...t, notice: undefined }));
      }
      void this.askQueued();
    }
  }

  /** Takes a queued message back before it is sent. */
  unqueue(id: string): void {
    this.queue = this.queue.filter((message) => message.id !== id);
    this.postQueue();
  }

  /** Whether a turn is working, so that `action` on the turn `runId` must wait: if so, the turn
   * says why (until the working turn ends) instead of the action doing nothing. */
  waitsForTurn(runId: string | undefined, action: string): boolean {
    if (!this.busy) {
      return false;
    }
    const notice = `${action} waits until the turn that is working ends: stop it, or wait.`;
    const turn = this.turns.find((t) => t.runId === runId) ?? this.turns[this.turns.length - 1];
    if (turn) {
      this.update(turn.runId, (t) => ({ ...t, notice }));
    } else {
      void vscode.window.showInformationMessage(`Foehn: ${notice}`);
    }
    return true;
  }

  /** Shows the queue (the view asks for everything again when it reloads). */
  postQueue(): void {
    this.port.post({ type: "queued", queued: this.queue.map(({ id, text, plan }) => ({ id, text, plan })) });
  }

  private async askQueued(): Promise<void> {
    const next = this.queue.shift();
    if (next) {
      this.postQueue();
      await this.ask(next.text, next.context);
    }
  }

  /** Asks a turn's question again, with the context it had. */
  async retry(runId: string): Promise<void> {
    const turn = this.turns.find((t) => t.runId === runId);
    if (turn) {
      await this.ask(turn.task, this.contexts.get(runId) ?? { labels: turn.context });
    }
  }

  /** After an undo, a restore or a redo: which turns are undone, as the saved session's undo
   * turns say (undoneTurns), drawn on the turns shown. */
  async syncUndone(): Promise<void> {
    if (!this.session) {
      return;
    }
    const saved = await this.server.send(COMMANDS.load, [this.session]);
    const undone = undoneTurns(saved.turns);
    for (const turn of this.turns) {
      const index = turn.index;
      if (index === undefined) {
        continue;
      }
      // A turn whose files were all undone one by one is undone here, not in the session: only
      // what the session undid is taken back by a redo.
      if (undone.has(index) && !turn.undone) {
        this.update(turn.runId, (t) => withUndone(t, true));
      } else if (!undone.has(index) && this.undoneBySession.has(index)) {
        this.update(turn.runId, (t) => withUndone(t, false));
      }
    }
    this.undoneBySession = undone;
  }

  /** A foehn/runEvent notification. Events of runs this chat did not start are not drawn. */
  onEvent(raw: unknown): void {
    const event = parseRunEvent(raw);
    if (!event) {
      this.output.debug(`skipped an event of an unknown shape: ${JSON.stringify(raw)}`);
      return;
    }
    if (!this.runs.has(event.runId)) {
      return;
    }
    if (event.event === "usage") {
      this.meter = meterFrom(this.meter, event);
      this.port.post({ type: "meter", meter: this.meter });
      return;
    }
    if (event.event === "turn") {
      this.session = event.session;
    }
    this.update(event.runId, (turn) => applyEvent(turn, event), event.event === "text");
  }

  /** foehn/confirm: inline in the chat when it can be, else (and for `full` rights) a modal. */
  async confirm(params: ConfirmParams, token: vscode.CancellationToken): Promise<ConfirmAnswer> {
    const key = `${params.runId}/${++this.asked}`;
    this.remember(params);
    const preference = vscode.workspace.getConfiguration("foehn").get<string>("approval.prompt", "inline");
    if (surfaceFor(params, preference, this.runs.has(params.runId)) === "modal") {
      return this.confirmInModal(key, params);
    }
    return new Promise<ConfirmAnswer>((resolve) => {
      this.questions.set(key, { runId: params.runId, params, resolve });
      this.update(params.runId, (turn) => askInline(turn, key, params, params.callId));
      void this.port.reveal(false);
      token.onCancellationRequested(() => this.settle(key, { decision: "deny", reason: "no answer in time" }));
    });
  }

  /** foehn/elicit: an MCP server's question, on the card of the call that runs when the chat
   * shows the run (and the person has not chosen modals), else in VS Code's own inputs. No answer
   * before the server gives up (the token) is a cancel. */
  async elicit(params: ElicitParams, token: vscode.CancellationToken): Promise<ElicitAnswer> {
    const preference = vscode.workspace.getConfiguration("foehn").get<string>("approval.prompt", "inline");
    if (preference === "modal" || !this.runs.has(params.runId)) {
      return askInWindow(params, token);
    }
    const key = `${params.runId}/q${++this.asked}`;
    return new Promise<ElicitAnswer>((resolve) => {
      this.asking.set(key, { runId: params.runId, params, resolve });
      this.update(params.runId, (turn) => askQuestion(turn, key, params));
      void this.port.reveal(false);
      token.onCancellationRequested(() => this.settleQuestion(key, { action: "cancel" }));
    });
  }

  /** The person's answer to a server's question on a card: an accepted form is sent only when
   * every field fits (else the card says which does not, and stays); an accepted page is opened
   * first. */
  async answerQuestion(key: string, action: ElicitAnswer["action"], given: Record<string, unknown> = {}): Promise<void> {
    const asked = this.asking.get(key);
    if (!asked) {
      return;
    }
    if (action !== "accept") {
      this.settleQuestion(key, { action });
      return;
    }
    const page = asked.params.url ? webPage(asked.params.url) : undefined;
    if (asked.params.url) {
      const opened = page !== undefined && (await vscode.env.openExternal(vscode.Uri.parse(page.toString())));
      if (!opened) {
        this.update(asked.runId, (turn) => questionAnswered(turn, key, { error: "VS Code did not open the page." }));
        return;
      }
      this.settleQuestion(key, { action: "accept" });
      return;
    }
    const checked = contentOf(asked.params.fields, given);
    if ("error" in checked) {
      this.update(asked.runId, (turn) => questionAnswered(turn, key, { error: checked.error }));
      return;
    }
    this.settleQuestion(key, { action: "accept", content: checked.content });
  }

  private settleQuestion(key: string, answer: ElicitAnswer): void {
    const asked = this.asking.get(key);
    if (!asked) {
      return;
    }
    this.asking.delete(key);
    asked.resolve(answer);
    this.update(asked.runId, (turn) => questionAnswered(turn, key, { answer: answer.action }));
  }

  /** The person's answer to an inline card. */
  answer(key: string, decision: ConfirmAnswer["decision"], message?: string): void {
    this.settle(key, inlineAnswer(decision, message));
  }

  private settle(key: string, answer: ConfirmAnswer): void {
    const question = this.questions.get(key);
    if (!question) {
      return;
    }
    this.questions.delete(key);
    question.resolve(answer);
    this.update(question.runId, (turn) => answered(turn, key, answer.decision));
    void this.diffs.release(key);
  }

  private async confirmInModal(key: string, params: ConfirmParams): Promise<ConfirmAnswer> {
    await this.showProposal(key, params, true);
    const { message, detail, choices } = confirmMessage(params);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices);
    await this.diffs.release(key);
    return decisionFor(choice);
  }

  /** Opens the proposed change of a pending question as a diff in the editor. */
  async openProposal(key: string): Promise<void> {
    const question = this.questions.get(key);
    if (question) {
      await this.showProposal(key, question.params, false);
    }
  }

  private async showProposal(key: string, params: ConfirmParams, beside: boolean): Promise<void> {
    for (const file of params.preview?.files ?? []) {
      const name = vscode.workspace.asRelativePath(vscode.Uri.parse(file.uri), false);
      const before = this.diffs.uri(key, "before", name);
      const after = this.diffs.uri(key, "after", name);
      this.diffs.set(before, file.before ?? "");
      this.diffs.set(after, file.after);
      await vscode.commands.executeCommand("vscode.diff", before, after, `Foehn: proposed change to ${name}`, {
        viewColumn: vscode.ViewColumn.One,
        preview: !beside,
        preserveFocus: beside,
      });
    }
  }

  private remember(params: ConfirmParams): void {
    const known = this.before.get(params.runId) ?? new Map<string, string | null>();
    for (const file of params.preview?.files ?? []) {
      const path = vscode.workspace.asRelativePath(vscode.Uri.parse(file.uri), false);
      if (!known.has(path)) {
        known.set(path, file.before);
      }
    }
    this.before.set(params.runId, known);
  }

  async stop(): Promise<void> {
    for (const runId of this.runs.keys()) {
      await this.server.send(COMMANDS.cancel, [runId]).catch((error: unknown) => {
        this.output.warn(`cancel ${runId}: ${String(error)}`);
        this.runs.get(runId)?.cancel();
      });
    }
  }

  /** A file's text before a run changed it, as the person saw it in an approved diff. */
  seenBefore(runId: string, path: string): string | null | undefined {
    return this.before.get(runId)?.get(path);
  }

  newChat(): void {
    if (this.waitsForTurn(undefined, "A new chat")) {
      return;
    }
    this.session = undefined;
    this.title = "New chat";
    this.turns = [];
    this.undoneBySession.clear();
    this.contexts.clear();
    this.meter = undefined;
    this.before.clear();
    this.port.post(this.snapshot());
  }

  async resume(id: string): Promise<void> {
    if (this.waitsForTurn(undefined, "Opening another chat")) {
      return;
    }
    const saved = await this.server.send(COMMANDS.load, [id]);
    this.session = saved.id;
    this.title = saved.title;
    this.turns = turnsOf(saved);
    this.undoneBySession = undoneTurns(saved.turns);
    this.contexts.clear();
    this.meter = saved.meter ? { used: saved.meter.used, window: saved.meter.window ?? undefined, cost: saved.meter.cost ?? undefined } : undefined;
    this.before.clear();
    this.port.post(this.snapshot());
  }

  /** Changes a turn and shows it (streamed text is shown at most every STREAM_INTERVAL_MS). */
  update(runId: string, change: (turn: Turn) => Turn, streaming = false): void {
    const index = this.turns.findIndex((t) => t.runId === runId);
    if (index < 0) {
      return;
    }
    this.turns[index] = change(this.turns[index]!);
    if (streaming) {
      if (!this.scheduled.has(runId)) {
        this.scheduled.set(runId, setTimeout(() => this.flush(runId), STREAM_INTERVAL_MS));
      }
    } else {
      this.flush(runId);
    }
  }

  private flush(runId: string): void {
    clearTimeout(this.scheduled.get(runId));
    this.scheduled.delete(runId);
    this.post(runId);
  }

  private post(runId: string): void {
    const turn = this.turns.find((t) => t.runId === runId);
    if (turn) {
      this.port.post({ type: "turn", turn });
    }
  }

  dispose(): void {
    this.busyChanged.dispose();
    for (const timer of this.scheduled.values()) {
      clearTimeout(timer);
    }
    for (const key of [...this.questions.keys()]) {
      this.settle(key, { decision: "deny", reason: "VS Code closed the chat" });
    }
    for (const key of [...this.asking.keys()]) {
      this.settleQuestion(key, { action: "cancel" });
    }
    for (const source of this.runs.values()) {
      source.cancel();
    }
  }
}

/** A request that never reached a running server is the server's failure; one the server
 * refused (a JSON-RPC error with a code) is Foehn's own. */
function failureKind(error: unknown): FailureKind {
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "number" ? "internal" : "server";
}

function newRunId(): string {
  return `vsc-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
