// Foehn's language server as the rest of the extension sees it: found (discovery.ts), started
// with the provider's key from SecretStorage in its environment, restarted when its settings
// change (one restart at a time, restarts.ts), and described by one ServerStatus the chat view
// shows.
import * as fs from "node:fs";
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
import type { ServerStatus } from "./chat/messages";
import { findServer } from "./discovery";
import { keyEnvironment, type Keys } from "./keys";
import { Restarts } from "./restarts";

/** What `foehn.chat.status` answers: the provider the server will use and whether it can. */
interface ProviderStatus {
  provider: string;
  model: string;
  embedded: boolean;
  needsKey: boolean;
  /** An OpenAI-compatible server with no key: requests go without Authorization. */
  keyless?: boolean;
  error?: string | null;
}

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

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly keys: Keys,
    private readonly middleware: Middleware,
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
    // brings (its .venv, plugins, rules, settings); trusting the workspace restarts it.
    const restricted = !vscode.workspace.isTrusted;
    this.set({ kind: "starting" });
    const settings = vscode.workspace.getConfiguration("foehn");
    // Which program runs is the person's choice, never a workspace's: user level only.
    const userLevel = (id: string) => settings.inspect<string>(id)?.globalValue ?? "";
    const found = findServer({
      serverPath: userLevel("serverPath"),
      pythonPath: userLevel("pythonPath"),
      workspaceFolders: restricted ? [] : (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      pathVariable: process.env["PATH"] ?? "",
      platform: process.platform,
      isExecutable,
    });
    if ("error" in found) {
      this.output.error(found.error);
      this.set({ kind: "notFound", message: found.error });
      return;
    }
    this.output.info(`Starting ${found.command} ${found.args.join(" ")} (from ${found.source})`);
    const serverOptions: ServerOptions = {
      command: found.command,
      args: found.args,
      options: { env: { ...process.env, ...(await keyEnvironment(this.keys, userLevel("provider"))) } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      // diagnostics: the server checks a turn's edits with VS Code's language servers;
      // languageTools: the model gets definition, references, workspace_symbols and
      // rename_symbol, answered from VS Code's providers (editorLanguageTools.ts).
      initializationOptions: { confirmRequest: true, runEvents: true, diagnostics: true, languageTools: true, restrictedMode: restricted },
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
      const answer = await this.command<ProviderStatus>("foehn.chat.status", []);
      if (answer.error) {
        this.set({ kind: "failed", message: answer.error });
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

  /** workspace/executeCommand on the server; rejects if it is not running. */
  async command<T>(command: string, args: unknown[], token?: CancellationToken): Promise<T> {
    if (!this.client || !this.client.isRunning()) {
      throw new Error(statusMessage(this.current));
    }
    return (await this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token)) as T;
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
    case "noKey":
      return `Foehn has no API key for ${status.provider}: run "Foehn: Set API Key".`;
    case "restricted":
      return "Foehn is in Restricted Mode: read-only tools only, until the workspace is trusted.";
    case "failed":
      return status.message;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
