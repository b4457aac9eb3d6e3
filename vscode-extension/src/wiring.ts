// What the chat view's messages do, the editor state its chips follow, and @-mention
// completion (the workspace's files as the server lists them, .gitignore honoured).
import * as vscode from "vscode";
import { applyToFile, runInTerminal } from "./blocks";
import { type ContextChips, linesLabel, mentionContext, mentionsIn, rankFiles } from "./chat/context";
import type { RecentChat, ServerStatus, ViewMessage } from "./chat/messages";
import { rankCommands } from "./chat/rules";
import type { ChatView } from "./chatView";
import { askInChat, pickSession } from "./commands";
import type { Conversation, TaskContext } from "./conversation";
import type { DiffDocuments } from "./diffs";
import type { CustomCommand } from "./protocol";
import type { Review } from "./review";
import type { Server } from "./server";
import { COMMANDS, type SessionSummary, describeSession } from "./savedSessions";
import type { WalkthroughProgress } from "./walkthrough";

const FILES_TTL_MS = 10_000;
const RECENT_CHATS = 5;
/** globalState key: the person has read the "no key, no Authorization" hint. */
const KEYLESS_SEEN = "foehn.keylessHintSeen";

export class Mentions {
  private files: string[] = [];
  private fetched = 0;

  constructor(private readonly server: Server) {}

  /** The workspace's files, from the server (which honours .gitignore), cached briefly. */
  async list(): Promise<string[]> {
    if (Date.now() - this.fetched > FILES_TTL_MS) {
      const answer = await this.server.command<{ files: string[] }>(COMMANDS.files, []);
      this.files = answer.files;
      this.fetched = Date.now();
    }
    return this.files;
  }

  async complete(query: string): Promise<string[]> {
    return rankFiles(await this.list().catch(() => []), query);
  }

  /** A typed question's context: the chips still offered and the text of each @-mentioned
   * file (from its editor if open, so unsaved changes count). */
  async context(text: string, chips: ContextChips): Promise<TaskContext> {
    const base = chips.arguments();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const known = new Set(await this.list().catch(() => []));
    const files: { path: string; text: string }[] = [];
    for (const path of mentionsIn(text)) {
      if (!folder || !known.has(path)) {
        continue;
      }
      try {
        const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, path));
        files.push({ path, text: document.getText() });
      } catch {
        // A file that cannot be opened as text is mentioned by name only.
      }
    }
    return {
      ...base,
      ...(files.length ? { context: mentionContext(files) } : {}),
      labels: [...base.labels, ...files.map((f) => `@${f.path}`)],
    };
  }
}

/** The custom commands `/` completes to (foehn.commands.list), cached briefly. */
export class SlashCommands {
  private commands: CustomCommand[] = [];
  private fetched = 0;

