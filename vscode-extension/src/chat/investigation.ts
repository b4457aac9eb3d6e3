// The `investigate` call's card body: the question it was asked, the read-only sub-run's
// summary and the files it cites, from the result's data (server/foehn_lsp/agent/investigate.py).
// The sub-run's own calls are not shown: the server sends only the one call and its result.
import { stringArg } from "./commandline";
import { escapeHtml as esc, renderMarkdown } from "./markdown";

export const INVESTIGATE = "investigate";

/** What an investigation found, as its result's data carries it. */
export interface Investigation {
  summary: string;
  files: string[];
  /** Tool rounds the sub-run used. */
  steps?: number;
  /** Why the sub-run stopped ("answer", "max_iterations", "budget", "error", ...). */
  reason?: string;
}

/** The investigation in a `tool_result`'s data; undefined for other tools or a shape that is
 * not one (the card then shows the plain output). */
export function investigationOf(tool: string, data: unknown): Investigation | undefined {
  if (tool !== INVESTIGATE || typeof data !== "object" || data === null) {
    return undefined;
  }
  const value = data as Record<string, unknown>;
  if (typeof value["summary"] !== "string") {
    return undefined;
  }
  const files = Array.isArray(value["files"]) ? value["files"].filter((f): f is string => typeof f === "string") : [];
  return {
    summary: value["summary"],
    files,
    steps: typeof value["steps"] === "number" ? value["steps"] : undefined,
    reason: typeof value["reason"] === "string" ? value["reason"] : undefined,
  };
}

/** Inside the card's collapsible part: the question, then the summary and cited files once
 * the sub-run has answered. */
export function renderInvestigation(args: unknown, found: Investigation | undefined): string {
  const question = `<div class="label">Question</div><div class="question">${esc(stringArg(args, "question") ?? "")}</div>`;
  if (!found) {
    return question;
  }
  const rounds = found.steps === undefined ? "" : ` · ${found.steps} tool round${found.steps === 1 ? "" : "s"}`;
  const stopped = found.reason && found.reason !== "answer" ? ` · stopped: ${esc(found.reason.replace(/_/g, " "))}` : "";
  const files = found.files.length
    ? `<div class="label">Files cited</div><ul class="cited">${found.files.map((f) => `<li><code>${esc(f)}</code></li>`).join("")}</ul>`
    : "";
  return (
    question +
    `<div class="label">Summary${rounds}${stopped}</div>` +
    `<div class="markdown investigation">${renderMarkdown(found.summary)}</div>` +
    files
  );
}
