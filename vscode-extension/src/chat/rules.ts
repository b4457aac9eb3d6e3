// Rules and custom commands in words and lines: why an approval asks, the rule "Always allow"
// saves, a rule as the Rules picker lists it, and which custom commands a typed `/word` may
// complete to. No VS Code or DOM API here.
import type { CustomCommand, Explanation, Rule } from "../protocol";

/** The foehn.approval.* setting that decides calls of a risk level when no rule does. */
const RISK_SETTING: Record<string, string> = {
  read_only: "foehn.approval.readOnly",
  write: "foehn.approval.write",
  destructive: "foehn.approval.destructive",
  undefined: "foehn.approval.undefined",
};

/** Why the person is asked, in VS Code's words: the rule or hook that asks, else the setting
 * for the call's risk (and, for a program, that its command line was assessed), or that full
 * access is always asked. Empty when the server did not say. */
export function whyAsked(why: Explanation | null | undefined): string {
  if (!why) {
    return "";
  }
  const risk = String(why.risk).replace(/_/g, "-");
  if (why.rule?.applied) {
    return `Asked because your rule at ${why.rule.source ?? "?"} says ask: ${ruleLine(why.rule)}.`;
  }
  if (why.source !== "table" && why.source !== "default") {
    return `Asked because the hook at ${why.source} says ask.`;
  }
  if (why.sandbox === "full") {
    return "Asked because it wants full access (your own rights and the network): that is always asked.";
  }
  const setting = RISK_SETTING[String(why.risk)] ?? "foehn.approval";
  const assessed = why.source === "table" ? `Its command line counts as ${risk}, and` : `It is a ${risk} call, and`;
  return `${assessed} your ${setting} setting asks before those.`;
}

/** Rules that matched the call but did not decide it, each with why (an allow rule that an
 * ask outranks, one that needs a sandbox it does not give). */
export function notApplied(why: Explanation | null | undefined): string[] {
  const rule = why?.rule;
  if (!rule) {
    return [];
  }
  const all = rule.applied ? (rule.conflicts ?? []) : [rule, ...(rule.conflicts ?? [])];
  return all.filter((r) => !r.applied).map((r) => `${ruleLine(r)} (${r.source ?? "?"}): ${r.note ?? "not applied"}`);
}

/** A rule on one line, as `foehn explain` shows it: only the keys it sets. */
export function ruleLine(rule: Rule): string {
  const keys = ["tool", "program", "args", "paths", "decision", "sandbox", "network", "message"] as const;
  return keys
    .filter((key) => rule[key] !== null && rule[key] !== undefined)
    .map((key) => `${key}=${JSON.stringify(rule[key])}`)
    .join(" ");
}

/** A rule as the person reads it in a list: what it covers, then what it decides. */
export function ruleSummary(rule: Rule): string {
  const covers = rule.program
    ? `${rule.tool} ${[rule.program, ...(rule.args ?? ["*"])].join(" ")}`
    : rule.paths
      ? `${rule.tool} on ${rule.paths.join(", ")}`
      : rule.tool;
  const reach = rule.network?.length ? `, reaching ${rule.network.join(", ")}` : "";
  const sandbox = rule.decision === "allow" && rule.program ? ` (${rule.sandbox ?? "read-only"} sandbox${reach})` : "";
  return `${rule.decision} ${covers}${sandbox}`;
}

/** The `/word` typed at the start of the input, up to the cursor, if any: completion is
 * offered only while the command's name is being typed. */
export function slashQuery(textBeforeCursor: string): string | undefined {
  const match = /^\/([A-Za-z0-9_-]*)$/.exec(textBeforeCursor);
  return match ? match[1] : undefined;
}

/** The commands whose name starts with `query` (case-insensitive), then those that contain it. */
export function rankCommands(commands: readonly CustomCommand[], query: string): CustomCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}
