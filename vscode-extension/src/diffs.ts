// Virtual documents for diffs: the proposed change of a call being approved, and a file as it
// was before a turn. Each text lives under a path that names its owner (a run and a question),
// so closing one question's tabs never closes another run's.
import * as vscode from "vscode";

export const DIFF_SCHEME = "foehn-diff";

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly texts = new Map<string, string>();

  uri(owner: string, side: "before" | "after", name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${owner}/${side}/${name}` });
  }

  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Opens `before` against `after` (a virtual text or a real file) in the editor. */
  async show(before: vscode.Uri, after: vscode.Uri, title: string): Promise<void> {
    await vscode.commands.executeCommand("vscode.diff", before, after, title, {
      preview: true,
      preserveFocus: false,
    });
  }

  /** Forgets an owner's texts and closes only its tabs. */
  async release(owner: string): Promise<void> {
    const prefix = `/${owner}/`;
    for (const key of [...this.texts.keys()]) {
      if (vscode.Uri.parse(key).path.startsWith(prefix)) {
        this.texts.delete(key);
      }
    }
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter(
        (tab) =>
          tab.input instanceof vscode.TabInputTextDiff &&
          tab.input.original.scheme === DIFF_SCHEME &&
          tab.input.original.path.startsWith(prefix),
      );
    if (tabs.length) {
      await vscode.window.tabGroups.close(tabs, true);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
