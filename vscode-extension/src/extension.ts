// The Foehn extension: starts `foehn serve`, contributes the commands, confirms risky calls in
// a modal with the diff beside it, and shows each run in a Markdown log and the status bar.
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { ALLOW, ALLOW_RUN, DENY, type ConfirmParams, confirmMessage, decisionFor } from "./confirm";
import { findServer } from "./discovery";
import { type RunEvent, RunLog } from "./render";

const SECRET_KEY = "foehn.apiKey";
const RUN_SCHEME = "foehn-run";
const PREVIEW_SCHEME = "foehn-preview";

let client: LanguageClient | undefined;

class Documents implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly texts = new Map<string, string>();

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Foehn", { log: true });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  const runs = new Map<string, RunLog>();
  const documents = new Documents();
  const previews = new Documents();
  let active = 0;

  status.text = "$(sparkle) Foehn";
  status.tooltip = "Foehn: ask (click)";
  status.command = "foehn.ask";
  status.show();

  const idle = (): void => {
    status.text = "$(sparkle) Foehn";
    status.tooltip = "Foehn: ask (click)";
    status.command = "foehn.ask";
  };

  async function start(): Promise<void> {
    const settings = vscode.workspace.getConfiguration("foehn");
    const found = findServer({
      serverPath: settings.get<string>("serverPath", ""),
      pythonPath: settings.get<string>("pythonPath", ""),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      pathVariable: process.env["PATH"] ?? "",
      platform: process.platform,
      isExecutable,
    });
    if ("error" in found) {
      output.error(found.error);
      void vscode.window.showErrorMessage(found.error, "Open Settings").then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand("workbench.action.openSettings", "foehn.");
        }
      });
      return;
    }
    output.info(`Starting ${found.command} ${found.args.join(" ")} (from ${found.source})`);
    const key = await context.secrets.get(SECRET_KEY);
    const serverOptions: ServerOptions = {
      command: found.command,
      args: found.args,
      options: { env: { ...process.env, ...(key ? { FOEHN_API_KEY: key } : {}) } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      initializationOptions: { confirmRequest: true, runEvents: true },
      outputChannel: output,
      connectionOptions: { maxRestartCount: 4 },
    };
    client = new LanguageClient("foehn", "Foehn", serverOptions, clientOptions);
    client.onRequest("foehn/confirm", (params: ConfirmParams) => confirm(params, previews));
    client.onNotification("foehn/runEvent", (event: RunEvent) => {
      const log = runs.get(event.runId) ?? new RunLog(event.runId, "run");
      runs.set(event.runId, log);
      log.apply(event);
      documents.set(runUri(event.runId), log.markdown());
      status.text = `$(sync~spin) Foehn: ${log.status}`;
      status.tooltip = "Foehn is running: click to cancel";
      status.command = "foehn.cancelRun";
    });
    await client.start();
  }

  async function run(task: string, withSelection: boolean): Promise<void> {
    if (!client) {
      void vscode.window.showErrorMessage("Foehn's server is not running; see the Foehn output.");
      return;
    }
    const editor = vscode.window.activeTextEditor;
    const argument: Record<string, unknown> = { task };
    if (editor && editor.document.uri.scheme === "file") {
      argument["uri"] = editor.document.uri.toString();
      if (withSelection && !editor.selection.isEmpty) {
        argument["range"] = client.code2ProtocolConverter.asRange(editor.selection);
      }
    }
    active += 1;
    const started = [...runs.keys()];
    const opened = openLogWhenStarted(runs, started, task, documents);
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Foehn", cancellable: true },
        async (progress, token) => {
          progress.report({ message: task });
          return (await client!.sendRequest(
            ExecuteCommandRequest.type,
            { command: "foehn.run", arguments: [argument] },
            token,
          )) as { runId: string; answer: string; stopReason: string } | undefined;
        },
      );
      await opened;
      if (result) {
        const prefix = result.stopReason === "answer" ? "" : `(${result.stopReason.replace(/_/g, " ")}) `;
        void vscode.window.showInformationMessage(`Foehn: ${prefix}${result.answer}`);
      }
    } catch (error) {
      if (!(error instanceof Error && /cancel/i.test(error.message))) {
        void vscode.window.showErrorMessage(`Foehn: ${String(error)}`);
      }
    } finally {
      active -= 1;
      if (active === 0) {
        idle();
      }
    }
  }

  context.subscriptions.push(
    output,
    status,
    vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, documents),
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews),
    vscode.commands.registerCommand("foehn.ask", async () => {
      const task = await vscode.window.showInputBox({
        title: "Foehn: Ask…",
        prompt: "What should Foehn do? The active file and selection are sent as context.",
        ignoreFocusOut: true,
      });
      if (task?.trim()) {
        await run(task.trim(), true);
      }
    }),
    vscode.commands.registerCommand("foehn.explainSelection", () =>
      run("Explain what the selected code does, briefly.", true),
    ),
    vscode.commands.registerCommand("foehn.cancelRun", async () => {
      await client?.sendRequest(ExecuteCommandRequest.type, { command: "foehn.cancel", arguments: [] });
    }),
    vscode.commands.registerCommand("foehn.showTools", async () => {
      const catalogue = (await client?.sendRequest(ExecuteCommandRequest.type, {
        command: "foehn.tools",
        arguments: [],
      })) as { tools: { name: string; risk: string; description: string }[] } | undefined;
      await vscode.window.showQuickPick(
        (catalogue?.tools ?? []).map((t) => ({ label: t.name, description: t.risk, detail: t.description })),
        { title: "Foehn: tools the model can call" },
      );
    }),
    vscode.commands.registerCommand("foehn.setApiKey", async () => {
      const key = await vscode.window.showInputBox({
        title: "Foehn: Set API Key",
        prompt: "Stored in VS Code's secret storage and passed to the server; never in settings.",
        password: true,
        ignoreFocusOut: true,
      });
      if (key !== undefined) {
        await context.secrets.store(SECRET_KEY, key);
        await restart();
      }
    }),
    vscode.commands.registerCommand("foehn.showAuditLog", async () => {
      const catalogue = (await client?.sendRequest(ExecuteCommandRequest.type, {
        command: "foehn.tools",
        arguments: [],
      })) as { auditLog?: string } | undefined;
      if (catalogue?.auditLog && fs.existsSync(catalogue.auditLog)) {
        await vscode.window.showTextDocument(vscode.Uri.file(catalogue.auditLog));
      } else {
        void vscode.window.showInformationMessage("Foehn has not logged any tool call in this workspace yet.");
      }
    }),
    vscode.commands.registerCommand("foehn.restartServer", () => restart()),
    vscode.workspace.onDidChangeConfiguration(async (change) => {
      if (change.affectsConfiguration("foehn.serverPath") || change.affectsConfiguration("foehn.pythonPath")) {
        await restart();
      } else if (change.affectsConfiguration("foehn") && client) {
        await client.sendNotification("workspace/didChangeConfiguration", { settings: null });
      }
    }),
  );

  async function restart(): Promise<void> {
    if (client) {
      await client.stop();
      client = undefined;
    }
    await start();
  }

  await start();
}

