// The walkthrough ticks the steps already done: the server found and running, a provider
// chosen, its key in place, a first question asked. Each is marked complete with VS Code's
// welcome.markStepComplete (the walkthrough's own "Mark Done") when it is seen to be done: a
// context-key completion event would not tick a step whose key is already true when VS Code
// registers the walkthrough, which it does lazily, when first shown.
import * as vscode from "vscode";
import type { ServerStatus } from "./chat/messages";

export const WALKTHROUGH = "foehn.foehn#foehn.start";

export type Step = "server" | "provider" | "key" | "demo";

/** The steps a server status shows done. */
export function stepsDone(status: ServerStatus): Step[] {
  const running = status.kind === "ready" || status.kind === "noKey" || status.kind === "noModel" || status.kind === "restricted";
  const chosen = (status.kind === "ready" || status.kind === "noKey") && Boolean(status.provider);
  return [
    ...(running ? (["server"] as const) : []),
    ...(chosen ? (["provider"] as const) : []),
    ...(status.kind === "ready" ? (["key"] as const) : []),
  ];
}

export class WalkthroughProgress {
  private readonly marked = new Set<Step>();

  constructor(private readonly output: vscode.LogOutputChannel) {}

  async done(steps: readonly Step[]): Promise<void> {
    for (const step of steps) {
      if (this.marked.has(step)) {
        continue;
      }
      this.marked.add(step);
      // VS Code saves the progress first and then looks the step up, which fails (after
      // saving) while the walkthrough is not registered yet; the tick shows once it is.
      await vscode.commands.executeCommand("welcome.markStepComplete", `${WALKTHROUGH}#${step}`).then(
        () => undefined,
        (error: unknown) => this.output.debug(`walkthrough step ${step}: ${String(error)}`),
      );
    }
  }

  async open(): Promise<void> {
    await vscode.commands.executeCommand("workbench.action.openWalkthrough", WALKTHROUGH, false);
  }
}
