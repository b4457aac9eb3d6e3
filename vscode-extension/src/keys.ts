// API keys, one per provider, in VS Code's SecretStorage (never in settings). The server gets
// each stored key in the provider's own environment variable, so switching provider needs no
// new key if one was stored before. The pure parts take the stored keys as a plain record.

export const KEY_PROVIDERS = ["mistral", "openai", "anthropic"] as const;
export type KeyProvider = (typeof KEY_PROVIDERS)[number];

export const KEY_VARIABLES: Record<KeyProvider, string> = {
  mistral: "MISTRAL_API_KEY",
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
};

/** The secret's name for a provider's key. */
export function secretName(provider: KeyProvider): string {
  return `foehn.apiKey.${provider}`;
}

/** Whether a secret is a provider's key (this module's; the server's MCP sign-ins are kept
 * beside them, mcpAuth.ts). */
export function isApiKeySecret(name: string): boolean {
  return name === "foehn.apiKey" || name.startsWith("foehn.apiKey.");
}

/** Where a key is read from: context.secrets in the extension, a record in tests. */
export interface Keys {
  get(name: string): PromiseLike<string | undefined>;
}

export function isKeyProvider(value: string): value is KeyProvider {
  return (KEY_PROVIDERS as readonly string[]).includes(value);
}

/** The environment variables for the server: every stored key under its provider's variable.
 * A key stored before keys were per provider (`foehn.apiKey`) goes to the chosen provider. */
export async function keyEnvironment(keys: Keys, provider: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const name of KEY_PROVIDERS) {
    const key = await keys.get(secretName(name));
    if (key) {
      env[KEY_VARIABLES[name]] = key;
    }
  }
  const legacy = await keys.get("foehn.apiKey");
  if (legacy && isKeyProvider(provider) && !env[KEY_VARIABLES[provider]]) {
    env[KEY_VARIABLES[provider]] = legacy;
  }
  return env;
}

/** Where a provider's key would come from, for the pickers. */
export interface KeyState {
  /** Kept in VS Code's secret storage. */
  stored: boolean;
  /** The variable set in the environment VS Code was started with, if any. */
  environment?: string;
}

export async function keyStates(keys: Keys, environment: Record<string, string | undefined>): Promise<Record<KeyProvider, KeyState>> {
  const states = {} as Record<KeyProvider, KeyState>;
  for (const provider of KEY_PROVIDERS) {
    const variable = KEY_VARIABLES[provider];
    states[provider] = { stored: Boolean(await keys.get(secretName(provider))), ...(environment[variable] ? { environment: variable } : {}) };
  }
  return states;
}

export const PROVIDERS = [
  { id: "mistral", detail: "Mistral's hosted models" },
  { id: "openai", detail: "OpenAI or any compatible server: Ollama, vLLM, llama.cpp, LM Studio" },
  { id: "anthropic", detail: "Anthropic's Claude models" },
  { id: "local", detail: "The small embedded model: offline, demo-grade" },
] as const;

/** A picker's rows: each provider, the one in use marked, and whether it has a key. */
export function providerItems(
  current: string,
  states: Record<KeyProvider, KeyState>,
  only: "all" | "keyed" = "all",
): { label: string; description: string; detail: string }[] {
  const rows = PROVIDERS.filter((p) => only === "all" || isKeyProvider(p.id)).map((p) => {
    const state = isKeyProvider(p.id) ? states[p.id] : undefined;
    const key = !state
      ? "no key needed"
      : state.stored
        ? "key set"
        : state.environment
          ? `key from ${state.environment}`
          : "no key";
    return {
      label: p.id,
      description: [p.id === current ? "current" : "", key].filter(Boolean).join(" · "),
      detail: p.detail,
    };
  });
  return rows.sort((a, b) => Number(b.label === current) - Number(a.label === current));
}