function runUri(runId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RUN_SCHEME, path: `/Foehn run ${runId}.md` });
}

async function openLogWhenStarted(
  runs: Map<string, RunLog>,
  before: string[],
  task: string,
  documents: Documents,
): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const fresh = [...runs.keys()].find((id) => !before.includes(id));
    if (fresh) {
      const log = runs.get(fresh)!;
      log.task = task;
      documents.set(runUri(fresh), log.markdown());
      const document = await vscode.workspace.openTextDocument(runUri(fresh));
      await vscode.languages.setTextDocumentLanguage(document, "markdown");
      await vscode.window.showTextDocument(document, {
        viewColumn: vscode.ViewColumn.Beside,
        preview: true,
        preserveFocus: true,
      });
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function confirm(params: ConfirmParams, documents: Documents) {
  for (const [index, file] of (params.preview?.files ?? []).entries()) {
    const name = vscode.Uri.parse(file.uri).path.split("/").pop() ?? "file";
    const before = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${params.runId}/${index}/before/${name}` });
    const after = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${params.runId}/${index}/after/${name}` });
    documents.set(before, file.before ?? "");
    documents.set(after, file.after);
    // In the first group, where the person's file usually is (the run log is beside it).
    await vscode.commands.executeCommand("vscode.diff", before, after, `Foehn: proposed change to ${name}`, {
      viewColumn: vscode.ViewColumn.One,
      preview: false,
      preserveFocus: true,
    });
  }
  const { message, detail } = confirmMessage(params);
  const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, ALLOW, ALLOW_RUN, DENY);
  const previewTabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === PREVIEW_SCHEME);
  await vscode.window.tabGroups.close(previewTabs, true);
  return decisionFor(choice);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
