// Foehn: Rules…: the rules in force (foehn.rules.list), the person's own removable with the
// item's button (foehn.rules.remove, after asking), the user config opened with the title's.
import * as vscode from "vscode";
import { ruleLine, ruleSummary } from "./chat/rules";
import { COMMANDS, type RulesList } from "./protocol";
import type { Server } from "./server";

export const RULES_COMMAND = "foehn.showRules";

const REMOVE = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Remove this rule" };
const OPEN = { iconPath: new vscode.ThemeIcon("go-to-file"), tooltip: "Open the config file" };

type Item = vscode.QuickPickItem & { number?: number; line?: string };

/** The picker's rows: each rule with where it comes from (its message, if it has one, below),
 * then what is wrong with the rules files. */
function rulesItems(listed: RulesList): Item[] {
  const rules: Item[] = listed.rules.map((rule) => ({
    label: ruleSummary(rule),
    description: rule.origin === "workspace" ? `workspace · ${rule.source ?? ""}` : (rule.source ?? ""),
    detail: rule.message ?? ruleLine(rule),
    ...(rule.number !== null ? { number: rule.number, line: ruleLine(rule), buttons: [REMOVE] } : {}),
  }));
  const problems: Item[] = [...listed.problems, ...listed.warnings].map((text) => ({
    label: `$(warning) ${text}`,
  }));
  return [...rules, ...problems];
}

export async function showRules(server: Server, output: vscode.LogOutputChannel): Promise<void> {
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = "Foehn: Rules";
  pick.buttons = [OPEN];
  let file = "";
  const load = async () => {
    pick.busy = true;
    const listed = await server.send(COMMANDS.rulesList, []);
    file = listed.file;
    pick.items = rulesItems(listed);
    pick.placeholder = listed.rules.length
      ? "Rules decide before your approval settings (deny, then ask, then allow); the button removes one of yours"
      : "No rules yet: “Always allow” on an approval saves one";
    pick.busy = false;
  };
  pick.onDidTriggerButton(async () => {
    pick.hide();
    if (file) {
      await vscode.window.showTextDocument(vscode.Uri.file(file));
    }
  });
  pick.onDidTriggerItemButton(async ({ item }) => {
    if (item.number === undefined) {
      return;
    }
    // The dialog replaces the picker; it opens again afterwards, without the rule.
    try {
      const sure = await vscode.window.showWarningMessage(
        `Remove the rule ${item.label}?`,
        { modal: true, detail: `${item.line ?? ""}\nfrom ${file}` },
        "Remove",
      );
      if (sure === "Remove") {
        // Rules are removed by their place in the file: only while that place holds this rule.
        const now = await server.send(COMMANDS.rulesList, []);
        const same = now.rules.find((r) => r.number === item.number);
        if (same && ruleLine(same) === item.line) {
          await server.send(COMMANDS.rulesRemove, [{ number: item.number }]);
          output.info(`removed rule ${item.number} (${item.line ?? ""}) from ${file}`);
        } else {
          void vscode.window.showWarningMessage("Foehn: the rules file changed meanwhile; nothing was removed. Look again.");
        }
      }
      await showRules(server, output);
    } catch (error) {
      void vscode.window.showErrorMessage(`Foehn: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  pick.onDidAccept(() => pick.hide());
  pick.onDidHide(() => pick.dispose());
  pick.show();
  try {
    await load();
  } catch (error) {
    pick.hide();
    void vscode.window.showErrorMessage(`Foehn: cannot list the rules: ${error instanceof Error ? error.message : String(error)}`);
  }
}
