// The commands the person runs (palette, editor menu, lightbulb, status banners), one table:
// each one that asks something lands in the chat view, where the turn is shown.
import * as fs from "node:fs";
import * as vscode from "vscode";
import { type ContextChips, linesLabel } from "./chat/context";
import type { Conversation, TaskContext } from "./conversation";
import { type KeyProvider, isKeyProvider, keyStates, providerItems, secretName } from "./keys";
import type { Server } from "./server";
import { COMMANDS } from "./protocol";
import { describeSession } from "./savedSessions";
import type { ChatView } from "./chatView";
import { showMcpServers, signIn, signOut } from "./mcpAccounts";
import { useOfflineModel } from "./offlineModel";
import { RULES_COMMAND, showRules } from "./rulesPicker";
import type { ServerSetup } from "./serverSetup";
import type { WalkthroughProgress } from "./walkthrough";

export const DEMO_TASK = "List the files in this workspace and tell me, in three sentences, what it is for.";

export interface Parts {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  server: Server;
  setup: ServerSetup;
  conversation: Conversation;
  view: ChatView;
  chips: ContextChips;
  walkthrough: WalkthroughProgress;
  /** The context for a question typed now: the chips still offered, the mentioned files. */
  taskContext: (text: string) => Promise<TaskContext>;
}

/** Runs a question in the chat: shows the view, then the turn streams there. */
export async function askInChat(parts: Pick<Parts, "view" | "conversation">, task: string, context: TaskContext): Promise<void> {
  await parts.view.reveal(false);
  await parts.conversation.ask(task, context);
}

/** The editor's file and selection as a question's context. */
function editorContext(withSelection: boolean): TaskContext {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== "file") {
    return { labels: [] };
  }
  const path = vscode.workspace.asRelativePath(editor.document.uri, false);
  const selection = editor.selection;
  const range =
    withSelection && !selection.isEmpty
      ? {
          start: { line: selection.start.line, character: selection.start.character },
          end: { line: selection.end.line, character: selection.end.character },
        }
      : undefined;
  const labels = range ? [path, linesLabel(path, range)] : [path];
  return { uri: editor.document.uri.toString(), ...(range ? { range } : {}), labels };
}

const EXPLAIN = "Explain what the selected code does, briefly.";

/** Every command package.json contributes, by id: what it does, given the extension's parts
 * (as rust-analyzer's ctx.ts registers its commands from one table of factories). */
const COMMAND_TABLE: Record<string, (parts: Parts) => (...args: never[]) => unknown> = {
  "foehn.ask": (parts) => async (task?: string) => {
    const question =
      typeof task === "string"
        ? task
        : await vscode.window.showInputBox({
            title: "Foehn: Ask…",
            prompt: "What should Foehn do? The answer appears in the Foehn chat, with the active file and selection as context.",
            ignoreFocusOut: true,
          });
    if (question?.trim()) {
      await askInChat(parts, question.trim(), await parts.taskContext(question));
    }
  },
  "foehn.askAboutSelection": (parts) => async () => {
    const question = await vscode.window.showInputBox({
      title: "Ask Foehn",
      prompt: "Ask about the selection (empty: explain it)",
      ignoreFocusOut: true,
    });
    if (question !== undefined) {
      await askInChat(parts, question.trim() || EXPLAIN, editorContext(true));
    }
  },
  "foehn.explainSelection": (parts) => () => askInChat(parts, EXPLAIN, editorContext(true)),
  "foehn.focusChat": (parts) => () => parts.view.reveal(true),
  "foehn.newChat": (parts) => () => parts.conversation.newChat(),
  "foehn.history": (parts) => () => pickSession(parts.server, parts.conversation),
  "foehn.cancelRun": (parts) => () => parts.conversation.stop(),
  "foehn.tryDemo": (parts) => () => askInChat(parts, DEMO_TASK, { labels: [] }),
  "foehn.openWalkthrough": (parts) => () => parts.walkthrough.open(),
  "foehn.setApiKey": (parts) => async (provider?: string) => {
    const { context, server } = parts;
    const chosen = isKeyProvider(provider ?? "") ? (provider as KeyProvider) : await pickKeyProvider(server, context.secrets);
    if (!chosen) {
      return;
    }
    const key = await vscode.window.showInputBox({
      title: `Foehn: API key for ${chosen}`,
      prompt: "Kept in VS Code's secret storage and given to the server in its environment; never written to settings.",
      password: true,
      ignoreFocusOut: true,
    });
    if (key !== undefined) {
      await (key ? context.secrets.store(secretName(chosen), key) : context.secrets.delete(secretName(chosen)));
      await server.restart();
    }
  },
  "foehn.chooseProvider": (parts) => async () => {
    const states = await keyStates(parts.context.secrets, process.env);
    const picked = await vscode.window.showQuickPick(providerItems(currentProvider(parts.server), states), {
      title: "Foehn: Choose a provider",
    });
    if (!picked) {
      return;
    }
    // The provider decides where keys go, so it is a user setting, never a workspace one.
    await vscode.workspace.getConfiguration("foehn").update("provider", picked.label, vscode.ConfigurationTarget.Global);
    if (isKeyProvider(picked.label) && !(await parts.context.secrets.get(secretName(picked.label)))) {
      await vscode.commands.executeCommand("foehn.setApiKey", picked.label);
    }
  },
  "foehn.locateServer": () => async () => {
    const picked = await vscode.window.showOpenDialog({
      title: "Foehn: the foehn executable (in a virtual environment's bin/ or Scripts/)",
      canSelectMany: false,
      openLabel: "Use this server",
    });
    if (picked?.[0]) {
      await vscode.workspace.getConfiguration("foehn").update("serverPath", picked[0].fsPath, vscode.ConfigurationTarget.Global);
    }
  },
  "foehn.pickPython": (parts) => async () => {
    if (await parts.setup.pickPython()) {
      await parts.server.restart();
    }
  },
  "foehn.useOfflineModel": (parts) => () => useOfflineModel(parts.server, parts.setup, parts.output),
  "foehn.showLog": (parts) => () => parts.output.show(),
  "foehn.restartServer": (parts) => () => parts.server.restart(),
  "foehn.showTools": (parts) => async () => {
    const catalogue = await parts.server.send(COMMANDS.tools, []);
    await vscode.window.showQuickPick(
      catalogue.tools.map((t) => ({ label: t.name, description: t.risk, detail: t.description })),
      { title: "Foehn: tools the model can call" },
    );
  },
  "foehn.showAuditLog": (parts) => async () => {
    const catalogue = await parts.server.send(COMMANDS.tools, []);
    if (catalogue.auditLog && fs.existsSync(catalogue.auditLog)) {
      await vscode.window.showTextDocument(vscode.Uri.file(catalogue.auditLog));
    } else {
      void vscode.window.showInformationMessage("Foehn has not logged any tool call in this workspace yet.");
    }
  },
  [RULES_COMMAND]: (parts) => () => showRules(parts.server, parts.output),
  "foehn.mcpServers": (parts) => () => showMcpServers(parts.server),
  "foehn.mcpSignIn": (parts) => (name?: string) => signIn(parts.server, typeof name === "string" ? name : undefined),
  "foehn.mcpSignOut": (parts) => (name?: string) => signOut(parts.server, typeof name === "string" ? name : undefined),
};

