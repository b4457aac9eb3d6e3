// Turning the server's foehn/runEvent stream into a Markdown log of a run: the streamed answer
// and each tool call with its risk, approval and outcome. No VS Code API here.

export interface RunEvent {
  runId: string;
  event: string;
  [key: string]: unknown;
}

interface Call {
  tool: string;
  risk: string;
  arguments: unknown;
  decision?: string;
  reason?: string;
  ok?: boolean;
  output?: string;
}

const MAX_ARGUMENTS = 200;
const MAX_OUTPUT_LINES = 8;

export class RunLog {
  readonly calls = new Map<string, Call>();
  answer = "";
  stopReason?: string;
  iterations = 0;
  status = "Starting…";

  constructor(
    readonly runId: string,
    public task: string,
  ) {}

  apply(event: RunEvent): void {
    const id = String(event["id"] ?? "");
    switch (event.event) {
      case "thinking":
        this.status = "Thinking…";
        break;
      case "text":
        this.answer += String(event["text"] ?? "");
        break;
      case "tool_call":
        this.calls.set(id, {
          tool: String(event["tool"]),
          risk: String(event["risk"]),
          arguments: event["arguments"],
        });
        this.answer = "";
        this.status = `Calling ${String(event["tool"])}…`;
        break;
      case "approval": {
        const call = this.calls.get(id);
        if (call) {
          call.decision = String(event["decision"]);
          call.reason = String(event["reason"] ?? "");
        }
        break;
      }
      case "tool_result": {
        const call = this.calls.get(id);
        if (call) {
          call.ok = Boolean(event["ok"]);
          call.output = String(event["output"] ?? "");
        }
        this.status = `${String(event["tool"])} ${event["ok"] ? "done" : "failed"}`;
        break;
      }
      case "done":
        this.stopReason = String(event["reason"]);
        this.iterations = Number(event["iterations"] ?? 0);
        this.answer = String(event["answer"] ?? this.answer);
        this.status = `Finished: ${this.stopReason.replace(/_/g, " ")}`;
        break;
    }
  }

  get finished(): boolean {
    return this.stopReason !== undefined;
  }

  markdown(): string {
    const lines = [`# Foehn: ${this.task}`, ""];
    lines.push(this.finished ? `_${this.status}, ${this.iterations} tool iterations._` : `_${this.status}_`);
    lines.push("", "## Answer", "", this.answer || "_(waiting)_", "");
    if (this.calls.size > 0) {
      lines.push("## Tool calls", "");
      for (const call of this.calls.values()) {
        lines.push(describe(call));
      }
    }
    return lines.join("\n") + "\n";
  }
}

function describe(call: Call): string {
  let shown = JSON.stringify(call.arguments);
  if (shown.length > MAX_ARGUMENTS) {
    shown = shown.slice(0, MAX_ARGUMENTS) + "…";
  }
  const outcome = call.ok === undefined ? "running" : call.ok ? "✓ ok" : "✗ failed";
  const denied = call.decision === "deny" ? ` (denied: ${call.reason})` : "";
  const head = `- \`${call.tool}\` ${shown} — ${call.risk} — ${outcome}${denied}`;
  if (!call.output) {
    return head;
  }
  const output = call.output.split("\n").slice(0, MAX_OUTPUT_LINES).map((l) => `    ${l}`);
  return [head, "", ...output, ""].join("\n");
}
