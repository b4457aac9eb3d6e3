import assert from "node:assert/strict";
import { test } from "node:test";
import { managedLaunch } from "../discovery";
import { mcpServers } from "../mcpServers";

test("one MCP server per folder, started as the chat's server is, offering writes to ask about", () => {
  const launch = managedLaunch("/storage/python/envs/k/bin/python");
  const [server] = mcpServers(launch, ["/work/app"], false, "0.1.0");
  assert.deepEqual(server, {
    label: "Foehn",
    command: "/storage/python/envs/k/bin/python",
    args: ["-I", "-m", "foehn_lsp", "mcp", "--workspace", "/work/app", "--allow-writes"],
    folder: "/work/app",
    version: "0.1.0",
  });
});

test("in Restricted Mode only read-only tools are offered; several folders are named", () => {
  const servers = mcpServers({ command: "/opt/foehn", prefix: [], source: "foehn.serverPath" }, ["/w/a", "/w/b"], true, "0.1.0");
  assert.deepEqual(
    servers.map((s) => [s.label, s.args, s.version]),
    [
      ["Foehn: a", ["mcp", "--workspace", "/w/a"], "0.1.0-read-only"],
      ["Foehn: b", ["mcp", "--workspace", "/w/b"], "0.1.0-read-only"],
    ],
  );
});
