// Foehn's language server as the rest of the extension sees it: found (discovery.ts), started
// with the provider's key from SecretStorage in its environment, restarted when its settings
// change (one restart at a time, restarts.ts), and described by one ServerStatus the chat view
// shows.
import * as vscode from "vscode";
import {
  type CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
  type StaticFeature,
} from "vscode-languageclient/node";
import { inVsCodeWords } from "./chat/errors";
import type { ServerStatus } from "./chat/messages";
import { type Launch, explicitServer } from "./discovery";
import { keyEnvironment, type Keys } from "./keys";
import { COMMANDS, type Command, type EditorNotification, type EditorRequest } from "./protocol";
import { Restarts } from "./restarts";
import { type Prepared, type ServerSetup, isExecutable } from "./serverSetup";

/** The chat and the status item show a turn's progress; the server's own progress (a status
 * bar entry that says "Starting…" while the answer streams) would say it twice, and worse. */
const NO_SERVER_PROGRESS: StaticFeature = {
  fillClientCapabilities: (capabilities) => {
    capabilities.window = { ...capabilities.window, workDoneProgress: false };
  },
  initialize: () => undefined,
  getState: () => ({ kind: "static" }),
  clear: () => undefined,
};

export class Server implements vscode.Disposable {
  client: LanguageClient | undefined;
  private current: ServerStatus = { kind: "starting" };
  private readonly changed = new vscode.EventEmitter<ServerStatus>();
  /** Fires whenever the status changes, and once the new client is running (to re-attach). */
  readonly onStatus = this.changed.event;
  private readonly clientStarted = new vscode.EventEmitter<LanguageClient>();
  readonly onClientStarted = this.clientStarted.event;
  private readonly restarts = new Restarts((reading) => this.cycle(reading));
  private disposed = false;
  /** How the running server was started (the MCP definitions start Foehn the same way). */
  launched: Launch | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly keys: Keys,
    private readonly middleware: Middleware,
    private readonly setup: ServerSetup,
  ) {}

  get status(): ServerStatus {
    return this.current;
  }

  private set(status: ServerStatus): void {
    this.current = status;
    this.changed.fire(status);
  }

  /** Starts the server; the same as a restart, so a trigger during the start waits its turn. */
  start(): Promise<void> {
    return this.restarts.request();
  }

  /** Restarts the server. Safe from any trigger at any time: restarts never overlap, triggers
   * during one coalesce, and the old client is disposed (its commands with it) before the new
   * one starts. */
  restart(): Promise<void> {
    return this.restarts.request();
  }

  /** How to start Foehn: the person's own server, else the managed environment (made first,
   * while the chat says so, if it is not there). */
  async findLaunch(): Promise<{ launch: Launch } | { error: string } | Exclude<Prepared, { launch: Launch }>> {
    const settings = vscode.workspace.getConfiguration("foehn");
    const userLevel = (id: string) => settings.inspect<string>(id)?.globalValue ?? "";
    const explicit = explicitServer({ serverPath: userLevel("serverPath"), pythonPath: userLevel("pythonPath"), isExecutable });
    if (explicit) {
      return "error" in explicit ? explicit : { launch: explicit };
    }
    this.set({ kind: "settingUp" });
    return this.setup.prepare();
  }

  private async cycle(reading: () => void): Promise<void> {
    const old = this.client;
    this.client = undefined;
    if (old) {
      await old.dispose().catch((error: unknown) => this.output.warn(`stopping the server: ${String(error)}`));
    }
    if (this.disposed) {
      return;
    }
    reading();
    await this.launch();
  }

  private async launch(): Promise<void> {
    // Restricted Mode: the server still runs, with read-only tools and nothing the workspace
    // brings (its plugins, rules, settings); trusting the workspace restarts it.
    const restricted = !vscode.workspace.isTrusted;
    this.set({ kind: "starting" });
    const settings = vscode.workspace.getConfiguration("foehn");
    // Which program runs is the person's choice, never a workspace's: user level only.
    const userLevel = (id: string) => settings.inspect<string>(id)?.globalValue ?? "";
    const found = await this.findLaunch();
    if ("error" in found) {
      this.output.error(found.error);
      this.set({ kind: "notFound", message: found.error });
      return;
    }
    if ("failure" in found) {
      this.set({ kind: "setupFailed", message: found.message, action: found.action });
      return;
    }
    const launch = found.launch;
    this.launched = launch;
    this.output.info(`Starting ${launch.command} ${[...launch.prefix, "serve"].join(" ")} (from ${launch.source})`);
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: [...launch.prefix, "serve"],
      options: { env: { ...process.env, ...(await keyEnvironment(this.keys, userLevel("provider"))) } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      // diagnostics: the server checks a turn's edits with VS Code's language servers;
      // languageTools: the model gets definition, references, workspace_symbols and
      // rename_symbol, answered from VS Code's providers (editorLanguageTools.ts);
      // elicitation: MCP servers' questions (conversation.ts); mcpSignIn and secretStorage: the
      // sign-in page asked about here, its tokens in SecretStorage (mcpAuth.ts).
      initializationOptions: {
        confirmRequest: true,
        runEvents: true,
        diagnostics: true,
        languageTools: true,
        elicitation: true,
        mcpSignIn: true,
        secretStorage: true,
        restrictedMode: restricted,
      },
      outputChannel: this.output,
      connectionOptions: { maxRestartCount: 4 },
      middleware: this.middleware,
    };
    const client = new LanguageClient("foehn", "Foehn", serverOptions, clientOptions);
    client.registerFeature(NO_SERVER_PROGRESS);
    this.client = client;
    this.clientStarted.fire(client);
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.set({ kind: "failed", message: `Foehn's server did not start: ${String(error)}` });
      return;
    }
    await this.refreshStatus();
  }

  /** Asks the server which provider it will use, so the view can say "no key" or "embedded"
   * before the first question rather than after it fails. */
  async refreshStatus(): Promise<void> {
    if (!this.client) {
      return;
    }
    if (!vscode.workspace.isTrusted) {
      this.set({ kind: "restricted" });
      return;
    }
    try {
      const answer = await this.send(COMMANDS.status, []);
      if (answer.noModel) {
        this.set({ kind: "noModel" });
      } else if (answer.error) {
        this.set({ kind: "failed", message: inVsCodeWords(answer.error) });
      } else if (answer.needsKey) {
        this.set({ kind: "noKey", provider: answer.provider });
      } else {
        this.set({
          kind: "ready",
          provider: answer.provider,
          model: answer.model,
          embedded: answer.embedded,
          ...(answer.keyless ? { keyless: true } : {}),
        });
      }
    } catch (error) {
      this.set({ kind: "failed", message: `Foehn's server did not answer: ${String(error)}` });
    }
  }

  /** The editor's foehn settings changed: the server pulls them again. */
  async settingsChanged(): Promise<void> {
    if (this.client?.isRunning()) {
      await this.client.sendNotification("workspace/didChangeConfiguration", { settings: null });
      await this.refreshStatus();
    }
  }

  /** One of the server's commands (protocol.ts's COMMANDS) through workspace/executeCommand;
   * rejects if the server is not running. */
  async send<Args extends unknown[], Result>(command: Command<Args, Result>, args: Args, token?: CancellationToken): Promise<Result> {
    if (!this.client || !this.client.isRunning()) {
      throw new Error(statusMessage(this.current));
    }
    return (await this.client.sendRequest(ExecuteCommandRequest.type, { command: command.command, arguments: args }, token)) as Result;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.restarts.idle();
    this.changed.dispose();
    this.clientStarted.dispose();
    await this.client?.dispose();
  }
}

