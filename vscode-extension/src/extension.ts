// The Foehn extension: starts `foehn serve` (server.ts) and puts the conversation in a chat
// view (chatView.ts, conversation.ts). activate only wires the parts together.
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { ContextChips } from "./chat/context";
import { ChatView, VIEW_ID } from "./chatView";
import { registerCommands } from "./commands";
import { Conversation } from "./conversation";
import { DIAGNOSTICS } from "./diagnostics";
import { DIFF_SCHEME, DiffDocuments } from "./diffs";
import { answerDiagnostics } from "./editorDiagnostics";
import { answerLanguageRequests } from "./editorLanguageTools";
import { withEditSync } from "./editSync";
import { Mentions, SlashCommands, lightbulbContext, postRecent, routeViewMessage, shownStatus, trackEditor } from "./wiring";
import { CONFIRM, type ConfirmParams, RUN_EVENT } from "./protocol";
import { Review } from "./review";
import { registerRulesCommand } from "./rulesPicker";
import { Server } from "./server";
import { withUserLevel } from "./settings";
import { StatusItem } from "./statusItem";
import { WalkthroughProgress, stepsDone } from "./walkthrough";
import { COMMANDS, type SessionSummary } from "./savedSessions";

let server: Server | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Foehn", { log: true });
  const diffs = new DiffDocuments();
  const view = new ChatView(context.extensionUri);
  const chips = new ContextChips();
  // Lightbulb actions call foehn.run; they are asked in the chat so their answer shows there.
  const middleware: Middleware = {
    executeCommand: async (command, args, next) =>
      command === "foehn.run" && typeof args[0] === "object" ? lightbulb(args[0] as Record<string, unknown>) : next(command, args),
  };
  server = new Server(
    output,
    context.secrets,
    withEditSync(withUserLevel(middleware, () => vscode.workspace.getConfiguration("foehn"), () => vscode.workspace.isTrusted)),
  );
  const conversation = new Conversation(server, view, diffs, output, context.workspaceState);
  const review = new Review(conversation, server, diffs);
  const mentions = new Mentions(server);
  const slash = new SlashCommands(server, output);
  const taskContext = (text: string) => mentions.context(text, chips);
  const walkthrough = new WalkthroughProgress(output);
  const parts = { context, server, conversation, view, chips, taskContext, walkthrough };
  const lightbulb = async (argument: Record<string, unknown>) => {
    await view.reveal(false);
    return conversation.ask(String(argument["task"] ?? ""), lightbulbContext(argument));
  };

  context.subscriptions.push(
    output,
    diffs,
    view,
    conversation,
    server,
    new StatusItem(server, conversation),
    vscode.window.registerWebviewViewProvider(VIEW_ID, view),
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, diffs),
    review,
    view.onMessage((message) => routeViewMessage(message, { ...parts, mentions, slash, review, diffs })),
    server.onStatus((status) => {
      view.post({ type: "status", status: shownStatus(status, context.globalState) });
      if (status.kind !== "starting") {
        void postRecent(parts);
      }
      void walkthrough.done(stepsDone(status));
      if (status.kind !== "starting") {
        void anyTurn(server!).then((asked) => (asked ? walkthrough.done(["demo"]) : undefined));
      }
    }),
    conversation.onBusy((busy) => (busy ? undefined : walkthrough.done(["demo"]))),
    server.onClientStarted((client) => {
      client.onRequest(CONFIRM, (params: ConfirmParams, token) => conversation.confirm(params, token));
      client.onRequest(DIAGNOSTICS, answerDiagnostics);
      answerLanguageRequests(client);
      client.onNotification(RUN_EVENT, (event: unknown) => conversation.onEvent(event));
    }),
    ...trackEditor(chips, view),
    ...registerCommands(parts),
    registerRulesCommand(server, output),
    vscode.workspace.onDidGrantWorkspaceTrust(() => server?.restart()),
    context.secrets.onDidChange(() => server?.restart()),
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (["foehn.serverPath", "foehn.pythonPath", "foehn.provider"].some((s) => change.affectsConfiguration(s))) {
        await server?.restart();
      } else if (change.affectsConfiguration("foehn")) {
        await server?.settingsChanged();
      }
    }),
  );
  await server.start();
  // A reload shows the chat the person had open, not a blank one.
  await conversation.reopen();
}

/** Whether the workspace has a chat with a turn (a walkthrough step). */
async function anyTurn(server: Server): Promise<boolean> {
  const listed = await server.command<{ sessions: SessionSummary[] }>(COMMANDS.list, []).catch(() => ({ sessions: [] }));
  return listed.sessions.some((s) => s.turns > 0);
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
}
