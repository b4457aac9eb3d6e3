// What a code block of an answer can do besides Copy and Insert, each only once the person has
// seen exactly what will happen: Apply to a file shows the file's diff in the editor and asks;
// the edit then lands in the editor, unsaved and undoable, like Foehn's own edits. Run in a
// terminal shows the command lines and asks; they then run in VS Code's terminal, with the
// person's rights (not Foehn's sandbox), as if typed there.
import * as vscode from "vscode";
import { commandLines } from "./chat/commandline";
import type { DiffDocuments } from "./diffs";

export const APPLY = "Apply";
export const RUN = "Run";
const TERMINAL = "Foehn";

let applied = 0;

/** The file a block is applied to: the one its fence names, else the person picks (the active
 * file first). A path that leaves the workspace is refused. */
async function target(path: string | undefined): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage("Foehn: open a folder to apply code to one of its files.");
    return undefined;
  }
  if (path) {
    if (path.split("/").includes("..") || path.startsWith("/")) {
      void vscode.window.showWarningMessage(`Foehn applies code only to files in the workspace, not ${path}.`);
      return undefined;
    }
    return vscode.Uri.joinPath(folder.uri, path);
  }
  const candidates = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors]
    .map((editor) => editor?.document.uri)
    .filter((uri): uri is vscode.Uri => uri?.scheme === "file" && vscode.workspace.getWorkspaceFolder(uri) !== undefined);
  const uris = [...new Map(candidates.map((uri) => [uri.toString(), uri])).values()];
  const other = { label: "Another file…", uri: undefined };
  const picked = await vscode.window.showQuickPick(
    [...uris.map((uri) => ({ label: vscode.workspace.asRelativePath(uri, false), uri })), other],
    { title: "Foehn: apply the code block to which file?" },
  );
  if (picked === other) {
    return (await vscode.window.showOpenDialog({ defaultUri: folder.uri, canSelectMany: false, openLabel: "Apply here" }))?.[0];
  }
  return picked?.uri;
}

/** Shows the block as the file's new text in a diff and, if the person agrees, puts it in the
 * editor (unsaved; Ctrl+Z undoes it). */
export async function applyToFile(code: string, path: string | undefined, diffs: DiffDocuments): Promise<void> {
  const uri = await target(path);
  if (!uri) {
    return;
  }
  const name = vscode.workspace.asRelativePath(uri, false);
  const exists = await vscode.workspace.fs.stat(uri).then(() => true, () => false);
  const document = exists ? await vscode.workspace.openTextDocument(uri) : undefined;
  const text = code.endsWith("\n") ? code : `${code}\n`;
  const owner = `apply-${++applied}`;
  const before = diffs.uri(owner, "before", name);
  const after = diffs.uri(owner, "after", name);
  diffs.set(before, document?.getText() ?? "");
  diffs.set(after, text);
  await vscode.commands.executeCommand("vscode.diff", before, after, `Foehn: apply to ${name}`, { preview: true, preserveFocus: true });
  const choice = await vscode.window.showInformationMessage(
    `Apply the code block to ${name}?`,
    {
      modal: true,
      detail: `${exists ? "It replaces the file's whole text" : "It creates the file"}, as the diff shows. The change lands in the editor, unsaved; Ctrl+Z undoes it.`,
    },
    APPLY,
  );
  await diffs.release(owner);
  if (choice !== APPLY) {
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  if (document) {
    edit.replace(uri, new vscode.Range(0, 0, document.lineCount, 0), text);
  } else {
    edit.createFile(uri, { ignoreIfExists: true });
    edit.insert(uri, new vscode.Position(0, 0), text);
  }
  if (await vscode.workspace.applyEdit(edit)) {
    await vscode.window.showTextDocument(uri, { preview: false });
  } else {
    void vscode.window.showErrorMessage(`Foehn: the editor refused to change ${name}.`);
  }
}

/** Shows the command lines and, if the person agrees, runs them in a terminal. */
export async function runInTerminal(code: string): Promise<void> {
  const lines = commandLines(code);
  if (!lines) {
    return;
  }
  const choice = await vscode.window.showWarningMessage(
    "Run this in a terminal?",
    { modal: true, detail: `${lines}\n\nIt runs in VS Code's terminal with your own rights, outside Foehn's sandbox.` },
    RUN,
  );
  if (choice !== RUN) {
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const terminal =
    vscode.window.terminals.find((t) => t.name === TERMINAL && t.exitStatus === undefined) ??
    vscode.window.createTerminal({ name: TERMINAL, ...(folder ? { cwd: folder.uri } : {}) });
  terminal.show(true);
  terminal.sendText(lines, true);
}