export function statusMessage(status: ServerStatus): string {
  switch (status.kind) {
    case "starting":
      return "Foehn's server is still starting.";
    case "ready":
      return "Foehn is ready.";
    case "notFound":
      return status.message;
    case "settingUp":
      return "Foehn is setting up its server.";
    case "setupFailed":
      return status.message;
    case "noKey":
      return `Foehn has no API key for ${status.provider}: run "Foehn: Set API Key".`;
    case "noModel":
      return 'Foehn has no model yet: run "Foehn: Choose Provider", or "Foehn: Use the Offline Model".';
    case "restricted":
      return "Foehn is in Restricted Mode: read-only tools only, until the workspace is trusted.";
    case "failed":
      return status.message;
  }
}

/** Answers one of the server's requests to the editor (protocol.ts's REQUESTS). */
export function answer<Params, Answer>(
  client: LanguageClient,
  request: EditorRequest<Params, Answer>,
  handler: (params: Params, token: CancellationToken) => Answer | Promise<Answer>,
): void {
  client.onRequest(request.method, (params: Params, token: CancellationToken) => Promise.resolve(handler(params, token)));
}

/** Listens to one of the server's notifications (protocol.ts's NOTIFICATIONS). */
export function listen<Params>(client: LanguageClient, note: EditorNotification<Params>, handler: (params: Params) => void): void {
  client.onNotification(note.method, (params: Params) => handler(params));
}
