// After Foehn put files back (undo, undo turn, restore), an editor whose text is now exactly
// the file on disk would still be marked unsaved (●): VS Code tracks edits, not content. Such
// an editor is reverted, which reloads the same text from disk and clears the mark. Reverting
// runs no save participants (formatters, final newlines), so the disk is left as it was; a
// file whose text differs from the disk keeps its unsaved changes.
import * as vscode from "vscode";

/** Whether an editor's text is the file's content on disk (UTF-8; a BOM is not text). */
export function sameAsDisk(text: string, disk: Uint8Array): boolean {
  return new TextDecoder("utf-8").decode(disk) === text;
}

/** Reverts the open editors of these workspace-relative paths whose text equals the disk. */
export async function settleDocuments(paths: readonly string[]): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    return;
  }
  const wanted = new Set(paths.map((p) => vscode.Uri.joinPath(folder.uri, p).toString()));
  const documents = vscode.workspace.textDocuments.filter((d) => d.isDirty && wanted.has(d.uri.toString()));
  if (!documents.length) {
    return;
  }
  const active = vscode.window.activeTextEditor;
  let moved = false;
  for (const document of documents) {
    const disk = await vscode.workspace.fs.readFile(document.uri).then(
      (bytes) => bytes,
      () => undefined,
    );
    if (!disk || !sameAsDisk(document.getText(), disk)) {
      continue;
    }
    // "Revert File" works on the active editor only: show it there, keeping the keyboard where
    // it is, then go back to the editor the person had.
    await vscode.window.showTextDocument(document, { preserveFocus: true, preview: false });
    await vscode.commands.executeCommand("workbench.action.files.revert");
    moved = true;
  }
  if (moved && active && !active.document.isClosed) {
    await vscode.window.showTextDocument(active.document, { viewColumn: active.viewColumn, preserveFocus: true });
  }
}
