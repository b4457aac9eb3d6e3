// The foehn/confirm request: what the person is shown, and how their choice maps to the
// server's decision. No VS Code API here; extension.ts shows the modal and the diff.

export interface FilePreview {
  uri: string;
  before: string | null;
  after: string;
}

export interface ConfirmParams {
  runId: string;
  tool: string;
  arguments: unknown;
  risk: string;
  preview?: { summary?: string; diff?: string; files?: FilePreview[] };
}

export interface ConfirmAnswer {
  decision: "allow" | "allowRun" | "deny";
  reason?: string;
}

export const ALLOW = "Allow";
export const ALLOW_RUN = "Allow for this run";
export const DENY = "Deny";

export function confirmMessage(params: ConfirmParams): { message: string; detail: string } {
  const summary = params.preview?.summary ? `: ${params.preview.summary}` : "";
  return {
    message: `Foehn wants to run ${params.tool} (${params.risk.replace(/_/g, "-")})${summary}`,
    detail: JSON.stringify(params.arguments, null, 2),
  };
}

export function decisionFor(choice: string | undefined): ConfirmAnswer {
  switch (choice) {
    case ALLOW:
      return { decision: "allow" };
    case ALLOW_RUN:
      return { decision: "allowRun" };
    case DENY:
      return { decision: "deny", reason: "denied in VS Code" };
    default:
      return { decision: "deny", reason: "dismissed" };
  }
}
