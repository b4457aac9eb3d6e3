// What the chat view's messages do: each ViewMessage (already checked by chat/messages.ts) is
// routed to the conversation, the review, the completions or a command; and what the empty chat
// shows besides (the server's status, the recent chats).
import * as vscode from "vscode";
import { applyToFile, runInTerminal } from "./blocks";
import type { ContextChips } from "./chat/context";
import type { RecentChat, ServerStatus, ViewMessage } from "./chat/messages";
import type { ChatView } from "./chatView";
import { askInChat, pickSession } from "./commands";
import type { Mentions, SlashCommands } from "./completions";
import type { Conversation, TaskContext } from "./conversation";
import type { DiffDocuments } from "./diffs";
import { COMMANDS } from "./protocol";
import type { Review } from "./review";
import type { Server } from "./server";
import { describeSession } from "./savedSessions";
import type { WalkthroughProgress } from "./walkthrough";

const RECENT_CHATS = 5;
/** globalState key: the person has read the "no key, no Authorization" hint. */
const KEYLESS_SEEN = "foehn.keylessHintSeen";

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
    const { sessions } = await parts.server.send(COMMANDS.list, []);
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
      conversation.postQueue();
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
    case "elicit":
      await conversation.answerQuestion(message.key, message.answer, message.content);
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
    case "unqueue":
      conversation.unqueue(message.id);
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
