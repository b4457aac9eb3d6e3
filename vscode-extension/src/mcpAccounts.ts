// The MCP servers Foehn uses, in VS Code: the palette's MCP Servers… (each with its state and
// sign-in), Sign in to an MCP server and Sign out of an MCP server (the server's foehn.mcp.*
// commands), and the dialogs the server's foehn/mcpSignIn request goes through (mcpAuth.ts).
import * as vscode from "vscode";
import { OPEN_SIGN_IN, type SignInDialogs, serverRow, signInActions } from "./mcpAuth";
import { COMMANDS, type McpServerState } from "./protocol";
import type { Server } from "./server";

/** A modal, then the browser. */
export const SIGN_IN_DIALOGS: SignInDialogs = {
  confirm: async (message, detail, open) => (await vscode.window.showInformationMessage(message, { modal: true, detail }, open)) === OPEN_SIGN_IN,
  open: (url) => vscode.env.openExternal(vscode.Uri.parse(url)),
};

type Action = ReturnType<typeof signInActions>[number];
const ACTION_LABELS: Record<Action, string> = { signIn: "Sign in", signOut: "Sign out" };

function said(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A server picked from a list of those `which` allows (or the one named); `none` says why
 * there is nothing to pick. */
async function pickServer(
  server: Server,
  title: string,
  which: (s: McpServerState) => boolean,
  none: string,
  name?: string,
): Promise<McpServerState | undefined> {
  const { servers } = await server.send(COMMANDS.mcpList, []);
  const offered = servers.filter(which);
  const named = offered.find((s) => s.name === name);
  if (named) {
    return named;
  }
  if (!offered.length) {
    void vscode.window.showInformationMessage(`Foehn: ${servers.length ? none : "no MCP servers are configured (see [mcp.servers] in your config.toml)."}`);
    return undefined;
  }
  const now = Date.now() / 1000;
  const picked = await vscode.window.showQuickPick(
    offered.map((s) => ({ ...serverRow(s, now), state: s })),
    { title, matchOnDetail: true },
  );
  return picked?.state;
}

/** MCP Servers…: every server with its state and sign-in; a chosen one offers what fits it. */
export async function showMcpServers(server: Server): Promise<void> {
  let chosen: McpServerState | undefined;
  try {
    chosen = await pickServer(server, "Foehn: MCP servers", () => true, "");
  } catch (error) {
    void vscode.window.showErrorMessage(`Foehn: cannot list the MCP servers: ${said(error)}`);
    return;
  }
  const actions = chosen ? signInActions(chosen) : [];
  if (!chosen || !actions.length) {
    return;
  }
  const picked = await vscode.window.showQuickPick(
    actions.map((action) => ({ label: ACTION_LABELS[action], action })),
    { title: `Foehn: MCP server ${chosen.name}` },
  );
  if (picked) {
    await (picked.action === "signIn" ? signIn(server, chosen.name) : signOut(server, chosen.name));
  }
}

/** Signs in to a server again: the server shows the page (asked first, foehn/mcpSignIn) and
 * waits for the browser to come back; the notification can stop the wait. */
export async function signIn(server: Server, name?: string): Promise<void> {
  try {
    const chosen = await pickServer(server, "Foehn: sign in to an MCP server", (s) => s.signsIn, "none of your MCP servers is one Foehn signs in to.", name);
    if (!chosen) {
      return;
    }
    const { message } = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Foehn: signing in to ${chosen.name}…`, cancellable: true },
      (_progress, token) => server.send(COMMANDS.mcpSignIn, [chosen.name], token),
    );
    void vscode.window.showInformationMessage(`Foehn: ${message}`);
  } catch (error) {
    void vscode.window.showErrorMessage(`Foehn: the sign-in did not work: ${said(error)}`);
  }
}

/** Forgets a server's sign-in (its tokens in VS Code's secret storage) and stops it. */
export async function signOut(server: Server, name?: string): Promise<void> {
  try {
    const chosen = await pickServer(server, "Foehn: sign out of an MCP server", (s) => s.signedIn, "you are not signed in to any of your MCP servers.", name);
    if (!chosen) {
      return;
    }
    const { forgotten } = await server.send(COMMANDS.mcpSignOut, [chosen.name]);
    void vscode.window.showInformationMessage(forgotten ? `Foehn: signed out of ${chosen.name}.` : `Foehn: no sign-in was kept for ${chosen.name}.`);
  } catch (error) {
    void vscode.window.showErrorMessage(`Foehn: ${said(error)}`);
  }
}
