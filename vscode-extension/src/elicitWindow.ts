// An MCP server's question (foehn/elicit) outside the chat: when the chat does not show the run,
// or the person chose modals (foehn.approval.prompt). A modal names the server and says what it
// asks; then each field is asked in VS Code's own quick input (text and numbers checked as typed,
// a yes/no, one or several choices). Escape anywhere, or the server giving up, is a cancel.
import * as vscode from "vscode";
import { DECLINE, contentOf, inputProblem, webPage, windowQuestion } from "./chat/elicit";
import type { ElicitAnswer, ElicitField, ElicitParams } from "./protocol";

const CANCEL: ElicitAnswer = { action: "cancel" };

export function askInWindow(params: ElicitParams, token: vscode.CancellationToken): Promise<ElicitAnswer> {
  const given = new Promise<ElicitAnswer>((resolve) => token.onCancellationRequested(() => resolve(CANCEL)));
  return Promise.race([ask(params, token), given]);
}

async function ask(params: ElicitParams, token: vscode.CancellationToken): Promise<ElicitAnswer> {
  const { message, detail, accept } = windowQuestion(params);
  const page = webPage(params.url);
  const choices = params.url && !page ? [DECLINE] : [accept, DECLINE];
  const choice = await vscode.window.showInformationMessage(message, { modal: true, detail }, ...choices);
  if (choice === undefined || token.isCancellationRequested) {
    return CANCEL;
  }
  if (choice === DECLINE) {
    return { action: "decline" };
  }
  if (page) {
    return (await vscode.env.openExternal(vscode.Uri.parse(page.toString()))) ? { action: "accept" } : CANCEL;
  }
  const answers: Record<string, unknown> = {};
  for (const field of params.fields) {
    const value = await askField(params, field, token);
    if (value === undefined) {
      return CANCEL;
    }
    answers[field.name] = value.value;
  }
  const checked = contentOf(params.fields, answers);
  if ("error" in checked) {
    void vscode.window.showErrorMessage(`Foehn: the answer to the MCP server "${params.server}" was not sent: ${checked.error}`);
    return CANCEL;
  }
  return { action: "accept", content: checked.content };
}

/** One field's value as the person gave it (`{value: ""}`: left empty), or undefined: escaped. */
async function askField(params: ElicitParams, field: ElicitField, token: vscode.CancellationToken): Promise<{ value: unknown } | undefined> {
  const title = `${params.server}: ${field.title}${field.required ? "" : " (optional)"}`;
  const placeHolder = field.description ?? field.title;
  const options = field.options ?? [];
  switch (field.kind) {
    case "boolean": {
      const picked = await vscode.window.showQuickPick(["Yes", "No"], { title, placeHolder, ignoreFocusOut: true }, token);
      return picked === undefined ? undefined : { value: picked === "Yes" };
    }
    case "choice": {
      const items = [...options.map((o) => ({ label: o.label, value: o.value })), ...(field.required ? [] : [{ label: "(none)", value: "" }])];
      const picked = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true }, token);
      return picked === undefined ? undefined : { value: picked.value };
    }
    case "choices": {
      const chosen = Array.isArray(field.default) ? (field.default as unknown[]).map(String) : [];
      const items = options.map((o) => ({ label: o.label, value: o.value, picked: chosen.includes(o.value) }));
      const picked = await vscode.window.showQuickPick(items, { title, placeHolder, canPickMany: true, ignoreFocusOut: true }, token);
      return picked === undefined ? undefined : { value: picked.map((item) => item.value) };
    }
    case "string":
    case "number":
    case "integer": {
      const text = await vscode.window.showInputBox(
        {
          title,
          prompt: placeHolder,
          value: field.default === undefined ? "" : String(field.default),
          ignoreFocusOut: true,
          validateInput: (typed) => inputProblem(field, typed),
        },
        token,
      );
      return text === undefined ? undefined : { value: text };
    }
  }
}
