import assert from "node:assert/strict";
import { test } from "node:test";
import { keyEnvironment, keyStates, providerItems, secretName } from "../keys";

function store(values: Record<string, string>) {
  return { get: async (name: string) => values[name] };
}

test("each stored key goes to its provider's variable", async () => {
  const env = await keyEnvironment(store({ [secretName("mistral")]: "m-key", [secretName("anthropic")]: "a-key" }), "mistral");
  assert.deepEqual(env, { MISTRAL_API_KEY: "m-key", ANTHROPIC_API_KEY: "a-key" });
});

test("a key stored before keys were per provider serves the chosen provider only", async () => {
  assert.deepEqual(await keyEnvironment(store({ "foehn.apiKey": "old" }), "openai"), { OPENAI_API_KEY: "old" });
  assert.deepEqual(await keyEnvironment(store({ "foehn.apiKey": "old" }), "local"), {});
  assert.deepEqual(
    await keyEnvironment(store({ "foehn.apiKey": "old", [secretName("openai")]: "new" }), "openai"),
    { OPENAI_API_KEY: "new" },
  );
});

test("the pickers mark the provider in use and say which providers have a key", async () => {
  const states = await keyStates(store({ [secretName("mistral")]: "m-key" }), { OPENAI_API_KEY: "sk-env" });
  const items = providerItems("openai", states);
  assert.deepEqual(
    items.map((i) => [i.label, i.description]),
    [
      ["openai", "current · key from OPENAI_API_KEY"],
      ["mistral", "key set"],
      ["anthropic", "no key"],
      ["local", "no key needed"],
    ],
  );
  assert.deepEqual(
    providerItems("local", states, "keyed").map((i) => i.label),
    ["mistral", "openai", "anthropic"],
  );
});
