// The editor's state as the chat's context: the chips follow the active file and selection,
// and a code action's foehn.run argument becomes the context of a question asked in the chat.
import * as vscode from "vscode";
import { type ContextChips, linesLabel } from "./chat/context";
import type { ChatView } from "./chatView";
import type { TaskContext } from "./conversation";

/** Keeps the chips on the active file and selection. The chat view itself takes the focus
 * from the editor, so the last file editor stays the context while the person types. */
export function trackEditor(chips: ContextChips, view: ChatView): vscode.Disposable[] {
  const update = (editor: vscode.TextEditor | undefined) => {
    if (!editor) {
      return;
    }
    const document = editor.document;
    const inWorkspace = document.uri.scheme === "file" && vscode.workspace.getWorkspaceFolder(document.uri) !== undefined;
    const selection = editor.selection;
    const changed = chips.track(
      inWorkspace
        ? {
            path: vscode.workspace.asRelativePath(document.uri, false),
            uri: document.uri.toString(),
            ...(selection.isEmpty
              ? {}
              : {
                  selection: {
                    start: { line: selection.start.line, character: selection.start.character },
                    end: { line: selection.end.line, character: selection.end.character },
                  },
                }),
          }
        : {},
    );
    if (changed) {
      view.post({ type: "chips", chips: chips.chips() });
    }
  };
  update(vscode.window.activeTextEditor);
  return [
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.window.onDidChangeTextEditorSelection((event) => update(event.textEditor)),
  ];
}

/** A code action's foehn.run argument as the chat's context, with chips for the file and the
 * lines it is about. */
export function lightbulbContext(argument: Record<string, unknown>): TaskContext {
  const uri = typeof argument["uri"] === "string" ? argument["uri"] : undefined;
  const range = argument["range"] as TaskContext["range"];
  const path = uri ? vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false) : undefined;
  const labels = path ? [path, ...(range ? [linesLabel(path, range)] : [])] : [];
  return {
    ...(uri ? { uri } : {}),
    ...(range ? { range } : {}),
    ...(argument["diagnostic"] ? { diagnostic: argument["diagnostic"] } : {}),
    labels,
  };
}
