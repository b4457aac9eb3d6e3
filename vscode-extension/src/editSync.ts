// The server's edits land in the editor through workspace/applyEdit, and it reads the result
// back from the buffers the editor syncs to it (textDocument/didChange). vscode-languageclient
// answers applyEdit as soon as VS Code applied the edit, while the didChange it caused may
// still be on its way; a server that reads right after (an undo's checkpoint, the next tool)
// would see the text from before. This middleware answers applyEdit only once every didChange
// begun meanwhile has been sent. No VS Code API here beyond the types.
import type { Middleware } from "vscode-languageclient/node";

export function withEditSync(middleware: Middleware): Middleware {
  const sending = new Set<Promise<void>>();
  return {
    ...middleware,
    didChange: (event, next) => {
      const sent = Promise.resolve(middleware.didChange ? middleware.didChange(event, next) : next(event));
      sending.add(sent);
      void sent.finally(() => sending.delete(sent)).catch(() => undefined);
      return sent;
    },
    workspace: {
      ...middleware.workspace,
      handleApplyEdit: async (params, next) => {
        // vscode-languageclient's own `next` takes no cancellation token (it calls it with the
        // params alone); this one has none to give.
        const inner = middleware.workspace?.handleApplyEdit;
        const applied = await (inner ? inner(params, next) : next(params, undefined as never));
        await Promise.allSettled([...sending]);
        return applied;
      },
    },
  };
}
