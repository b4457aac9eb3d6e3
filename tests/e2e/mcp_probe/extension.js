// A test client for tests/e2e/test_vscode_setup.py: starts the MCP servers VS Code knows, lists
// the language-model tools they bring, calls the ones PROBE_CALLS names (JSON: [{tool, input}],
// matched against the end of the tool's name) through vscode.lm.invokeTool, VS Code's own MCP
// client, and writes what it saw to PROBE_OUT.
const fs = require("node:fs");
const vscode = require("vscode");

function text(result) {
  return result.content.map((part) => (typeof part.value === "string" ? part.value : JSON.stringify(part))).join("");
}

async function callTools() {
  const report = { tools: [], results: [] };
  try {
    await vscode.commands.executeCommand("workbench.mcp.startServer", "*", { waitForLiveTools: true });
    const foehn = () => vscode.lm.tools.filter((tool) => /foehn/i.test(tool.name));
    for (let waited = 0; foehn().length === 0 && waited < 60_000; waited += 500) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    report.tools = vscode.lm.tools.map((tool) => tool.name);
    for (const call of JSON.parse(process.env.PROBE_CALLS || "[]")) {
      const tool = foehn().find((t) => t.name.endsWith(call.tool));
      if (!tool) {
        report.results.push({ tool: call.tool, error: "no such tool" });
        continue;
      }
      try {
        const result = await vscode.lm.invokeTool(tool.name, { input: call.input, toolInvocationToken: undefined });
        report.results.push({ tool: tool.name, text: text(result) });
      } catch (error) {
        report.results.push({ tool: tool.name, error: String(error) });
      }
    }
  } catch (error) {
    report.error = String(error && error.stack ? error.stack : error);
  }
  fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(report));
}

exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand("foehnProbe.callTools", callTools));
};
