// The Foehn extension: starts Foehn's server (server.ts; from the environment it makes from the
// wheels it carries, serverSetup.ts), puts the conversation in a chat view (chatView.ts,
// conversation.ts) and offers Foehn's tools to every agent in VS Code over MCP (mcp.ts).
// activate only wires the parts together.
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { ContextChips } from "./chat/context";
import { ChatView, VIEW_ID } from "./chatView";
import { registerCommands } from "./commands";
import { Mentions, SlashCommands } from "./completions";
import { Conversation } from "./conversation";
import { DIFF_SCHEME, DiffDocuments } from "./diffs";
import { lightbulbContext, trackEditor } from "./editorContext";
import { answerDiagnostics } from "./editorDiagnostics";
import { answerLanguageRequests } from "./editorLanguageTools";
import { withEditSync } from "./editSync";
import { isApiKeySecret } from "./keys";
import { SIGN_IN_DIALOGS } from "./mcpAccounts";
import { answerSignIn, secretRequests } from "./mcpAuth";
import { registerMcpServers } from "./mcp";
import { COMMANDS, NOTIFICATIONS, REQUESTS } from "./protocol";
import { Review } from "./review";
import { Server, answer, listen } from "./server";
import { ServerSetup } from "./serverSetup";
import { withUserLevel } from "./settings";
import { StatusItem } from "./statusItem";
import { postRecent, routeViewMessage, shownStatus } from "./viewMessages";
import { WalkthroughProgress, stepsDone } from "./walkthrough";

let server: Server | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Foehn", { log: true });
  const diffs = new DiffDocuments();
  const view = new ChatView(context.extensionUri);
  const chips = new ContextChips();
  const setup = new ServerSetup(context, output);
  // Lightbulb actions call foehn.run; they are asked in the chat so their answer shows there.
  const middleware: Middleware = {
    executeCommand: async (command, args, next) =>
      command === COMMANDS.run.command && typeof args[0] === "object" ? lightbulb(args[0] as Record<string, unknown>) : next(command, args),
  };
  server = new Server(
    output,
    context.secrets,
    withEditSync(withUserLevel(middleware, () => vscode.workspace.getConfiguration("foehn"), () => vscode.workspace.isTrusted)),
    setup,
  );
  const conversation = new Conversation(server, view, diffs, output, context.workspaceState);
  const secrets = secretRequests(context.secrets);
  const review = new Review(conversation, server, diffs);
  const mentions = new Mentions(server);
  const slash = new SlashCommands(server, output);
  const taskContext = (text: string) => mentions.context(text, chips);
  const walkthrough = new WalkthroughProgress(output);
  const parts = { context, output, server, setup, conversation, view, chips, taskContext, walkthrough };
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
    view.onMessage((message) => {
      // What the person did in the chat is never dropped without a word.
      routeViewMessage(message, { ...parts, mentions, slash, review, diffs }).catch((error: unknown) => {
        const why = `the chat's "${message.type}" failed: ${error instanceof Error ? error.message : String(error)}`;
        output.error(why);
        void vscode.window.showErrorMessage(`Foehn: ${why}`);
      });
    }),
    server.onStatus((status) => {
      view.post({ type: "status", status: shownStatus(status, context.globalState) });
      if (status.kind !== "starting" && status.kind !== "settingUp") {
        void postRecent(parts);
      }
      void walkthrough.done(stepsDone(status));
      if (status.kind === "ready" || status.kind === "noKey") {
        void anyTurn(server!).then((asked) => (asked ? walkthrough.done(["demo"]) : undefined));
      }
    }),
    conversation.onBusy((busy) => (busy ? undefined : walkthrough.done(["demo"]))),
    server.onClientStarted((client) => {
      answer(client, REQUESTS.confirm, (params, token) => conversation.confirm(params, token));
      answer(client, REQUESTS.diagnostics, answerDiagnostics);
      answer(client, REQUESTS.elicit, (params, token) => conversation.elicit(params, token));
      answer(client, REQUESTS.mcpSignIn, (params) => answerSignIn(params, SIGN_IN_DIALOGS));
      answer(client, REQUESTS.secretsGet, secrets.get);
      answer(client, REQUESTS.secretsStore, secrets.store);
      answer(client, REQUESTS.secretsDelete, secrets.remove);
      answerLanguageRequests(client);
      listen(client, NOTIFICATIONS.runEvent, (event) => conversation.onEvent(event));
    }),
    ...trackEditor(chips, view),
    ...registerCommands(parts),
    registerMcpServers(server, async () => (await setup.readBundle()).foehn),
    vscode.workspace.onDidGrantWorkspaceTrust(() => server?.restart()),
    // A new API key restarts the server (it gets the keys in its environment); the server's own
    // sign-ins, kept through foehn/secretsStore, must not.
    context.secrets.onDidChange((change) => (isApiKeySecret(change.key) ? server?.restart() : undefined)),
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (["foehn.serverPath", "foehn.pythonPath", "foehn.provider"].some((s) => change.affectsConfiguration(s))) {
        await server?.restart();
      } else if (change.affectsConfiguration("foehn") && !change.affectsConfiguration("foehn.mcp.offerTools")) {
        await server?.settingsChanged();
      }
    }),
  );
  // The first start may make the managed environment (seconds): activation does not wait for it.
  // A reload then shows the chat the person had open, not a blank one.
  void server.start().then(() => conversation.reopen());
}

/** Whether the workspace has a chat with a turn (a walkthrough step). */
async function anyTurn(server: Server): Promise<boolean> {
  const listed = await server.send(COMMANDS.list, []).catch(() => ({ sessions: [] }));
  return listed.sessions.some((s) => s.turns > 0);
}

export async function deactivate(): Promise<void> {
  await server?.dispose();
}
