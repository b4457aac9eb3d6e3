// The status bar item: "Foehn" opens the chat; it spins while a turn runs and warns when the
// server cannot answer.
import * as vscode from "vscode";
import type { Conversation } from "./conversation";
import { type Server, statusMessage } from "./server";

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  private readonly subscriptions: vscode.Disposable[];

  constructor(server: Server, conversation: Conversation) {
    this.item.command = "foehn.focusChat";
    this.item.name = "Foehn";
    this.show(false, server);
    this.subscriptions = [
      server.onStatus(() => this.show(conversation.busy, server)),
      conversation.onBusy((busy) => this.show(busy, server)),
    ];
    this.item.show();
  }

  show(busy: boolean, server: Server): void {
    const status = server.status;
    const trouble = ["notFound", "failed", "noKey", "noModel", "restricted", "setupFailed"].includes(status.kind);
    this.item.text = busy ? "$(sync~spin) Foehn" : trouble ? "$(warning) Foehn" : "$(sparkle) Foehn";
    this.item.tooltip = trouble ? `Foehn: ${statusMessage(status)} (click to open the chat)` : "Foehn: open the chat";
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}