  constructor(
    private readonly server: Server,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  async complete(query: string): Promise<CustomCommand[]> {
    if (Date.now() - this.fetched > FILES_TTL_MS) {
      try {
        const answer = await this.server.command<{ commands: CustomCommand[]; problems: string[] }>("foehn.commands.list", []);
        this.commands = answer.commands;
        this.fetched = Date.now();
        for (const problem of answer.problems) {
          this.output.warn(`custom command: ${problem}`);
        }
      } catch (error) {
        // No server yet: nothing to complete; asked again at the next `/`.
        this.output.debug(`foehn.commands.list: ${String(error)}`);
      }
    }
    return rankCommands(this.commands, query);
  }
}

interface Parts {
  context: vscode.ExtensionContext;
  server: Server;
  conversation: Conversation;
  view: ChatView;
  chips: ContextChips;
  mentions: Mentions;
  slash: SlashCommands;
  review: Review;
  diffs: DiffDocuments;
  walkthrough: WalkthroughProgress;
  taskContext: (text: string) => Promise<TaskContext>;
}

/** The server's status as the chat shows it: the keyless hint only until the person read it. */
export function shownStatus(status: ServerStatus, memory: vscode.Memento): ServerStatus {
  return status.kind === "ready" && status.keyless && memory.get<boolean>(KEYLESS_SEEN) ? { ...status, keyless: false } : status;
}

/** The workspace's chats for the empty chat view: the latest few, not the one open. */
export async function postRecent(parts: Pick<Parts, "server" | "conversation" | "view">): Promise<void> {
  if (parts.conversation.turns.length) {
    return;
  }
  try {
    const { sessions } = await parts.server.command<{ sessions: SessionSummary[] }>(COMMANDS.list, []);
    const now = Date.now();
    const chats: RecentChat[] = sessions
      .filter((s) => s.id !== parts.conversation.session && s.turns > 0)
      .slice(0, RECENT_CHATS)
      .map((s) => ({ id: s.id, title: s.title, detail: describeSession(s, now) }));
    parts.view.post({ type: "recent", chats });
  } catch {
    // No server yet: the empty chat shows no recent chats.
  }
}

export async function routeViewMessage(message: ViewMessage, parts: Parts): Promise<void> {
  const { conversation, view, chips } = parts;
  switch (message.type) {
    case "ready":
      view.post(conversation.snapshot());
      view.post({ type: "status", status: shownStatus(parts.server.status, parts.context.globalState) });
      view.post({ type: "chips", chips: chips.chips() });
      view.post({ type: "busy", busy: conversation.busy });
      await postRecent(parts);
      break;
    case "ask":
      await askInChat(parts, message.text, { ...(await parts.taskContext(message.text)), ...(message.mode ? { mode: message.mode } : {}) });
      break;
    case "stop":
      await conversation.stop();
      break;
    case "approve":
      conversation.answer(message.key, message.decision, message.message);
      break;
    case "openDiff":
      await conversation.openProposal(message.key);
      break;
    case "openFileDiff":
      await parts.review.openFileDiff(message.runId, message.path);
      break;
    case "copy":
      await vscode.env.clipboard.writeText(message.text);
      view.post({ type: "copied", token: message.token });
      break;
    case "insert":
      await insertAtCursor(message.text);
      break;
    case "apply":
      await applyToFile(message.text, message.path, parts.diffs);
      break;
    case "runInTerminal":
      await runInTerminal(message.text);
      break;
    case "retry":
      await parts.view.reveal(false);
      await conversation.retry(message.runId);
      break;
    case "openSettings":
      await vscode.commands.executeCommand("workbench.action.openSettings", message.query);
      break;
    case "resume":
      await conversation.resume(message.session);
      break;
    case "dismissHint":
      await parts.context.globalState.update(KEYLESS_SEEN, true);
      view.post({ type: "status", status: shownStatus(parts.server.status, parts.context.globalState) });
      break;
    case "keep":
      parts.review.keep(message.runId, message.path);
      break;
    case "undo":
      await parts.review.undo(message.runId, message.path);
      break;
    case "restore":
      await parts.review.restore(message.runId);
      break;
    case "newChat":
      conversation.newChat();
      await postRecent(parts);
      break;
    case "history":
      await pickSession(parts.server, conversation);
      break;
    case "removeChip":
      chips.remove(message.id);
      view.post({ type: "chips", chips: chips.chips() });
      break;
    case "mention":
      view.post({ type: "mentions", query: message.query, files: await parts.mentions.complete(message.query) });
      break;
    case "slash":
      view.post({ type: "slashCommands", query: message.query, commands: await parts.slash.complete(message.query) });
      break;
    case "command":
      await vscode.commands.executeCommand(message.command);
      break;
  }
}

async function insertAtCursor(text: string): Promise<void> {
  const editor = vscode.window.visibleTextEditors.find((e) => e === vscode.window.activeTextEditor) ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showInformationMessage("Foehn: open a file to insert the code into.");
    return;
  }
  await editor.edit((edit) => {
    for (const selection of editor.selections) {
      edit.replace(selection, text);
    }
  });
}

/** Keeps the chips on the active file and selection. The chat view itself takes the focus
 * from the editor, so the last file editor stays the context while the person types. */
export function trackEditor(chips: ContextChips, view: ChatView): vscode.Disposable[] {
  const update = (editor: vscode.TextEditor | undefined) => {
    if (!editor) {
      return;
    }
    const document = editor.document;
    const inWorkspace = document.uri.scheme === "file" && vscode.workspace.getWorkspaceFolder(document.uri) !== undefined;
    const selection = editor.selection;
    const changed = chips.track(
      inWorkspace
        ? {
            path: vscode.workspace.asRelativePath(document.uri, false),
            uri: document.uri.toString(),
            ...(selection.isEmpty
              ? {}
              : {
                  selection: {
                    start: { line: selection.start.line, character: selection.start.character },
                    end: { line: selection.end.line, character: selection.end.character },
                  },
                }),
          }
        : {},
    );
    if (changed) {
      view.post({ type: "chips", chips: chips.chips() });
    }
  };
  update(vscode.window.activeTextEditor);
  return [
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.window.onDidChangeTextEditorSelection((event) => update(event.textEditor)),
  ];
}

/** A code action's foehn.run argument as the chat's context, with chips for the file and the
 * lines it is about. */
export function lightbulbContext(argument: Record<string, unknown>): TaskContext {
  const uri = typeof argument["uri"] === "string" ? argument["uri"] : undefined;
  const range = argument["range"] as TaskContext["range"];
  const path = uri ? vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false) : undefined;
  const labels = path ? [path, ...(range ? [linesLabel(path, range)] : [])] : [];
  return {
    ...(uri ? { uri } : {}),
    ...(range ? { range } : {}),
    ...(argument["diagnostic"] ? { diagnostic: argument["diagnostic"] } : {}),
    labels,
  };
}
