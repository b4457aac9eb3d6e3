// Reviewing what turns changed: a file's diff against how it was before the turn, Keep, and
// Undo per file or per turn, and "Restore to here" (asked first, said after, with Redo). Every
// undo goes through the session's checkpoints (foehn.session.undo, with `paths` for one file):
// the server checks for later changes, records the undo turn, and puts the files back with one
// workspace/applyEdit, so the editor can undo the undo. An editor left with
// exactly the file's text on disk is reverted (settle.ts), so no tab stays marked unsaved; and
// the person's own Ctrl+Z on a reviewed file shows in the review.
import * as vscode from "vscode";
import { type Turn, markFiles, noticeEditorText } from "./chat/state";
import type { Conversation } from "./conversation";
import type { DiffDocuments } from "./diffs";
import type { Server } from "./server";
import { COMMANDS, type FileBefore, type UndoArguments, type UndoReport } from "./protocol";
import { settleDocuments } from "./settle";

const RESTORE = "Restore";
const REDO = "Redo";

export class Review implements vscode.Disposable {
  /** Files' text before a turn, fetched once (for noticing the editor's own undo). */
  private readonly befores = new Map<string, Promise<FileBefore | undefined>>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly chat: Conversation,
    private readonly server: Server,
    private readonly diffs: DiffDocuments,
  ) {
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        const reason = event.reason;
        if (reason === vscode.TextDocumentChangeReason.Undo || reason === vscode.TextDocumentChangeReason.Redo) {
          void this.noticeEditor(event.document);
        }
      }),
    ];
  }

  keep(runId: string, path?: string): void {
    this.chat.update(runId, (turn) => markFiles(turn, path ? [path] : "all", "kept"));
  }

  /** Undoes a turn (and every later one) through the session's checkpoints: the server puts
   * the files back with one workspace/applyEdit, so the editor can undo the undo. */
  async undo(runId: string, path?: string): Promise<void> {
    if (this.chat.waitsForTurn(runId, path ? `Undo ${path}` : "Undo turn")) {
      return;
    }
    const turn = this.chat.turns.find((t) => t.runId === runId);
    if (!turn || turn.index === undefined || !this.chat.session) {
      void vscode.window.showWarningMessage("Foehn: this turn has nothing to undo (it was not saved in a session).");
      return;
    }
    if (path) {
      await this.undoFile(turn, path);
      return;
    }
    await this.backTo(turn.index, `Undo turn ${turn.index}`);
  }

  /** Puts the workspace back as it was right after this turn, once the person agrees; says
   * what it did and offers to redo it. */
  async restore(runId: string): Promise<void> {
    if (this.chat.waitsForTurn(runId, "Restore to here")) {
      return;
    }
    const turn = this.chat.turns.find((t) => t.runId === runId);
    if (turn?.index === undefined) {
      return;
    }
    const later = this.chat.turns.filter((t) => t.index !== undefined && t.index > turn.index! && !t.undone);
    const files = [...new Set(later.flatMap((t) => t.files.map((f) => f.path)))];
    const sure = await vscode.window.showWarningMessage(
      `Restore the workspace to how it was after turn ${turn.index}?`,
      {
        modal: true,
        detail:
          `This puts back what the later turns changed: ${files.join(", ") || "no file"}. ` +
          "Foehn offers to redo it afterwards, and the editor can undo it too.",
      },
      RESTORE,
    );
    if (sure !== RESTORE) {
      return;
    }
    const report = await this.backTo(turn.index + 1, `Restore to turn ${turn.index}`);
    if (!report) {
      return;
    }
    const put = report.restored.length ? `put back ${report.restored.join(", ")}` : "every file was already as it was";
    const redo = report.turn
      ? await vscode.window.showInformationMessage(`Foehn restored the workspace to turn ${turn.index}: ${put}.`, REDO)
      : await vscode.window.showInformationMessage(`Foehn restored the workspace to turn ${turn.index}: ${put}.`);
    if (redo === REDO && report.turn) {
      const again = await this.backTo(report.turn, "Redo");
      if (again) {
        void vscode.window.showInformationMessage(`Foehn redid what the restore put back: ${again.restored.join(", ") || "no file"}.`);
      }
    }
  }

  /** Undoes turns from `toTurn` on; the report when it was applied. */
  private async backTo(toTurn: number, label: string): Promise<UndoReport | undefined> {
    const report = await this.undoThrough({ sessionId: this.chat.session!, toTurn }, label);
    if (report) {
      await this.chat.syncUndone();
    }
    return report;
  }

  /** foehn.session.undo with `undo`: asks before overwriting later changes, says what could
   * not be put back, settles the editors; the report when it was applied. */
  private async undoThrough(undo: UndoArguments, label: string): Promise<UndoReport | undefined> {
    try {
      let report = await this.server.send(COMMANDS.undo, [undo]);
      if (!report.applied && report.conflicts.length) {
        const force = await vscode.window.showWarningMessage(
          `${label}: ${report.conflicts.join(", ")} changed since Foehn wrote ${report.conflicts.length === 1 ? "it" : "them"}.`,
          { modal: true, detail: "Undoing anyway puts back how they were before the turn and loses those later changes (the editor can still undo that)." },
          "Undo anyway",
        );
        if (force !== "Undo anyway") {
          return undefined;
        }
        report = await this.server.send(COMMANDS.undo, [{ ...undo, force: true }]);
      }
      if (!report.applied) {
        void vscode.window.showWarningMessage(`Foehn: ${label}: ${report.reason}`);
        return undefined;
      }
      if (report.unrestorable.length) {
        void vscode.window.showWarningMessage(`Foehn could not put back ${report.unrestorable.join(", ")}: a program changed them and their earlier content was never seen.`);
      }
      await settleDocuments(report.restored);
      return report;
    } catch (error) {
      void vscode.window.showErrorMessage(`Foehn: ${label} failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** One file back as it was before the turn, through the server's per-file undo: the same
   * conflict check and undo turn (the model is told) as a turn's undo, applied as one
   * workspace edit the editor can undo. */
  private async undoFile(turn: Turn, path: string): Promise<void> {
    const report = await this.undoThrough({ sessionId: this.chat.session!, toTurn: turn.index!, paths: [path] }, `Undo ${path}`);
    if (report) {
      this.chat.update(turn.runId, (t) => markFiles(t, [path], "undone"));
    }
  }

  private async fileBefore(turn: Turn, path: string): Promise<FileBefore> {
    const known = this.chat.seenBefore(turn.runId, path);
    if (known !== undefined) {
      return { before: known, lost: false, binary: false };
    }
    return this.server.send(COMMANDS.fileBefore, [{ session: this.chat.session!, turn: turn.index!, path }]);
  }

  /** The person undid (or redid) in the editor: the latest turn that changed this file says
   * whether it is now back as before that turn. */
  private async noticeEditor(document: vscode.TextDocument): Promise<void> {
    if (document.uri.scheme !== "file" || !vscode.workspace.getWorkspaceFolder(document.uri)) {
      return;
    }
    const path = vscode.workspace.asRelativePath(document.uri, false);
    const turn = [...this.chat.turns]
      .reverse()
      .find((t) => !t.undone && t.files.some((f) => f.path === path && (f.state === "changed" || f.state === "reverted")));
    if (!turn || turn.index === undefined) {
      return;
    }
    const key = `${turn.runId}\n${path}`;
    if (!this.befores.has(key)) {
      this.befores.set(key, this.fileBefore(turn, path).catch(() => undefined));
    }
    const found = await this.befores.get(key);
    if (found && !found.lost && !found.binary && found.before !== null) {
      const text = document.getText();
      this.chat.update(turn.runId, (t) => noticeEditorText(t, path, text, found.before!));
    }
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

  dispose(): void {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
