// A saved session's turns as the chat draws them (foehn.session.load's answer, typed in
// protocol.ts). Pure and unit-tested.
import type { SavedMessage, SavedSession, SessionSummary } from "./protocol";
import type { Block, Turn } from "./chat/state";

/** What the server adds after the person's words in a saved task: the editor's context, the
 * mentioned files, notes such as "[Foehn] The person undid turn 2". */
const ADDED = /\n\n(?=\[Foehn\] |The person is looking at |The person mentioned @)/;

/** The person's own words of a saved task, and whether context was added to them. */
export function personText(task: string): { text: string; withContext: boolean } {
  const cut = ADDED.exec(task);
  return cut ? { text: task.slice(0, cut.index), withContext: true } : { text: task, withContext: false };
}

/** A saved session's turns as the chat draws them: each turn's text and tool calls from the
 * saved messages when they line up with the turns (one person's message per turn; not after
 * a compaction summarised them), else its answer. Risk levels are not saved, so resumed cards
 * show none. */
export function turnsOf(session: SavedSession): Turn[] {
  const undone = undoneTurns(session.turns);
  const filesUndone = undoneFiles(session.turns);
  const asked = session.turns.filter((t) => !t.undoOf?.length);
  const streams = blocksByTurn(session.messages ?? [], asked.length);
  return asked.map((t, i) => ({
    runId: `${session.id}:${t.index}`,
    index: t.index,
    task: personText(t.task).text,
    context: personText(t.task).withContext ? ["editor context"] : [],
    blocks: streams?.[i]?.length ? streams[i]! : t.answer && t.reason !== "error" ? [{ kind: "text" as const, text: t.answer }] : [],
    status: "done" as const,
    stop: t.reason,
    // What kind of failure it was is not saved; the card still says what happened.
    ...(t.reason === "error" ? { failure: { kind: "saved" as const, message: t.answer } } : {}),
    iterations: t.iterations,
    files: t.files.map((f) => ({
      ...f,
      state: undone.has(t.index) || filesUndone.get(t.index)?.has(f.path) ? ("undone" as const) : ("kept" as const),
    })),
    undone: undone.has(t.index),
  }));
}

/**
 * The asked turns that are undone after all the session's turns. An undo of turns from `m` on
 * puts the workspace back as it was before turn `m`: what was undone then, and every asked turn
 * since. Undoing an undo (a redo) is the same rule, so the turns it brought back count again.
 */
export function undoneTurns(turns: readonly { index: number; undoOf?: readonly number[]; paths?: readonly string[] }[]): Set<number> {
  const sorted = [...turns].sort((a, b) => a.index - b.index);
  const after = new Map<number, Set<number>>();
  let current = new Set<number>();
  for (const turn of sorted) {
    // An undo of some files (`paths`) leaves its turns in effect: undoneFiles says which files.
    if (turn.undoOf?.length && !turn.paths?.length) {
      const from = Math.min(...turn.undoOf);
      const earlier = sorted.filter((t) => t.index < from && after.has(t.index)).at(-1);
      current = new Set(earlier ? after.get(earlier.index) : []);
      for (const t of sorted) {
        if (t.index >= from && t.index < turn.index && !t.undoOf?.length) {
          current.add(t.index);
        }
      }
    }
    after.set(turn.index, current);
  }
  return current;
}

/** The files an undo of some files (`paths`) put back, by the turn they were put back to before. */
export function undoneFiles(turns: readonly { undoOf?: readonly number[]; paths?: readonly string[] }[]): Map<number, Set<string>> {
  const undone = new Map<number, Set<string>>();
  for (const turn of turns) {
    if (turn.paths?.length && turn.undoOf?.length) {
      const to = Math.min(...turn.undoOf);
      undone.set(to, new Set([...(undone.get(to) ?? []), ...turn.paths]));
    }
  }
  return undone;
}

function blocksByTurn(messages: readonly SavedMessage[], turns: number): Block[][] | undefined {
  const streams: Block[][] = [];
  for (const message of messages) {
    if (message.role === "user") {
      streams.push([]);
      continue;
    }
    const blocks = streams[streams.length - 1];
    if (!blocks) {
      continue;
    }
    if (message.role === "assistant") {
      if (message.content.trim()) {
        blocks.push({ kind: "text", text: message.content });
      }
      for (const call of message.tool_calls ?? []) {
        blocks.push({ kind: "tool", card: { id: call.id, tool: call.name, arguments: parsed(call.arguments), risk: "" } });
      }
    } else if (message.role === "tool") {
      for (const [i, block] of blocks.entries()) {
        if (block.kind === "tool" && block.card.id === message.call_id) {
          blocks[i] = { kind: "tool", card: { ...block.card, ok: !message.is_error, output: message.content } };
        }
      }
    }
  }
  return streams.length === turns ? streams : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** "3 turns · 5 min ago" for the history picker. */
export function describeSession(session: SessionSummary, now: number): string {
  const minutes = Math.max(0, Math.round((now - session.updated * 1000) / 60_000));
  const ago =
    minutes < 1 ? "just now" : minutes < 60 ? `${minutes} min ago` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h ago` : `${Math.round(minutes / 1440)} days ago`;
  return `${session.turns} turn${session.turns === 1 ? "" : "s"} · ${ago}`;
}
