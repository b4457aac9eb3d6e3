// The `foehn` settings the server receives. Settings that decide where keys go, what runs and
// what is asked are sent only as the person set them at user level (inspect().globalValue),
// inside `userLevel`; the server ignores them anywhere else, so a workspace's
// .vscode/settings.json cannot point Foehn at its own server, load its own plugins or turn the
// prompts off. Everything else goes as VS Code resolves it (workspace values included).
import type { Middleware } from "vscode-languageclient/node";

/** Setting ids (below `foehn.`) honoured only from user level; the server has the same list. */
export const SENSITIVE = [
  "provider",
  "baseUrl",
  "apiKey",
  "approval.readOnly",
  "approval.write",
  "approval.destructive",
  "approval.undefined",
  "approval.tools",
  "pluginPaths",
  "trustWorkspace",
  "systemMessageFile",
  "mcp",
  "serverPath",
  "pythonPath",
] as const;

/** Settings of the extension alone (below `foehn.`), never sent: the server does not know them. */
export const EXTENSION_ONLY = ["mcp.offerTools"] as const;

/** The part of vscode.WorkspaceConfiguration this module reads. */
export interface Inspectable {
  inspect<T>(section: string): { globalValue?: T } | undefined;
}

const TOP_LEVEL = new Set(SENSITIVE.map((id) => id.split(".")[0]));

/**
 * The settings object for the server: the effective values of everything but the sensitive
 * keys, and `userLevel` with the sensitive keys the person set in their user settings.
 * `trustWorkspace` counts only in a workspace VS Code trusts as well.
 */
export function serverSettings(effective: unknown, config: Inspectable, workspaceTrusted: boolean): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  if (effective && typeof effective === "object") {
    for (const [key, value] of Object.entries(effective)) {
      if (!TOP_LEVEL.has(key)) {
        settings[key] = value;
      }
    }
  }
  const userLevel: Record<string, unknown> = {};
  for (const id of SENSITIVE) {
    const value = withoutExtensionOnly(id, config.inspect<unknown>(id)?.globalValue);
    if (value === undefined || (id === "trustWorkspace" && !workspaceTrusted)) {
      continue;
    }
    const [head, leaf] = id.split(".");
    if (leaf === undefined) {
      userLevel[head] = value;
    } else {
      const section = (userLevel[head] ??= {}) as Record<string, unknown>;
      section[leaf] = value;
    }
  }
  settings["userLevel"] = userLevel;
  return settings;
}

/** `value` of the setting `id` without the extension's own settings below it. */
function withoutExtensionOnly(id: string, value: unknown): unknown {
  const own = EXTENSION_ONLY.filter((e) => e.startsWith(`${id}.`)).map((e) => e.slice(id.length + 1));
  if (!own.length || typeof value !== "object" || value === null) {
    return value;
  }
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !own.includes(key)));
  return Object.keys(rest).length ? rest : undefined;
}

/**
 * `middleware` with the answer to the server's `workspace/configuration` request for the
 * `foehn` section replaced by serverSettings.
 */
export function withUserLevel(middleware: Middleware, read: () => Inspectable, workspaceTrusted: () => boolean): Middleware {
  return {
    ...middleware,
    workspace: {
      ...middleware.workspace,
      configuration: async (params, token, next) => {
        const answer = await next(params, token);
        if (!Array.isArray(answer)) {
          return answer;
        }
        return answer.map((value: unknown, index: number) =>
          params.items[index]?.section === "foehn" ? serverSettings(value, read(), workspaceTrusted()) : value,
        );
      },
    },
  };
}
