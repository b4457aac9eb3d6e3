// Foehn's language server as the rest of the extension sees it: found (discovery.ts), started
// with the provider's key from SecretStorage in its environment, restarted when its settings
// change, and described by one ServerStatus the chat view shows.
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  type CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { ServerStatus } from "./chat/messages";
import { findServer } from "./discovery";
import { keyEnvironment, type Keys } from "./keys";

/** What `foehn.chat.status` answers: the provider the server will use and whether it can. */
interface ProviderStatus {
  provider: string;
  model: string;
  embedded: boolean;
  needsKey: boolean;
  error?: string | null;
}

export class Server implements vscode.Disposable {
  client: LanguageClient | undefined;
  private current: ServerStatus = { kind: "starting" };
  private readonly changed = new vscode.EventEmitter<ServerStatus>();
  /** Fires whenever the status changes, and once the new client is running (to re-attach). */
  readonly onStatus = this.changed.event;
  private readonly clientStarted = new vscode.EventEmitter<LanguageClient>();
  readonly onClientStarted = this.clientStarted.event;

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

  async start(): Promise<void> {
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
      initializationOptions: { confirmRequest: true, runEvents: true, restrictedMode: restricted },
      outputChannel: this.output,
      connectionOptions: { maxRestartCount: 4 },
      middleware: this.middleware,
    };
    const client = new LanguageClient("foehn", "Foehn", serverOptions, clientOptions);
    this.client = client;
    this.clientStarted.fire(client);
    try {
      await client.start();
    } catch (error) {
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
        this.set({ kind: "ready", provider: answer.provider, model: answer.model, embedded: answer.embedded });
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

  async restart(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      await client.stop().catch((error: unknown) => this.output.warn(`stopping the server: ${String(error)}`));
    }
    await this.start();
  }

  async dispose(): Promise<void> {
    this.changed.dispose();
    this.clientStarted.dispose();
    await this.client?.stop();
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
