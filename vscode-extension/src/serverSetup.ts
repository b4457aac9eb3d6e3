// The managed environment as VS Code shows it: made on first start (python/environment.ts) with
// its steps in a progress notification that can be cancelled, the interpreter found through the
// Python extension where it is installed (and trusted), then PATH; a failure said in one
// notification with the one action that fixes it. "Foehn: Pick a Python…" remembers the person's
// choice (it comes first next time) and sets up again.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { type Launch, managedLaunch } from "./discovery";
import { type Bundle, NoBundle, readBundle } from "./python/bundle";
import { type Outcome, ensureEnvironment } from "./python/environment";
import { ACTION_LABELS, type SetupAction, type SetupFailure, setupMessage } from "./python/failures";
import { type Candidate, type Choice, choose, onPath } from "./python/interpreters";
import { probe } from "./python/probe";

/** globalState key: the interpreter the person picked for the managed environment. */
const PICKED = "foehn.pickedPython";
const PYTHON_EXTENSION = "ms-python.python";
const PYTHON_EXTENSION_WAIT_MS = 20_000;

/** The setup's result: how to start Foehn, or the failure with its message and action. */
export type Prepared = { launch: Launch } | { failure: SetupFailure; message: string; action: SetupAction };

export const ACTION_COMMANDS: Record<SetupAction, string> = {
  pickInterpreter: "foehn.pickPython",
  openLog: "foehn.showLog",
  retry: "foehn.restartServer",
};

/** The part of the Python extension's API used here (its `environments`). */
interface PythonApi {
  environments: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(environment: string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export class ServerSetup {
  private bundle: Promise<Bundle> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  /** The folder of Foehn's environments. */
  get root(): string {
    return path.join(this.context.globalStorageUri.fsPath, "python");
  }

  readBundle(): Promise<Bundle> {
    this.bundle ??= readBundle(path.join(this.context.extensionPath, "bundled"));
    return this.bundle;
  }

  /** The managed environment, made first if needed (with a progress notification). */
  async prepare(): Promise<Prepared> {
    let bundle: Bundle;
    try {
      bundle = await this.readBundle();
    } catch (error) {
      this.bundle = undefined;
      if (error instanceof NoBundle) {
        return this.failed({ kind: "noBundle", detail: error.message });
      }
      throw error;
    }
    const outcome = await this.withNotification((progress, signal) =>
      ensureEnvironment({
        bundle,
        root: this.root,
        findPython: () => this.findPython(bundle),
        progress,
        log: (line) => this.output.info(line),
        platform: process.platform,
        signal,
      }),
    );
    if (!outcome.ok) {
      return this.failed(outcome.failure);
    }
    const { environment } = outcome;
    this.output.info(
      environment.made
        ? `Made Foehn's environment ${environment.key} (${environment.python}).`
        : `Using Foehn's environment ${environment.key} (${environment.python}).`,
    );
    return { launch: managedLaunch(environment.python) };
  }

  private failed(failure: SetupFailure): Prepared {
    const { message, action } = setupMessage(failure);
    this.output.error(message);
    void vscode.window.showErrorMessage(`Foehn: ${message}`, ACTION_LABELS[action]).then((chosen) =>
      chosen ? vscode.commands.executeCommand(ACTION_COMMANDS[action]) : undefined,
    );
    return { failure, message, action };
  }

  /** Runs `work`; its first progress message opens a cancellable notification (a start that
   * finds the environment ready shows none). */
  private async withNotification(work: (progress: (message: string) => void, signal: AbortSignal) => Promise<Outcome>): Promise<Outcome> {
    const abort = new AbortController();
    let report: ((message: string) => void) | undefined;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const progress = (message: string) => {
      this.output.info(message);
      if (!report) {
        let first: string | undefined = message;
        report = (m) => (first = m);
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: "Foehn: setting up its server", cancellable: true },
          (notification, token) => {
            token.onCancellationRequested(() => abort.abort());
            report = (m) => notification.report({ message: m });
            report(first!);
            first = undefined;
            return finished;
          },
        );
      }
      report(message);
    };
    try {
      return await work(progress, abort.signal);
    } finally {
      finish();
    }
  }

  /** The interpreters to try, in order, probed until one fits. */
  async findPython(bundle: Bundle): Promise<Choice> {
    const candidates: Candidate[] = [];
    const notes: string[] = [];
    const picked = this.context.globalState.get<string>(PICKED);
    if (picked) {
      candidates.push({ command: picked, args: [], source: "picked", label: "the Python you picked" });
    }
    const fromExtension = await this.pythonExtensionInterpreter();
    if ("candidate" in fromExtension) {
      candidates.push(fromExtension.candidate);
    } else {
      notes.push(fromExtension.note);
    }
    candidates.push(...onPath(process.env["PATH"] ?? "", process.platform, isExecutable));
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    return choose(candidates, (candidate) => probe(candidate), bundle.pythons, folders, process.platform, notes);
  }

  private async pythonExtensionInterpreter(): Promise<{ candidate: Candidate } | { note: string }> {
    const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
    if (!extension) {
      return { note: "The Python extension is not installed." };
    }
    if (!vscode.workspace.isTrusted) {
      return { note: "The Python extension's interpreter is not asked in Restricted Mode." };
    }
    try {
      const api = await Promise.race([
        Promise.resolve(extension.activate()),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("it did not answer in time")), PYTHON_EXTENSION_WAIT_MS)),
      ]);
      const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
      const active = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(active.path);
      const executable = resolved?.executable.uri?.fsPath;
      if (!executable) {
        return { note: `The Python extension's interpreter (${active.path}) could not be resolved.` };
      }
      return { candidate: { command: executable, args: [], source: "pythonExtension", label: "the Python extension's interpreter" } };
    } catch (error) {
      return { note: `The Python extension did not say its interpreter: ${error instanceof Error ? error.message : String(error)}.` };
    }
  }

  /** "Foehn: Pick a Python…": an interpreter file, remembered for the managed environment. */
  async pickPython(): Promise<boolean> {
    const picked = await vscode.window.showOpenDialog({
      title: "Foehn: a Python 3.11 or newer to make Foehn's environment with",
      canSelectMany: false,
      openLabel: "Use this Python",
      ...(process.platform === "win32" ? { filters: { Python: ["exe"] } } : {}),
    });
    const file = picked?.[0]?.fsPath;
    if (!file) {
      return false;
    }
    await this.context.globalState.update(PICKED, file);
    this.output.info(`The Python you picked: ${file}`);
    return true;
  }
}
