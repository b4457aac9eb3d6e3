// Drives real VS Code (code-server) in Debian's chromium with playwright-core through a whole
// task in Foehn's chat view: ask, watch the answer stream, approve an edit inline (it lands
// unsaved), follow up in the same session, undo that turn, ask from the lightbulb, reload and
// resume the session. Checks the webview's buttons have names and can be reached by keyboard.
// SCENARIO=restricted instead opens an untrusted folder and checks the chat says so.
// Screenshots of each state go to SHOTS. Prints a JSON report on stdout.
// Environment: FOEHN_E2E_HOME (playwright-core's install), CS_URL, WORKSPACE, SHOTS, PROFILE,
// SETTINGS (the settings.json files, path-separated, rewritten at the end to change the server),
// SERVER_NO_KEY and SERVER_EMBEDDED (servers that lack a key, and that use the embedded model).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.FOEHN_E2E_HOME, "cs", "package.json"));
const { chromium } = require("playwright-core");
const shots = process.env.SHOTS;
const report = { steps: [], approvals: [] };
const step = (name) => report.steps.push(name);
const LONG = 90_000;

const browser = await chromium.launchPersistentContext(process.env.PROFILE, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1500, height: 950 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = browser.pages()[0] ?? (await browser.newPage());
const shot = (name) => page.screenshot({ path: path.join(shots, name) });
// A webview view is an iframe (the host) holding another (the page).
const chat = () => page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");

async function quickInput(text, rowLabel) {
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(text);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${rowLabel}"]`).first()
    .waitFor({ state: "visible" });
  await page.keyboard.press("Enter");
}

async function openFile(name) {
  await page.keyboard.press("Control+P");
  await quickInput(name, name);
  await page.locator(`.tab[aria-label*="${name}"]`).first().waitFor({ state: "visible" });
}

async function editorText(name) {
  await openFile(name);
  const lines = page.locator(".editor-group-container.active .monaco-editor .view-lines").first();
  await lines.waitFor({ state: "visible" });
  return (await lines.innerText()).replace(/\u00a0/g, " ");
}

async function waitForWorkbench() {
  await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 120_000 });
  await page.locator('.statusbar-item:has-text("Foehn")').first().waitFor({ state: "visible", timeout: 120_000 });
}

async function openChat() {
  await page.locator(".monaco-workbench").click();
  await page.keyboard.press("Control+Alt+F");
  await chat().locator("#input").waitFor({ state: "visible", timeout: 60_000 });
}

async function ask(text) {
  const input = chat().locator("#input");
  await input.fill(text);
  await input.press("Enter");
}

/** The last turn's section in the chat. */
const lastTurn = () => chat().locator("section.turn").last();

async function approveInline(button, shotName) {
  const card = chat().locator(".approval").last();
  await card.waitFor({ state: "visible", timeout: LONG });
  report.approvals.push(await card.innerText());
  if (shotName) {
    await shot(shotName);
    report.a11yApproval = await accessibility();
  }
  await card.locator(`button[data-decision="${button}"]`).click();
  await card.waitFor({ state: "detached", timeout: LONG });
}

async function turnDone(text) {
  const turn = lastTurn();
  await turn.locator(".stop").waitFor({ state: "visible", timeout: LONG });
  if (text) {
    await turn.locator(`.markdown:has-text("${text}")`).first().waitFor({ state: "visible", timeout: LONG });
  }
  return turn.innerText();
}

/** Every button in the chat has a name, and Tab reaches the input and Send. */
async function accessibility() {
  const unnamed = await chat().locator("button").evaluateAll((buttons) =>
    buttons.filter((b) => !(b.getAttribute("aria-label") || b.textContent || "").trim()).map((b) => b.outerHTML));
  const reached = [];
  await chat().locator("#title").click();
  // Stops when Tab leaves the view (in the editor, Tab would type).
  for (let i = 0; i < 40 && !reached.includes("send"); i++) {
    await page.keyboard.press("Tab");
    const focused = await chat().locator(":focus").evaluate((e) => e.id || e.getAttribute("data-action") || e.tagName)
      .catch(() => undefined);
    if (!focused) {
      break;
    }
    reached.push(focused);
  }
  return { unnamed, reached };
}

/** The folder is not trusted: the chat says Restricted Mode (the server runs with read-only tools). */
async function restricted() {
  await page.goto(`${process.env.CS_URL}/?folder=${encodeURIComponent(process.env.WORKSPACE)}`);
  // code-server opens an untrusted folder in Restricted Mode without asking.
  await waitForWorkbench();
  await page.locator('.statusbar-item:has-text("Restricted Mode")').first().waitFor({ state: "visible" });
  await openChat();
  const banner = chat().locator('#status .banner:has-text("Restricted mode")');
  await banner.waitFor({ state: "visible", timeout: 60_000 });
  report.restricted = await banner.innerText();
  await shot("state-restricted-mode.png");
  step("the chat says: Restricted mode");
}

