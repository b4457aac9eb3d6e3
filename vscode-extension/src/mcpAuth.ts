// Signing in to the MCP servers Foehn uses, the editor's half (server/foehn_lsp/lsp/mcp_sign_in.py):
// foehn/mcpSignIn asks the person before the sign-in page opens, naming the server and the page's
// host; foehn/secrets* keep the server's sign-ins in VS Code's SecretStorage, each under its own
// prefix so that they never meet the provider keys (keys.ts); and the rows of the MCP servers'
// picker. No VS Code API here: the callers hand in the storage and the dialogs.
import { webPage } from "./chat/elicit";
import type { McpServerState } from "./protocol";

/** The part of vscode.SecretStorage the requests use. */
export interface Secrets {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** Where the server's keys are kept in SecretStorage: below this prefix, never among the API keys. */
export const SIGN_IN_PREFIX = "foehn.mcpSignIn.";

function keyOf(method: string, params: unknown, withValue: boolean): { key: string; value: string } {
  const given = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  const key = given["key"];
  const value = given["value"];
  if (typeof key !== "string" || !key || (withValue && typeof value !== "string")) {
    throw new Error(`${method} takes {key: string${withValue ? ", value: string" : ""}}`);
  }
  return { key: SIGN_IN_PREFIX + key, value: typeof value === "string" ? value : "" };
}

/** The answers to foehn/secretsGet, foehn/secretsStore and foehn/secretsDelete; params of another
 * shape are refused (the server's sign-in then fails, and nothing is kept elsewhere). */
export function secretRequests(secrets: Secrets): {
  get(params: unknown): Promise<{ value: string | null }>;
  store(params: unknown): Promise<Record<string, never>>;
  remove(params: unknown): Promise<Record<string, never>>;
} {
  return {
    get: async (params) => ({ value: (await secrets.get(keyOf("foehn/secretsGet", params, false).key)) ?? null }),
    store: async (params) => {
      const { key, value } = keyOf("foehn/secretsStore", params, true);
      await secrets.store(key, value);
      return {};
    },
    remove: async (params) => {
      await secrets.delete(keyOf("foehn/secretsDelete", params, false).key);
      return {};
    },
  };
}

/** How the person is asked before a sign-in page opens, and how it opens. */
export interface SignInDialogs {
  /** A modal: true when the person chose `open`. */
  confirm(message: string, detail: string, open: string): PromiseLike<boolean>;
  /** VS Code's env.openExternal. */
  open(url: string): PromiseLike<boolean>;
}

export const OPEN_SIGN_IN = "Open the sign-in page";

/** foehn/mcpSignIn: asks first (the server by name, the page by its host), then opens the page;
 * `{opened: false}` when the person says no, the page is not a web page, or the params are not
 * `{server, url}`. */
export async function answerSignIn(params: unknown, dialogs: SignInDialogs): Promise<{ opened: boolean }> {
  const given = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
  const server = given["server"];
  const page = typeof given["url"] === "string" ? webPage(given["url"]) : undefined;
  if (typeof server !== "string" || !page) {
    return { opened: false };
  }
  const agreed = await dialogs.confirm(
    `The MCP server "${server}" asks you to sign in at ${page.host}.`,
    `Foehn opens ${page.toString()} in your browser. The sign-in comes back to Foehn and is kept in VS Code's secret storage.`,
    OPEN_SIGN_IN,
  );
  return { opened: agreed && (await dialogs.open(page.toString())) };
}

/** A row of the MCP servers' picker: the server, how Foehn reaches it and its state, and its
 * sign-in (`now` and `expiresAt` in seconds since the epoch). */
export function serverRow(server: McpServerState, now: number): { label: string; description: string; detail: string } {
  const signIn = !server.signsIn
    ? "no sign-in"
    : server.signedIn
      ? `signed in${server.expiresAt ? `, ${expiry(server.expiresAt - now)}` : ""}`
      : "not signed in";
  return {
    label: server.name,
    description: `${server.transport} · ${server.state}`,
    detail: server.error ? `${signIn} · ${server.error}` : signIn,
  };
}

function expiry(seconds: number): string {
  if (seconds <= 0) {
    return "the token has expired (renewed on the next call if the server allows)";
  }
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `expires in ${minutes} min` : `expires in ${Math.round(minutes / 60)} h`;
}

/** What the picker offers for a server: signing in to one Foehn signs in to, and out of one
 * whose sign-in is kept. */
export function signInActions(server: McpServerState): ("signIn" | "signOut")[] {
  return server.signsIn ? (server.signedIn ? ["signIn", "signOut"] : ["signIn"]) : [];
}
