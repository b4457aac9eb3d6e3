// Drives real VS Code (code-server) in chromium, in a fresh profile with nothing of Foehn's but
// the installed .vsix: two windows open the folder at once (the managed environment is made once,
// its progress shown in a notification), the offline model's size is asked about first (and
// declined), Ask reads and edits a file with an inline approval, the
// MCP server list shows Foehn's definition, and a test extension (mcp_probe/) calls Foehn's tools
// through VS Code's own MCP client. Screenshots go to SHOTS; prints a JSON report on stdout.
// Environment: FOEHN_E2E_HOME, CS_URL, WORKSPACE, SHOTS, PROFILE, PROBE_OUT.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.FOEHN_E2E_HOME, "cs", "package.json"));
const { chromium } = require("playwright-core");
const shots = process.env.SHOTS;
const report = { steps: [], seconds: [] };
const begun = Date.now();
const step = (name) => {
  report.steps.push(name);
  report.seconds.push(Math.round((Date.now() - begun) / 100) / 10);
};
const LONG = 180_000;

const browser = await chromium.launchPersistentContext(process.env.PROFILE, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1500, height: 950 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const first = browser.pages()[0] ?? (await browser.newPage());
let page = first;
const shot = (name) => page.screenshot({ path: path.join(shots, name) });
const chat = () => page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
const url = `${process.env.CS_URL}/?folder=${encodeURIComponent(process.env.WORKSPACE)}`;

async function quickInput(text, rowLabel) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(text);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${rowLabel}"]`).first()
    .waitFor({ state: "visible", timeout: 30_000 });
  await page.keyboard.press("Enter");
}

async function palette(title) {
  await page.locator(".monaco-workbench").click();
  await page.keyboard.press("F1");
  await quickInput(`>${title}`, title);
}

async function openChat() {
  await page.locator(".monaco-workbench").click();
  await page.keyboard.press("Control+Alt+F");
  await chat().locator("#input").waitFor({ state: "visible", timeout: 60_000 });
}

async function ask(text) {
  const input = chat().locator("#input");
  await input.fill(text);
  for (let tries = 1; ; tries++) {
    await input.press("Enter");
    const deadline = Date.now() + 5_000;
    while ((await input.inputValue()) !== "" && Date.now() < deadline) {
      await page.waitForTimeout(100);
    }
    if ((await input.inputValue()) === "") {
      return;
    }
    if (tries > 12) {
      throw new Error(`the chat did not send ${JSON.stringify(text)}`);
    }
  }
}

async function editorText(name) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(name);
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`).first();
  await row.waitFor({ state: "visible", timeout: 15_000 });
  await row.click();
  await page.locator(`.tab.active[aria-label*="${name}"]`).first().waitFor({ state: "visible", timeout: 15_000 });
  const lines = page.locator(".editor-group-container.active .monaco-editor .view-lines").first();
  await lines.waitFor({ state: "visible" });
  return (await lines.innerText()).replace(/\u00a0/g, " ");
}

/** The chat's status once the server answers (the banner while it is set up, then none or a
 * hint); the text seen while it was being set up. */
async function waitReady(which) {
  page = which;
  await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 120_000 });
  await page.locator('.statusbar-item:has-text("Foehn")').first().waitFor({ state: "visible", timeout: 120_000 });
  await openChat();
  await chat().locator("#empty .model").waitFor({ state: "visible", timeout: LONG });
  return chat().locator("#empty").innerText();
}

try {
  // Two windows open the folder at once: one makes the environment, the other waits for it.
  const second = await browser.newPage();
  await Promise.all([first.goto(url), second.goto(url)]);
  page = first;
  const toast = page.locator('.notification-toast:has-text("setting up its server")').first();
  const seen = await toast.waitFor({ state: "visible", timeout: 60_000 }).then(() => true, () => false);
  if (seen) {
    report.progress = await toast.innerText().catch(() => "");
    await shot("setup-progress-notification.png");
  }
  report.secondWindow = await waitReady(second);
  report.firstWindow = await waitReady(first);
  await shot("setup-done-chat-ready.png");
  step("two windows opened at once; both have a server");

  // The offline model is offered with its size, and asked about first: declined, nothing comes.
  await chat().locator('#empty button[data-command="foehn.useOfflineModel"]').click();
  const box = page.locator(".monaco-dialog-box");
  await box.waitFor({ state: "visible", timeout: 60_000 });
  report.offlineAsked = await box.innerText();
  await shot("offline-model-size-first.png");
  await box.locator('.monaco-button:has-text("Cancel")').first().click();
  await box.waitFor({ state: "detached", timeout: 30_000 });
  await openChat();
  step("the offline model's size is asked about first");

  // Ask: the model reads app.py and edits it; the edit is approved inline.
  await ask("Fix the TODO in app.py");
  const card = chat().locator(".approval").last();
  await card.waitFor({ state: "visible", timeout: LONG });
  report.approval = await card.innerText();
  await shot("store-approval-with-diff.png");
  await card.locator('button[data-decision="allow"]').click();
  await chat().locator("section.turn").last().locator(".stop").waitFor({ state: "visible", timeout: LONG });
  report.answer = await chat().locator("section.turn").last().innerText();
  report.after = await editorText("app.py");
  await shot("store-chat-with-changed-files.png");
  await page.keyboard.press("Control+S");
  await page.locator('.tab.dirty[aria-label*="app.py"]').waitFor({ state: "detached", timeout: 30_000 });
  step("asked: read and edited app.py with approval");

  // The MCP server list shows Foehn's definition.
  await palette("MCP: List Servers");
  const row = page.locator('.quick-input-list .monaco-list-row:has-text("Foehn")').first();
  await row.waitFor({ state: "visible", timeout: 60_000 });
  report.mcpList = await page.locator(".quick-input-widget .quick-input-list").innerText();
  await shot("mcp-server-list.png");
  await page.keyboard.press("Escape");
  step("the MCP server list shows Foehn");

  // Another client in VS Code calls Foehn's tools through VS Code's MCP client.
  await palette("Foehn Probe: Call MCP Tools");
  for (let waited = 0; !existsSync(process.env.PROBE_OUT) && waited < LONG; waited += 500) {
    await page.waitForTimeout(500);
  }
  report.probe = JSON.parse(readFileSync(process.env.PROBE_OUT, "utf8"));
  step("Foehn's tools called through VS Code's MCP client");
} catch (error) {
  report.error = String(error);
  report.chatText = await chat().locator("body").innerText({ timeout: 2000 }).catch(() => "");
  report.notices = (await page.locator(".notifications-toasts").allInnerTexts().catch(() => [])).join("\n");
  await shot("failure.png").catch(() => {});
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(report.error ? 1 : 0);
