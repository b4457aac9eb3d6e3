// Completion in the chat's input: @-mentions (the workspace's files as the server lists them,
// .gitignore honoured) and `/` custom commands (foehn.commands.list), each cached briefly.
import * as vscode from "vscode";
import { type ContextChips, mentionContext, mentionsIn, rankFiles } from "./chat/context";
import { rankCommands } from "./chat/rules";
import type { TaskContext } from "./conversation";
import { COMMANDS, type CustomCommand } from "./protocol";
import type { Server } from "./server";

const FILES_TTL_MS = 10_000;

export class Mentions {
  private files: string[] = [];
  private fetched = 0;

  constructor(private readonly server: Server) {}

  /** The workspace's files, from the server (which honours .gitignore), cached briefly. */
  async list(): Promise<string[]> {
    if (Date.now() - this.fetched > FILES_TTL_MS) {
      const answer = await this.server.send(COMMANDS.files, []);
      this.files = answer.files;
      this.fetched = Date.now();
    }
    return this.files;
  }

  async complete(query: string): Promise<string[]> {
    return rankFiles(await this.list().catch(() => []), query);
  }

  /** A typed question's context: the chips still offered and the text of each @-mentioned
   * file (from its editor if open, so unsaved changes count). */
  async context(text: string, chips: ContextChips): Promise<TaskContext> {
    const base = chips.arguments();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const mentioned = mentionsIn(text);
    // Listed only when a file is mentioned: a question without one goes at once.
    const known = new Set(mentioned.length ? await this.list().catch(() => []) : []);
    const files: { path: string; text: string }[] = [];
    for (const path of mentioned) {
      if (!folder || !known.has(path)) {
        continue;
      }
      try {
        const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder.uri, path));
        files.push({ path, text: document.getText() });
      } catch {
        // A file that cannot be opened as text is mentioned by name only.
      }
    }
    return {
      ...base,
      ...(files.length ? { context: mentionContext(files) } : {}),
      labels: [...base.labels, ...files.map((f) => `@${f.path}`)],
    };
  }
}

/** The custom commands `/` completes to (foehn.commands.list), cached briefly. */
export class SlashCommands {
  private commands: CustomCommand[] = [];
  private fetched = 0;

  constructor(
    private readonly server: Server,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  async complete(query: string): Promise<CustomCommand[]> {
    if (Date.now() - this.fetched > FILES_TTL_MS) {
      try {
        const answer = await this.server.send(COMMANDS.commandsList, []);
        this.commands = answer.commands;
        this.fetched = Date.now();
        for (const problem of answer.problems) {
          this.output.warn(`custom command: ${problem}`);
        }
      } catch (error) {
        // No server yet: nothing to complete; asked again at the next `/`.
        this.output.debug(`foehn.commands.list: ${String(error)}`);
      }
    }
    return rankCommands(this.commands, query);
  }
}
