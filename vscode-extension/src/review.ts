// Reviewing what turns changed: a file's diff against how it was before the turn, Keep, and
// Undo per file or per turn, and "Restore to here". A turn's undo goes through the session's
// checkpoints (foehn.session.undo): the server puts the files back with one
// workspace/applyEdit, so the editor can undo the undo.
import * as vscode from "vscode";
import { type Turn, markFiles } from "./chat/state";
import type { Conversation } from "./conversation";
import type { DiffDocuments } from "./diffs";
import type { Server } from "./server";
import { COMMANDS, type FileBefore, type UndoReport } from "./sessions";

export class Review {
  constructor(
    private readonly chat: Conversation,
    private readonly server: Server,
    private readonly diffs: DiffDocuments,
  ) {}

  keep(runId: string, path?: string): void {
    this.chat.update(runId, (turn) => markFiles(turn, path ? [path] : "all", "kept"));
  }

  /** Undoes a turn (and every later one) through the session's checkpoints: the server puts
   * the files back with one workspace/applyEdit, so the editor can undo the undo. */
  async undo(runId: string, path?: string): Promise<void> {
    const turn = this.chat.turns.find((t) => t.runId === runId);
    if (!turn || turn.index === undefined || !this.chat.session) {
      return;
    }
    if (path) {
      await this.undoFile(turn, path);
      return;
    }
    await this.backTo(turn.index, `Undo turn ${turn.index}`);
  }

  /** Puts the workspace back as it was right after this turn. */
  async restore(runId: string): Promise<void> {
    const turn = this.chat.turns.find((t) => t.runId === runId);
    if (turn?.index !== undefined) {
      await this.backTo(turn.index + 1, `Restore to turn ${turn.index}`);
    }
  }

  private async backTo(toTurn: number, label: string): Promise<void> {
    if (this.chat.busy) {
      void vscode.window.showInformationMessage("Foehn is still working: stop it before undoing.");
      return;
    }
    try {
      let report = await this.server.command<UndoReport>(COMMANDS.undo, [{ sessionId: this.chat.session, toTurn }]);
      if (!report.applied && report.conflicts.length) {
        const force = await vscode.window.showWarningMessage(
          `${label}: ${report.conflicts.join(", ")} changed since Foehn wrote ${report.conflicts.length === 1 ? "it" : "them"}.`,
          { modal: true, detail: "Undoing anyway puts back how they were before the turn and loses those later changes (the editor can still undo that)." },
          "Undo anyway",
        );
        if (force !== "Undo anyway") {
          return;
        }
        report = await this.server.command<UndoReport>(COMMANDS.undo, [{ sessionId: this.chat.session, toTurn, force: true }]);
      }
      if (!report.applied) {
        void vscode.window.showWarningMessage(`Foehn: ${label}: ${report.reason}`);
        return;
      }
      if (report.unrestorable.length) {
        void vscode.window.showWarningMessage(`Foehn could not put back ${report.unrestorable.join(", ")}: a program changed them and their earlier content was never seen.`);
      }
      for (const turn of this.chat.turns) {
        if (turn.index !== undefined && (report.undone.includes(turn.index) || turn.index >= toTurn) && !turn.undone) {
          this.chat.update(turn.runId, (t) => ({ ...markFiles(t, "all", "undone"), undone: true }));
        }
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Foehn: ${label} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One file back as it was before the turn, as one workspace edit (undoable in the editor).
   * A later "Undo turn" finds it already restored and leaves it. */
  private async undoFile(turn: Turn, path: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      return;
    }
    try {
      const found = await this.fileBefore(turn, path);
      if (found.lost || found.binary) {
        void vscode.window.showWarningMessage(`Foehn cannot undo ${path} here: ${found.lost ? "its earlier content was never seen" : "it is not text"}; use Undo turn.`);
        return;
      }
      const uri = vscode.Uri.joinPath(folder.uri, path);
      const edit = new vscode.WorkspaceEdit();
      if (found.before === null) {
        edit.deleteFile(uri, { ignoreIfNotExists: true });
      } else {
        const exists = await vscode.workspace.fs.stat(uri).then(() => true, () => false);
        if (exists) {
          const document = await vscode.workspace.openTextDocument(uri);
          edit.replace(uri, new vscode.Range(0, 0, document.lineCount, 0), found.before);
        } else {
          edit.createFile(uri, { contents: new TextEncoder().encode(found.before) });
        }
      }
      if (await vscode.workspace.applyEdit(edit, { isRefactoring: false })) {
        this.chat.update(turn.runId, (t) => markFiles(t, [path], "undone"));
      } else {
        void vscode.window.showErrorMessage(`Foehn: the editor refused to undo ${path}.`);
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Foehn: undo ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async fileBefore(turn: Turn, path: string): Promise<FileBefore> {
    const known = this.chat.seenBefore(turn.runId, path);
    if (known !== undefined) {
      return { before: known, lost: false, binary: false };
    }
    return this.server.command<FileBefore>(COMMANDS.fileBefore, [{ session: this.chat.session, turn: turn.index, path }]);
  }

  /** A file of a turn against how it was before the turn. */
  async openFileDiff(runId: string, path: string): Promise<void> {
    const turn = this.chat.turns.find((t) => t.runId === runId);
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!turn || !folder) {
      return;
    }
    const file = vscode.Uri.joinPath(folder.uri, path);
    const found = await this.fileBefore(turn, path).catch(() => undefined);
    if (!found || found.lost || found.binary) {
      await vscode.window.showTextDocument(file);
      return;
    }
    const left = this.diffs.uri(`review/${runId}`, "before", path);
    this.diffs.set(left, found.before ?? "");
    await this.diffs.show(left, file, `${path}: before turn ${turn.index ?? ""} ↔ now`);
  }
}
