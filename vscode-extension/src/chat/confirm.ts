// The foehn/confirm request: where the person is asked (inline in the chat, or a modal), what a
// modal says, and how a choice maps to the server's decision. No VS Code API here.
import { policyText, reaching } from "./commandline";
import { ruleLine, whyAsked } from "./rules";
import type { ConfirmAnswer, ConfirmParams } from "../protocol";

export type { ConfirmAnswer, ConfirmParams, FilePreview } from "../protocol";

export const ALLOW = "Allow";
/** The server remembers an approval for the rest of the run (the turn) it was given in (DESIGN's one label). */
export const ALLOW_RUN = "Allow for this run";
export const ALLOW_FULL = "Allow with full access, once";
/** Allows, and saves the server's proposed rule to the user config: asked no more. */
export const ALLOW_ALWAYS = "Always allow";
export const DENY = "Deny";

export type Surface = "inline" | "modal";

/** Inline unless the person prefers the modal, the chat cannot show it, or the call wants
 * `full` sandbox rights (the person's own rights and the network): that is always modal. */
export function surfaceFor(params: ConfirmParams, preference: string, chatCanShow: boolean): Surface {
  if (params.sandbox === "full" || preference === "modal" || !chatCanShow) {
    return "modal";
  }
  return "inline";
}

export function confirmMessage(params: ConfirmParams): { message: string; detail: string; choices: string[] } {
  const summary = params.preview?.summary ? `: ${params.preview.summary}` : "";
  const full = params.sandbox === "full";
  const program = params.program ? `\nProgram: ${params.program}` : "";
  const network = params.network ?? [];
  const sandbox = params.sandbox
    ? full
      ? "\nSandbox: FULL — it runs with your own rights and the network."
      : `\nSandbox: ${params.sandbox} (${policyText(params.sandbox, network)})`
    : "";
  const reach = network.length && !full ? `\nIt may reach ${reaching(network)}.${grantLines(params).map((line) => `\nGranted: ${line}`).join("")}` : "";
  const remember = full ? "" : `\n"${ALLOW_RUN}" remembers: ${rememberText(params)}.`;
  const always = !full && params.proposedRule;
  const saves = always ? `\n"${ALLOW_ALWAYS}" saves this rule: ${ruleLine(params.proposedRule!)}.` : "";
  const why = whyAsked(params.why);
  return {
    message: `Foehn wants to run ${params.tool} (${params.risk.replace(/_/g, "-")})${summary}`,
    detail: `${why ? `${why}\n` : ""}${JSON.stringify(params.arguments, null, 2)}${program}${sandbox}${reach}${remember}${saves}`,
    choices: full ? [ALLOW_FULL, DENY] : always ? [ALLOW, ALLOW_RUN, ALLOW_ALWAYS, DENY] : [ALLOW, ALLOW_RUN, DENY],
  };
}

/** Where each domain the call may reach is granted, from the explanation (`domain at FILE:LINE`);
 * a domain the explanation does not place is named alone. */
export function grantLines(params: Pick<ConfirmParams, "network" | "why">): string[] {
  const sources = new Map((params.why?.network ?? []).map((grant) => [grant.domain, grant.source]));
  return (params.network ?? []).map((domain) => (sources.get(domain) ? `${domain} at ${sources.get(domain)}` : domain));
}

/** Exactly what "allow for this run" remembers: the server's words when it sends them, else
 * the same rule in words (the tool, its program and sandbox, the risk level). */
export function rememberText(params: ConfirmParams): string {
  let scope = params.remember;
  if (!scope) {
    scope = `${params.tool} calls`;
    scope += params.program ? ` that run \`${params.program}\`` : "";
    scope += `, at risk ${params.risk}`;
    scope += params.sandbox ? `, in the ${params.sandbox} sandbox` : "";
  }
  return `${scope}, until this run ends`;
}

export function decisionFor(choice: string | undefined): ConfirmAnswer {
  switch (choice) {
    case ALLOW:
    case ALLOW_FULL:
      return { decision: "allow" };
    case ALLOW_RUN:
      return { decision: "allowRun" };
    case ALLOW_ALWAYS:
      return { decision: "allowAlways" };
    case DENY:
      return { decision: "deny", reason: "denied in VS Code" };
    default:
      return { decision: "deny", reason: "dismissed" };
  }
}

/** The answer to an inline card: a denial carries the person's message to the model. */
export function inlineAnswer(decision: ConfirmAnswer["decision"], message?: string): ConfirmAnswer {
  if (decision !== "deny") {
    return { decision };
  }
  return { decision, reason: message?.trim() ? message.trim() : "denied in the chat" };
}
