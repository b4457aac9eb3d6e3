// Why Foehn's managed environment could not be made, in one message with its fix, and the one
// action that fixes it (pick an interpreter, open the log, retry). No VS Code API here.
import { type Choice, MINIMUM, servedRange } from "./interpreters";

export type SetupFailure =
  /** This build of the extension carries no server (not a platform .vsix). */
  | { kind: "noBundle"; detail: string }
  /** No interpreter fits: none found, too old, broken, or one the bundle has no packages for. */
  | { kind: "python"; choice: Choice; pythons: string[] }
  | { kind: "readOnly"; folder: string }
  | { kind: "diskFull"; folder: string }
  /** Another window held the lock for longer than we wait. */
  | { kind: "busy"; holder: string }
  /** pip failed for another reason: its last words. */
  | { kind: "install"; detail: string }
  /** The new environment's Foehn does not start or says another version. */
  | { kind: "verify"; detail: string }
  /** The person stopped it. */
  | { kind: "cancelled" };

export type { SetupAction } from "../chat/messages";
import type { SetupAction } from "../chat/messages";

export const ACTION_LABELS: Record<SetupAction, string> = {
  pickInterpreter: "Pick a Python…",
  openLog: "Open the log",
  retry: "Retry",
};

export interface SetupMessage {
  message: string;
  action: SetupAction;
}

const NEEDS = `Foehn needs Python ${MINIMUM.join(".")} or newer to run its server`;

function pythonMessage(choice: Choice, pythons: readonly string[]): string {
  const tried = choice.tried.map((t) => t.note.replace(/\.$/, "")).join("; ");
  const also = choice.notes.length ? ` ${choice.notes.join(" ")}` : "";
  switch (choice.problem) {
    case "tooOld":
      return `${NEEDS}; the Pythons found are too old: ${tried}.${also} Install a newer Python, or pick one.`;
    case "unsupported":
      return `This Foehn carries its packages for Python ${servedRange(pythons)}: ${tried}.${also} Install one of those, or pick one.`;
    case "broken":
      return `${NEEDS}, and the Python found does not work: ${tried}.${also} Pick another interpreter.`;
    default:
      return `${NEEDS}, and none was found${tried ? `: ${tried}` : " (no python3 or python on PATH)"}.${also} Install Python ${servedRange(pythons)}, or pick an interpreter.`;
  }
}

export function setupMessage(failure: SetupFailure): SetupMessage {
  switch (failure.kind) {
    case "noBundle":
      return {
        message: `Foehn's server is not in this build of the extension (${failure.detail}). Install the .vsix for your system, or set foehn.serverPath to a Foehn you installed.`,
        action: "openLog",
      };
    case "python":
      return { message: pythonMessage(failure.choice, failure.pythons), action: "pickInterpreter" };
    case "readOnly":
      return {
        message: `Foehn cannot write its environment to ${failure.folder}: the folder is read-only. Make it writable and retry, or set foehn.serverPath to a Foehn you installed.`,
        action: "retry",
      };
    case "diskFull":
      return {
        message: `The disk holding ${failure.folder} is full: Foehn's environment needs about 200 MB. Free some space and retry (nothing was left half made).`,
        action: "retry",
      };
    case "busy":
      return {
        message: `Another VS Code window (${failure.holder}) is still setting up Foehn's environment. Retry once it has finished.`,
        action: "retry",
      };
    case "install":
      return { message: `Installing Foehn's packages into its environment failed: ${failure.detail}`, action: "openLog" };
    case "verify":
      return { message: `Foehn's new environment does not start: ${failure.detail}`, action: "openLog" };
    case "cancelled":
      return { message: "Setting up Foehn's environment was stopped. Retry to set it up.", action: "retry" };
  }
}
