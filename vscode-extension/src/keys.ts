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
