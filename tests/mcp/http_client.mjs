// The official TypeScript SDK's streamable-HTTP client against `foehn mcp --http`:
//   node http_client.mjs URL TOKEN TOOL ARGUMENTS_JSON
// prints {"tools": [names], "result": {...}} on stdout. Approvals are answered "allow once".
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, token, tool, args] = process.argv.slice(2);
const client = new Client({ name: "ts-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async () => ({
  action: "accept",
  content: { decision: "allow once" },
}));
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name);
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
await transport.close();
process.stdout.write(JSON.stringify({ tools, result }) + "\n");