export function registerCommands(parts: Parts): vscode.Disposable[] {
  return Object.entries(COMMAND_TABLE).map(([id, make]) => vscode.commands.registerCommand(id, make(parts)));
}

/** The provider the server uses (it may come from the environment), else the setting. */
function currentProvider(server: Server): string {
  const status = server.status;
  if (status.kind === "ready" || status.kind === "noKey") {
    return status.provider;
  }
  return vscode.workspace.getConfiguration("foehn").get<string>("provider", "");
}

async function pickKeyProvider(server: Server, secrets: vscode.SecretStorage): Promise<KeyProvider | undefined> {
  const items = providerItems(currentProvider(server), await keyStates(secrets, process.env), "keyed");
  const picked = await vscode.window.showQuickPick(items, { title: "Foehn: whose API key?" });
  return picked && isKeyProvider(picked.label) ? picked.label : undefined;
}

const RENAME = { iconPath: new vscode.ThemeIcon("edit"), tooltip: "Rename" };
const DELETE = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete" };

/** The workspace's sessions: pick one to resume it; rename or delete with the item's buttons. */
export async function pickSession(server: Server, conversation: Conversation): Promise<void> {
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
  pick.title = "Foehn: chats in this workspace";
  pick.placeholder = "Resume a chat (the buttons rename or delete it)";
  const load = async () => {
    pick.busy = true;
    const { sessions } = await server.send(COMMANDS.list, []);
    const now = Date.now();
    pick.items = sessions.map((s) => ({
      id: s.id,
      label: s.title || "(untitled)",
      description: s.id === conversation.session ? "open now" : "",
      detail: describeSession(s, now),
      buttons: [RENAME, DELETE],
    }));
    pick.busy = false;
  };
  pick.onDidTriggerItemButton(async ({ item, button }) => {
    // The input box or dialog below replaces the picker; it opens again afterwards.
    try {
      if (button === RENAME) {
        const title = await vscode.window.showInputBox({ title: "Rename chat", value: item.label });
        if (title?.trim()) {
          await server.send(COMMANDS.rename, [item.id, title.trim()]);
          if (item.id === conversation.session) {
            await conversation.resume(item.id);
          }
        }
      } else {
        const sure = await vscode.window.showWarningMessage(`Delete the chat "${item.label}"?`, { modal: true }, "Delete");
        if (sure === "Delete") {
          await server.send(COMMANDS.remove, [item.id]);
          if (item.id === conversation.session) {
            conversation.newChat();
          }
        }
      }
      await pickSession(server, conversation);
    } catch (error) {
      void vscode.window.showErrorMessage(`Foehn: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    pick.hide();
    if (chosen) {
      await conversation.resume(chosen.id);
    }
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
  try {
    await load();
  } catch (error) {
    pick.hide();
    void vscode.window.showErrorMessage(`Foehn: cannot list chats: ${error instanceof Error ? error.message : String(error)}`);
  }
}
