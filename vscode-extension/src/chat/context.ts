// Which context goes with a question: the active file and the selection (as chips the person
// can remove) and the files they @-mention. Pure: the host feeds it the editor's state.
import type { Chip } from "./messages";

export interface EditorState {
  /** Workspace-relative path of the active file, if it is in the workspace. */
  path?: string;
  uri?: string;
  /** 0-based lines of a non-empty selection. */
  selection?: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export class ContextChips {
  private editor: EditorState = {};
  private readonly removed = new Set<string>();

  /** The editor changed: a new file or selection brings its chips back. */
  track(editor: EditorState): boolean {
    const before = JSON.stringify(this.chips());
    if (editor.uri !== this.editor.uri) {
      this.removed.clear();
    } else if (JSON.stringify(editor.selection) !== JSON.stringify(this.editor.selection)) {
      this.removed.delete("selection");
    }
    this.editor = editor;
    return JSON.stringify(this.chips()) !== before;
  }

  remove(id: string): void {
    this.removed.add(id);
    if (id === "file") {
      this.removed.add("selection");
    }
  }

  chips(): Chip[] {
    const chips: Chip[] = [];
    const { path, selection } = this.editor;
    if (path && !this.removed.has("file")) {
      chips.push({ id: "file", label: path, kind: "file" });
      if (selection && !this.removed.has("selection")) {
        chips.push({ id: "selection", label: linesLabel(path, selection), kind: "selection" });
      }
    }
    return chips;
  }

  /** The run's uri and range: only what the chips still offer. */
  arguments(): { uri?: string; range?: EditorState["selection"]; labels: string[] } {
    const ids = new Set(this.chips().map((c) => c.id));
    return {
      ...(ids.has("file") ? { uri: this.editor.uri } : {}),
      ...(ids.has("selection") ? { range: this.editor.selection } : {}),
      labels: this.chips().map((c) => c.label),
    };
  }
}

/** "app.py:3-5": the lines a selection covers (one ending at a line's start leaves it out). */
export function linesLabel(path: string, range: NonNullable<EditorState["selection"]>): string {
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return `${path}:${range.start.line + 1}-${last}`;
}

/** The `@path` mentions in a question, in order, without repeats. A path must look like one
 * (no spaces); an e-mail address is not a mention. */
export function mentionsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([\w./-]*[\w/-])/g)) {
    if (!found.includes(match[1]!)) {
      found.push(match[1]!);
    }
  }
  return found;
}

export const MAX_MENTION_CHARS = 40_000;

/** The context text for mentioned files that exist: each file's text, cut at a limit. */
export function mentionContext(files: { path: string; text: string }[]): string {
  return files
    .map(({ path, text }) => {
      const cut = text.length > MAX_MENTION_CHARS ? `${text.slice(0, MAX_MENTION_CHARS)}\n… (cut at ${MAX_MENTION_CHARS} characters)` : text;
      return `The person mentioned @${path}:\n\`\`\`\n${cut}\n\`\`\``;
    })
    .join("\n\n");
}

/** Files matching what was typed after `@`: the name first, then anywhere in the path. */
export function rankFiles(files: readonly string[], query: string, limit = 12): string[] {
  const q = query.toLowerCase();
  const scored = files
    .map((file) => {
      const lower = file.toLowerCase();
      const name = lower.slice(lower.lastIndexOf("/") + 1);
      const score = name.startsWith(q) ? 0 : name.includes(q) ? 1 : lower.includes(q) ? 2 : 3;
      return { file, score };
    })
    .filter((f) => f.score < 3);
  scored.sort((a, b) => a.score - b.score || a.file.length - b.file.length || a.file.localeCompare(b.file));
  return scored.slice(0, limit).map((f) => f.file);
}
