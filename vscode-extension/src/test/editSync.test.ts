import assert from "node:assert/strict";
import { test } from "node:test";
import type { Middleware } from "vscode-languageclient/node";
import { withEditSync } from "../editSync";

type ApplyEdit = NonNullable<NonNullable<Middleware["workspace"]>["handleApplyEdit"]>;
type DidChange = NonNullable<Middleware["didChange"]>;

test("applyEdit is answered only after the didChange it caused has been sent", async () => {
  const wire: string[] = [];
  const middleware = withEditSync({});
  const didChange = middleware.didChange as DidChange;
  const applyEdit = middleware.workspace!.handleApplyEdit as ApplyEdit;
  // VS Code applies the edit; the document's change event fires before applyEdit resolves,
  // and its notification takes a while to be written.
  const next = async () => {
    void didChange({} as never, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      wire.push("didChange");
    });
    return { applied: true };
  };
  const answer = await applyEdit({ edit: {} }, next as never);
  wire.push("applyEdit answered");
  assert.deepEqual(answer, { applied: true });
  assert.deepEqual(wire, ["didChange", "applyEdit answered"]);
});

test("a failed didChange does not keep the answer back", async () => {
  const middleware = withEditSync({});
  const didChange = middleware.didChange as DidChange;
  const applyEdit = middleware.workspace!.handleApplyEdit as ApplyEdit;
  const next = async () => {
    void (didChange({} as never, async () => Promise.reject(new Error("gone"))) as Promise<void>).catch(() => undefined);
    return { applied: false };
  };
  assert.deepEqual(await applyEdit({ edit: {} }, next as never), { applied: false });
});
