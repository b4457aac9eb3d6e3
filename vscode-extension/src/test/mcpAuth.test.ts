import assert from "node:assert/strict";
import { test } from "node:test";
import { isApiKeySecret, secretName } from "../keys";
import { OPEN_SIGN_IN, SIGN_IN_PREFIX, type SignInDialogs, answerSignIn, secretRequests, serverRow, signInActions } from "../mcpAuth";
import type { McpServerState } from "../protocol";

/** vscode.SecretStorage as a map, counting what was written. */
function fakeSecrets(initial: Record<string, string> = {}) {
  const kept = new Map(Object.entries(initial));
  return {
    kept,
    get: async (key: string) => kept.get(key),
    store: async (key: string, value: string) => void kept.set(key, value),
    delete: async (key: string) => void kept.delete(key),
  };
}

test("a sign-in kept through foehn/secrets* comes back, and is gone once deleted", async () => {
  const secrets = fakeSecrets();
  const requests = secretRequests(secrets);
  assert.deepEqual(await requests.get({ key: "tracker-0123" }), { value: null });
  assert.deepEqual(await requests.store({ key: "tracker-0123", value: '{"tokens": {"access_token": "t"}}' }), {});
  assert.deepEqual(await requests.get({ key: "tracker-0123" }), { value: '{"tokens": {"access_token": "t"}}' });
  assert.deepEqual([...secrets.kept.keys()], [`${SIGN_IN_PREFIX}tracker-0123`]);
  assert.deepEqual(await requests.remove({ key: "tracker-0123" }), {});
  assert.deepEqual(await requests.get({ key: "tracker-0123" }), { value: null });
  assert.equal(secrets.kept.size, 0);
});

test("the server's keys never reach the provider keys", async () => {
  const secrets = fakeSecrets({ [secretName("openai")]: "sk-real" });
  const requests = secretRequests(secrets);
  assert.deepEqual(await requests.get({ key: secretName("openai") }), { value: null });
  await requests.store({ key: secretName("openai"), value: "overwritten?" });
  await requests.remove({ key: secretName("openai") });
  assert.equal(secrets.kept.get(secretName("openai")), "sk-real");
  assert.ok(!isApiKeySecret(`${SIGN_IN_PREFIX}${secretName("openai")}`));
  assert.ok(isApiKeySecret(secretName("openai")));
  assert.ok(isApiKeySecret("foehn.apiKey"));
});

test("requests of another shape are refused and keep nothing", async () => {
  const secrets = fakeSecrets();
  const requests = secretRequests(secrets);
  await assert.rejects(requests.get({}), /foehn\/secretsGet takes \{key: string\}/);
  await assert.rejects(requests.get(null), /foehn\/secretsGet takes/);
  await assert.rejects(requests.store({ key: "k" }), /foehn\/secretsStore takes \{key: string, value: string\}/);
  await assert.rejects(requests.store({ key: "", value: "v" }), /foehn\/secretsStore takes/);
  await assert.rejects(requests.remove({ key: 3 }), /foehn\/secretsDelete takes/);
  assert.equal(secrets.kept.size, 0);
});

/** Dialogs that answer as told and record what they were asked and opened. */
function dialogs(agree: boolean, opens = true) {
  const asked: { message: string; detail: string; open: string }[] = [];
  const opened: string[] = [];
  const port: SignInDialogs = {
    confirm: async (message, detail, open) => {
      asked.push({ message, detail, open });
      return agree;
    },
    open: async (url) => {
      opened.push(url);
      return opens;
    },
  };
  return { port, asked, opened };
}

const PAGE = "https://auth.tracker.example/authorize?client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcb";

test("the sign-in page opens only after the person agrees, naming the server and the page's host", async () => {
  const yes = dialogs(true);
  assert.deepEqual(await answerSignIn({ server: "tracker", url: PAGE }, yes.port), { opened: true });
  assert.equal(yes.asked[0]!.message, 'The MCP server "tracker" asks you to sign in at auth.tracker.example.');
  assert.match(yes.asked[0]!.detail, /Foehn opens https:\/\/auth\.tracker\.example\/authorize\?client_id=c/);
  assert.match(yes.asked[0]!.detail, /secret storage/);
  assert.equal(yes.asked[0]!.open, OPEN_SIGN_IN);
  assert.deepEqual(yes.opened, [PAGE]);
});

test("declined, the page stays shut; a browser that did not open is said so", async () => {
  const no = dialogs(false);
  assert.deepEqual(await answerSignIn({ server: "tracker", url: PAGE }, no.port), { opened: false });
  assert.equal(no.asked.length, 1);
  assert.deepEqual(no.opened, []);
  const failing = dialogs(true, false);
  assert.deepEqual(await answerSignIn({ server: "tracker", url: PAGE }, failing.port), { opened: false });
});

test("a page that is not http(s), or params of another shape, is never asked about nor opened", async () => {
  for (const params of [
    { server: "tracker", url: "command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D" },
    { server: "tracker", url: "file:///etc/passwd" },
    { server: "tracker", url: "not a url" },
    { server: 3, url: PAGE },
    { url: PAGE },
    null,
  ]) {
    const seen = dialogs(true);
    assert.deepEqual(await answerSignIn(params, seen.port), { opened: false }, JSON.stringify(params));
    assert.equal(seen.asked.length + seen.opened.length, 0);
  }
});

const TRACKER: McpServerState = {
  name: "tracker",
  transport: "http",
  state: "running",
  error: null,
  signsIn: true,
  signedIn: true,
  expiresAt: 10_000 + 2 * 3600,
};

test("the servers' picker says each one's state and sign-in, and offers what fits it", () => {
  assert.deepEqual(serverRow(TRACKER, 10_000), { label: "tracker", description: "http · running", detail: "signed in, expires in 2 h" });
  assert.equal(serverRow({ ...TRACKER, expiresAt: 10_000 + 600 }, 10_000).detail, "signed in, expires in 10 min");
  assert.match(serverRow({ ...TRACKER, expiresAt: 9_000 }, 10_000).detail, /^signed in, the token has expired/);
  const out = { ...TRACKER, signedIn: false, expiresAt: null, state: "failed" as const, error: "needs a sign-in" };
  assert.deepEqual(serverRow(out, 10_000), { label: "tracker", description: "http · failed", detail: "not signed in · needs a sign-in" });
  const git: McpServerState = { ...TRACKER, name: "git", transport: "stdio", signsIn: false, signedIn: false, expiresAt: null };
  assert.equal(serverRow(git, 10_000).detail, "no sign-in");
  assert.deepEqual(signInActions(TRACKER), ["signIn", "signOut"]);
  assert.deepEqual(signInActions(out), ["signIn"]);
  assert.deepEqual(signInActions(git), []);
});
