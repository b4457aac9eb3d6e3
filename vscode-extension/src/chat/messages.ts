// The messages between the extension host and the chat webview, both ways, as discriminated
// unions. The host owns the state (chat/state.ts) and posts it; the webview draws it and posts
// back what the person did. No VS Code or DOM API here.
import type { CustomCommand, Decision, ElicitAnswer } from "../protocol";
import { SETTINGS_QUERIES, STATUS_COMMANDS, type StatusCommand } from "./actions";
import type { Meter, QueuedMessage, Turn } from "./state";

/** What the view says about the server before the first question. */
export type ServerStatus =
  | { kind: "starting" }
  | {
      kind: "ready";
      provider: string;
      model: string;
      embedded: boolean;
      /** An OpenAI-compatible server with no key: its requests go without Authorization. */
      keyless?: boolean;
    }
  | { kind: "notFound"; message: string }
  | { kind: "noKey"; provider: string }
  /** No provider chosen, no offline model: the person chooses one or the other. */
  | { kind: "noModel" }
  | { kind: "restricted" }
  | { kind: "failed"; message: string }
  /** The managed environment is being made (python/environment.ts). */
  | { kind: "settingUp" }
  /** It could not be: why, and the one action that fixes it. */
  | { kind: "setupFailed"; message: string; action: SetupAction };

/** What fixes a failed setup (python/failures.ts's SetupAction). */
export type SetupAction = "pickInterpreter" | "openLog" | "retry";

export interface Chip {
  id: string;
  /** What the chip says: "app.py", "app.py:3-7", "@README.md". */
  label: string;
  kind: "file" | "selection" | "mention";
}

/** A saved chat offered in the empty chat view. */
export interface RecentChat {
  id: string;
  title: string;
  /** "3 turns · 5 min ago". */
  detail: string;
}

export type HostMessage =
  | { type: "reset"; session?: string; title: string; turns: Turn[]; meter?: Meter }
  | { type: "turn"; turn: Turn }
  | { type: "status"; status: ServerStatus }
  | { type: "chips"; chips: Chip[] }
  | { type: "meter"; meter?: Meter }
  | { type: "busy"; busy: boolean }
  /** The messages waiting for the running turn to end, in order. */
  | { type: "queued"; queued: QueuedMessage[] }
  | { type: "mentions"; query: string; files: string[] }
  /** The custom commands a typed `/query` completes to. */
  | { type: "slashCommands"; query: string; commands: CustomCommand[] }
  | { type: "focus"; prefill?: string }
  | { type: "recent"; chats: RecentChat[] }
  /** The clipboard holds the code of the Copy button that sent `token`. */
  | { type: "copied"; token: string };

export type Scope = "turn" | "file";

export type ViewMessage =
  | { type: "ready" }
  /** `mode` "plan": plan with read-only calls first; absent: act. */
  | { type: "ask"; text: string; mode?: "plan" }
  | { type: "stop" }
  | { type: "approve"; key: string; decision: Decision; message?: string }
  /** The answer to an MCP server's question: `content` by field name, as the inputs hold it
   * (text, a checkbox's state, the values of the choices ticked); only with accept. */
  | { type: "elicit"; key: string; answer: ElicitAnswer["action"]; content?: Record<string, unknown> }
  | { type: "openDiff"; key: string }
  | { type: "openFileDiff"; runId: string; path: string }
  | { type: "copy"; text: string; token: string }
  | { type: "insert"; text: string }
  | { type: "apply"; text: string; path?: string }
  | { type: "runInTerminal"; text: string }
  | { type: "retry"; runId: string }
  | { type: "openSettings"; query: (typeof SETTINGS_QUERIES)[number] }
  | { type: "resume"; session: string }
  | { type: "dismissHint"; hint: "keyless" }
  | { type: "keep"; runId: string; path?: string }
  | { type: "undo"; runId: string; path?: string }
  | { type: "restore"; runId: string }
  | { type: "newChat" }
  /** Take a queued message back before it is sent. */
  | { type: "unqueue"; id: string }
  | { type: "history" }
  | { type: "removeChip"; id: string }
  | { type: "mention"; query: string }
  | { type: "slash"; query: string }
  | { type: "command"; command: StatusCommand };

const DECISIONS: readonly string[] = ["allow", "allowRun", "allowAlways", "deny"] satisfies Decision[];
const ANSWERS: readonly string[] = ["accept", "decline", "cancel"] satisfies ElicitAnswer["action"][];

/** The webview's message, or undefined if it is not one (the host trusts nothing it posts). */
export function parseViewMessage(raw: unknown): ViewMessage | undefined {
  if (typeof raw !== "object" || raw === null || typeof (raw as { type?: unknown }).type !== "string") {
    return undefined;
  }
  const m = raw as Record<string, unknown>;
  const str = (k: string) => typeof m[k] === "string";
  const optStr = (k: string) => m[k] === undefined || typeof m[k] === "string";
  switch (m["type"]) {
    case "ready":
    case "stop":
    case "newChat":
    case "history":
      return m as ViewMessage;
    case "ask":
      return str("text") && (m["mode"] === undefined || m["mode"] === "plan") ? (m as ViewMessage) : undefined;
    case "approve":
      return str("key") && DECISIONS.includes(m["decision"] as string) && optStr("message")
        ? (m as ViewMessage)
        : undefined;
    case "elicit":
      return str("key") &&
        ANSWERS.includes(m["answer"] as string) &&
        (m["content"] === undefined || (typeof m["content"] === "object" && m["content"] !== null && !Array.isArray(m["content"])))
        ? (m as ViewMessage)
        : undefined;
    case "openDiff":
      return str("key") ? (m as ViewMessage) : undefined;
    case "openFileDiff":
      return str("runId") && str("path") ? (m as ViewMessage) : undefined;
    case "copy":
      return str("text") && str("token") ? (m as ViewMessage) : undefined;
    case "insert":
    case "runInTerminal":
      return str("text") ? (m as ViewMessage) : undefined;
    case "apply":
      return str("text") && optStr("path") ? (m as ViewMessage) : undefined;
    case "retry":
      return str("runId") ? (m as ViewMessage) : undefined;
    case "openSettings":
      return (SETTINGS_QUERIES as readonly unknown[]).includes(m["query"]) ? (m as ViewMessage) : undefined;
    case "resume":
      return str("session") ? (m as ViewMessage) : undefined;
    case "dismissHint":
      return m["hint"] === "keyless" ? (m as ViewMessage) : undefined;
    case "keep":
    case "undo":
      return str("runId") && optStr("path") ? (m as ViewMessage) : undefined;
    case "restore":
      return str("runId") ? (m as ViewMessage) : undefined;
    case "removeChip":
    case "unqueue":
      return str("id") ? (m as ViewMessage) : undefined;
    case "mention":
    case "slash":
      return str("query") ? (m as ViewMessage) : undefined;
    case "command":
      return (STATUS_COMMANDS as readonly unknown[]).includes(m["command"]) ? (m as ViewMessage) : undefined;
  }
  return undefined;
}
