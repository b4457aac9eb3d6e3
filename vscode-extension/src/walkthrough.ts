// The walkthrough ticks the steps already done: its steps complete on context keys
// (package.json's completionEvents) that follow the server's status and whether a question
// was asked. VS Code's walkthroughs service only ticks a step when its key *changes* to true
// after the walkthrough was registered, and it registers them when first needed (at startup
// with the welcome page, else when a walkthrough opens). So opening it from here first clears
// the keys, then sets them again.
import * as vscode from "vscode";
import type { ServerStatus } from "./chat/messages";

export const WALKTHROUGH = "foehn.foehn#foehn.start";

export class WalkthroughProgress {
  private keys: Record<string, boolean> = {};

  /** The keys for a server status; `asked`: the workspace has a chat with a turn. */
  async follow(status: ServerStatus, asked?: boolean): Promise<void> {
    const running = status.kind === "ready" || status.kind === "noKey" || status.kind === "restricted";
    const next = {
      "foehn.serverFound": running,
      "foehn.providerChosen": (status.kind === "ready" || status.kind === "noKey") && Boolean(status.provider),
      "foehn.keyReady": status.kind === "ready",
      "foehn.asked": asked ?? this.keys["foehn.asked"] ?? false,
    };
    await this.set(next);
  }

  async asked(): Promise<void> {
    await this.set({ ...this.keys, "foehn.asked": true });
  }

  async open(): Promise<void> {
    const known = this.keys;
    await this.set(Object.fromEntries(Object.keys(known).map((key) => [key, false])));
    await vscode.commands.executeCommand("workbench.action.openWalkthrough", WALKTHROUGH, false);
    await this.set(known);
  }

  private async set(keys: Record<string, boolean>): Promise<void> {
    this.keys = keys;
    for (const [key, value] of Object.entries(keys)) {
      await vscode.commands.executeCommand("setContext", key, value);
    }
  }
}