/** The whole task in the chat, step by step. */
async function fullTask() {
  await page.goto(`${process.env.CS_URL}/?folder=${encodeURIComponent(process.env.WORKSPACE)}`);
  await waitForWorkbench();
  step("workbench and extension ready");
  report.before = await editorText("app.py");
  await openChat();
  await chat().locator("#chips .chip").first().waitFor({ state: "visible" });
  report.chips = await chat().locator("#chips").innerText();
  await shot("chat-empty-with-context-chips.png");
  report.a11yEmpty = await accessibility();
  step("chat open with the active file as a chip");

  await ask("Fix the TODO in app.py");
  await approveInline("allow", "approval-inline-card.png");
  step("approved inline");
  report.answer = await turnDone("Fixed the TODO");
  await shot("answer-streamed-with-changed-files.png");
  report.after = await editorText("app.py");
  report.dirty = await page.locator('.tab.dirty[aria-label*="app.py"]').count();
  report.a11yTurn = await accessibility();
  step("answer shown, edit in the editor, unsaved");

  await openChat();
  await ask("Now rename main to run");
  await chat().locator(".approval").last().waitFor({ state: "visible", timeout: LONG });
  await chat().locator('.approval button[data-action="openDiff"]').last().click();
  await page.locator('.tab[aria-label*="proposed change to app.py"]').first().waitFor({ state: "visible", timeout: 30_000 });
  await shot("approval-diff-in-editor.png");
  await approveInline("allow", null);
  report.followUp = await turnDone("Renamed");
  report.afterRename = await editorText("app.py");
  step("follow-up in the same session");

  await openChat();
  await lastTurn().locator('button[data-action="undo"]:not([data-path])').click();
  await lastTurn().locator(".file-undone").first().waitFor({ state: "visible", timeout: LONG });
  await shot("turn-undone.png");
  report.afterUndo = await editorText("app.py");
  step("undid the follow-up turn");

  // One file of the first turn back as it was before it.
  await openChat();
  await chat().locator('section.turn').first().locator('button[data-action="undo"][data-path="app.py"]').click();
  await chat().locator('section.turn').first().locator(".file-undone").waitFor({ state: "visible", timeout: LONG });
  report.afterFileUndo = await editorText("app.py");
  step("undid one file of the first turn");

  // Deny with a message to the model.
  await openChat();
  await ask("Delete app.py");
  const denyCard = chat().locator(".approval").last();
  await denyCard.waitFor({ state: "visible", timeout: LONG });
  await denyCard.locator("input.deny-message").fill("keep it, please");
  await denyCard.locator('button[data-decision="deny"]').click();
  report.denied = await turnDone("Left app.py alone");
  report.afterDenial = await editorText("app.py");
  step("denied a call with a message to the model");

  // The lightbulb: select the function, open the code actions, explain it. The code actions
  // are asked for as the selection changes; a menu opened before they came shows none (and
  // Escape drops the selection), so select and ask again.
  const action = page.locator('.action-widget .monaco-list-row:has-text("Foehn: Explain selection")').first();
  // The editor must have the keyboard (a chat input may still hold it): click into its text.
  for (let attempt = 1; ; attempt++) {
    try {
      await openFile("app.py");
      await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
      await page.keyboard.press("Control+Home");
      await page.keyboard.press("Shift+ArrowDown");
      await page.keyboard.press("Shift+ArrowDown");
      await page.locator('.statusbar-item:has-text("selected")').first().waitFor({ state: "visible", timeout: 10_000 });
      await page.keyboard.press("Control+.");
      await action.waitFor({ state: "visible", timeout: 10_000 });
      break;
    } catch (error) {
      if (attempt === 4) {
        throw error;
      }
      await page.keyboard.press("Escape");
    }
  }
  await action.click();
  report.lightbulb = await turnDone("returns 2");
  await shot("lightbulb-answer-in-chat.png");
  step("lightbulb answer in the chat");

  // Insert puts a code block of the answer at the cursor (here: over the selection).
  await lastTurn().locator('.code button[data-action="insert"]').click();
  await page.locator('.editor-group-container.active .view-line:has-text("print(run())")').first()
    .waitFor({ state: "visible", timeout: 30_000 });
  report.afterInsert = await editorText("app.py");
  step("code block inserted at the cursor");

  // The palette's Ask… and the editor's context menu answer in the chat too.
  await page.keyboard.press("F1");
  await quickInput(">Foehn: Ask…", "Foehn: Ask…");
  await page.locator('.quick-input-widget .quick-input-title:has-text("Foehn: Ask…")').waitFor({ state: "visible" });
  await page.locator(".quick-input-widget input").fill("What does app.py print?");
  await page.keyboard.press("Enter");
  report.palette = await turnDone("prints what run() returns");
  step("palette Ask… answered in the chat");

  await page.locator(".editor-group-container.active .view-line").first().click({ button: "right" });
  const item = page.locator('.monaco-menu .action-item:has-text("Ask Foehn")').first();
  await item.waitFor({ state: "visible", timeout: 30_000 });
  // The menu acts on mouse-up after its own hover; keyboard activation is deterministic.
  await item.hover();
  await page.keyboard.press("Enter");
  await page.locator('.quick-input-widget .quick-input-title:has-text("Ask Foehn")').waitFor({ state: "visible" });
  await page.locator(".quick-input-widget input").fill("Is this line right?");
  await page.keyboard.press("Enter");
  report.contextMenu = await turnDone("Yes, it is.");
  await shot("context-menu-answer-in-chat.png");
  step("context menu Ask Foehn answered in the chat");

  await openChat();
  await ask("Take your time");
  await chat().locator("#stop").waitFor({ state: "visible", timeout: 30_000 });
  await chat().locator("#stop").click();
  report.stopped = await turnDone();
  await shot("turn-stopped.png");
  step("stopped a turn");

  await page.reload();
  await waitForWorkbench();
  await openChat();
  await chat().locator('button[data-action="history"]').click();
  await page.locator(".quick-input-widget .monaco-list-row").first().waitFor({ state: "visible", timeout: 30_000 });
  report.history = await page.locator(".quick-input-widget .quick-input-list").innerText();
  await shot("history-picker.png");
  await page.keyboard.press("Enter");
  await chat().locator("section.turn").first().waitFor({ state: "visible", timeout: 30_000 });
  report.resumed = await chat().locator("#log").innerText();
  await shot("session-resumed-after-reload.png");
  step("resumed after a reload");

  await chat().locator('button[data-action="history"]').click();
  const row = page.locator(".quick-input-widget .monaco-list-row").first();
  await row.waitFor({ state: "visible", timeout: 30_000 });
  await row.hover();
  await row.locator('.action-label[aria-label="Rename"]').click();
  await page.locator('.quick-input-widget .quick-input-title:has-text("Rename chat")').waitFor({ state: "visible" });
  await page.locator(".quick-input-widget input").fill("TODO fix, renamed");
  await page.keyboard.press("Enter");
  await page.locator('.quick-input-widget .monaco-list-row[aria-label*="TODO fix, renamed"]').first()
    .waitFor({ state: "visible", timeout: 30_000 });
  await page.keyboard.press("Escape");
  await chat().locator('#title:has-text("TODO fix, renamed")').waitFor({ state: "visible", timeout: 30_000 });
  step("renamed the session from the history picker");

  const input = chat().locator("#input");
  await input.fill("");
  await input.pressSequentially("compare @ap");
  await chat().locator('#mentions li[data-file="app.py"]').waitFor({ state: "visible", timeout: 30_000 });
  await shot("mention-completion.png");
  await input.press("Enter");
  report.mention = await input.inputValue();
  step("@-mention completed from the workspace");

  await page.locator(".monaco-workbench").click();
  await page.keyboard.press("F1");
  await quickInput(">Foehn: Get Started", "Get Started");
  await page.locator('.gettingStartedContainer:has-text("Get started with Foehn")').first()
    .waitFor({ state: "visible", timeout: 30_000 });
  await page.waitForTimeout(500); // the walkthrough slides in
  report.walkthrough = await page.locator(".gettingStartedContainer").first().innerText();
  await shot("walkthrough.png");
  await page.keyboard.press("F1");
  await quickInput(">View: Close Editor", "View: Close Editor");
  await page.locator(".gettingStartedContainer").first().waitFor({ state: "detached", timeout: 30_000 });
  step("walkthrough");

  // The states the chat explains: each server (a wrapper around foehn) is set in turn.
  const states = [
    ["/nonexistent/bin/foehn", "Server not found", "state-server-not-found.png", "notFound"],
    [process.env.SERVER_NO_KEY, "No API key for mistral", "state-no-key.png", "noKey"],
    [process.env.SERVER_EMBEDDED, "embedded model", "state-embedded-model.png", "embedded"],
  ];
  for (const [server, text, name, key] of states) {
    for (const file of process.env.SETTINGS.split(path.delimiter)) {
      const settings = JSON.parse(readFileSync(file, "utf8"));
      writeFileSync(file, JSON.stringify({ ...settings, "foehn.serverPath": server }));
    }
    await openChat();
    const banner = chat().locator(`#status .banner:has-text("${text}")`);
    await banner.waitFor({ state: "visible", timeout: 60_000 });
    report[key] = await banner.innerText();
    await shot(name);
    step(`the chat says: ${text}`);
  }
}

try {
  if (process.env.SCENARIO === "restricted") {
    await restricted();
  } else {
    await fullTask();
  }
} catch (error) {
  report.error = String(error);
  report.tabs = await page.locator(".tab").allInnerTexts().catch(() => []);
  report.chatText = await chat().locator("body").innerText({ timeout: 2000 }).catch(() => "");
  await shot("failure.png").catch(() => {});
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(report.error ? 1 : 0);
