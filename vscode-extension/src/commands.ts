// The commands the person runs (palette, editor menu, lightbulb, status banners): each one that
// asks something lands in the chat view, where the turn is shown.
import * as fs from "node:fs";
import * as vscode from "vscode";
import { type ContextChips, linesLabel } from "./chat/context";
import type { Conversation, TaskContext } from "./conversation";
import { KEY_PROVIDERS, type KeyProvider, isKeyProvider, secretName } from "./keys";
import type { Server } from "./server";
import { COMMANDS, type SessionSummary, describeSession } from "./sessions";
import type { ChatView } from "./chatView";

export const WALKTHROUGH = "foehn.foehn#foehn.start";
export const DEMO_TASK = "List the files in this workspace and tell me, in three sentences, what it is for.";

interface Parts {
  context: vscode.ExtensionContext;
  server: Server;
  conversation: Conversation;
  view: ChatView;
  chips: ContextChips;
  /** The context for a question typed now: the chips still offered, the mentioned files. */
  taskContext: (text: string) => Promise<TaskContext>;
}

/** Runs a question in the chat: shows the view, then the turn streams there. */
export async function askInChat(parts: Parts, task: string, context: TaskContext): Promise<void> {
  await parts.view.reveal(false);
  await parts.conversation.ask(task, context);
}

export function registerCommands(parts: Parts): vscode.Disposable[] {
  const { context, server, conversation, view } = parts;
  const editorContext = (withSelection: boolean): TaskContext => {
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
  };
  const command = (id: string, run: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, run);

  return [
    command("foehn.ask", async (task?: string) => {
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
    }),
    command("foehn.askAboutSelection", async () => {
      const question = await vscode.window.showInputBox({
        title: "Ask Foehn",
        prompt: "Ask about the selection (empty: explain it)",
        ignoreFocusOut: true,
      });
      if (question !== undefined) {
        await askInChat(parts, question.trim() || "Explain what the selected code does, briefly.", editorContext(true));
      }
    }),
    command("foehn.explainSelection", () =>
      askInChat(parts, "Explain what the selected code does, briefly.", editorContext(true)),
    ),
    command("foehn.focusChat", () => view.reveal(true)),
    command("foehn.newChat", () => conversation.newChat()),
    command("foehn.history", () => pickSession(server, conversation)),
    command("foehn.cancelRun", () => conversation.stop()),
    command("foehn.tryDemo", () => askInChat(parts, DEMO_TASK, { labels: [] })),
    command("foehn.openWalkthrough", () =>
      vscode.commands.executeCommand("workbench.action.openWalkthrough", WALKTHROUGH, false),
    ),
    command("foehn.setApiKey", async (provider?: string) => {
      const chosen = isKeyProvider(provider ?? "") ? (provider as KeyProvider) : await pickKeyProvider();
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
    }),
    command("foehn.chooseProvider", async () => {
      const picked = await vscode.window.showQuickPick(
        [
          { label: "mistral", detail: "Mistral's hosted models (needs a key)" },
          { label: "openai", detail: "OpenAI or any compatible server: Ollama, vLLM, llama.cpp, LM Studio" },
          { label: "anthropic", detail: "Anthropic's Claude models (needs a key)" },
          { label: "local", detail: "The small embedded model: offline, no key, demo-grade" },
        ],
        { title: "Foehn: Choose a provider" },
      );
      if (!picked) {
        return;
      }
      // The provider decides where keys go, so it is a user setting, never a workspace one.
      await vscode.workspace.getConfiguration("foehn").update("provider", picked.label, vscode.ConfigurationTarget.Global);
      if (isKeyProvider(picked.label) && !(await context.secrets.get(secretName(picked.label)))) {
        await vscode.commands.executeCommand("foehn.setApiKey", picked.label);
      }
    }),
    command("foehn.locateServer", async () => {
      const picked = await vscode.window.showOpenDialog({
        title: "Foehn: the foehn executable (in a virtual environment's bin/ or Scripts/)",
        canSelectMany: false,
        openLabel: "Use this server",
      });
      if (picked?.[0]) {
        await vscode.workspace
          .getConfiguration("foehn")
          .update("serverPath", picked[0].fsPath, vscode.ConfigurationTarget.Global);
      }
    }),
    command("foehn.restartServer", () => server.restart()),
    command("foehn.showTools", async () => {
      const catalogue = await server.command<{ tools: { name: string; risk: string; description: string }[] }>("foehn.tools", []);
      await vscode.window.showQuickPick(
        catalogue.tools.map((t) => ({ label: t.name, description: t.risk, detail: t.description })),
        { title: "Foehn: tools the model can call" },
      );
    }),
    command("foehn.showAuditLog", async () => {
      const catalogue = await server.command<{ auditLog?: string }>("foehn.tools", []);
      if (catalogue.auditLog && fs.existsSync(catalogue.auditLog)) {
        await vscode.window.showTextDocument(vscode.Uri.file(catalogue.auditLog));
      } else {
        void vscode.window.showInformationMessage("Foehn has not logged any tool call in this workspace yet.");
      }
    }),
  ];
}

async function pickKeyProvider(): Promise<KeyProvider | undefined> {
  const configured = vscode.workspace.getConfiguration("foehn").get<string>("provider", "");
  const items = KEY_PROVIDERS.map((p) => ({ label: p, description: p === configured ? "current provider" : "" }));
  items.sort((a, b) => Number(b.label === configured) - Number(a.label === configured));
  const picked = await vscode.window.showQuickPick(items, { title: "Foehn: whose API key?" });
  return picked?.label;
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
    const { sessions } = await server.command<{ sessions: SessionSummary[] }>(COMMANDS.list, []);
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
          await server.command(COMMANDS.rename, [item.id, title.trim()]);
          if (item.id === conversation.session) {
            await conversation.resume(item.id);
          }
        }
      } else {
        const sure = await vscode.window.showWarningMessage(`Delete the chat "${item.label}"?`, { modal: true }, "Delete");
        if (sure === "Delete") {
          await server.command(COMMANDS.remove, [item.id]);
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
