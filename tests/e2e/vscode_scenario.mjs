// Drives real VS Code (code-server) in Debian's chromium with playwright-core: open a file,
// run "Foehn: Ask…", approve the modal, check the edit is in the editor and the answer shown;
// then run again, deny, and check nothing changed. Prints a JSON report on stdout.
// Environment: FOEHN_E2E_HOME (playwright-core's install), CS_URL, WORKSPACE, SHOTS, PROFILE.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.FOEHN_E2E_HOME, "cs", "package.json"));
const { chromium } = require("playwright-core");
const shots = process.env.SHOTS;
const report = { steps: [] };
const step = (name) => report.steps.push(name);

const browser = await chromium.launchPersistentContext(process.env.PROFILE, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1500, height: 950 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = browser.pages()[0] ?? (await browser.newPage());

async function palette(title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${title}"]`).first()
    .waitFor({ state: "visible" });
  await page.keyboard.press("Enter");
}

async function openFile(name) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(name);
  await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`).first()
    .waitFor({ state: "visible" });
  await page.keyboard.press("Enter");
  await page.locator(`.tab[aria-label*="${name}"]`).first().waitFor({ state: "visible" });
}

async function editorText() {
  await openFile("app.py");
  const lines = page.locator(".editor-group-container.active .monaco-editor .view-lines").first();
  await lines.waitFor({ state: "visible" });
  return (await lines.innerText()).replace(/\u00a0/g, " ");
}

async function ask(task) {
  await palette("Foehn: Ask");
  const input = page.locator(".quick-input-widget input");
  await page.locator('.quick-input-widget .quick-input-title:has-text("Foehn: Ask")')
    .waitFor({ state: "visible" });
  await input.fill(task);
  await page.keyboard.press("Enter");
}

async function answerDialog(button, shot) {
  const dialog = page.locator(".monaco-dialog-box");
  await dialog.waitFor({ state: "visible", timeout: 90_000 });
  report.dialog = await dialog.innerText();
  if (shot) {
    const diff = page.locator(".monaco-diff-editor").first();
    await diff.locator(".view-lines").first().waitFor({ state: "visible", timeout: 30_000 });
    await page.locator('.tab[aria-label*="proposed change to app.py"]').waitFor({ state: "visible" });
    report.diff = (await diff.innerText()).replace(/\u00a0/g, " ");
    report.diffTab = await page.locator('.tab[aria-label*="proposed change to app.py"]').count();
  }
  if (shot) {
    await page.screenshot({ path: path.join(shots, shot) });
  }
  await dialog.locator(`a.monaco-button:text-is("${button}")`).click();
  await dialog.waitFor({ state: "hidden" });
}

async function notification(text) {
  const toast = page.locator(`.notification-toast:has-text("${text}")`).first();
  await toast.waitFor({ state: "visible", timeout: 90_000 });
  return toast.innerText();
}

try {
  await page.goto(`${process.env.CS_URL}/?folder=${encodeURIComponent(process.env.WORKSPACE)}`);
  await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 120_000 });
  await page.locator('.statusbar-item:has-text("Foehn")').first()
    .waitFor({ state: "visible", timeout: 120_000 });
  step("workbench and extension ready");
  await page.locator(".monaco-workbench").click();
  report.before = await editorText();
  step("opened app.py");

  await ask("Fix the TODO in app.py");
  await answerDialog("Allow", "confirmation.png");
  step("approved in the modal");
  report.answer = await notification("Fixed the TODO");
  await page.screenshot({ path: path.join(shots, "answer.png") });
  report.after = await editorText();
  report.dirty = await page.locator('.tab.dirty[aria-label*="app.py"]').count();
  step("answer shown, edit in the editor");

  await ask("Change the return value to 3");
  await answerDialog("Deny", null);
  report.deniedAnswer = await notification("was denied");
  report.afterDenial = await editorText();
  await page.screenshot({ path: path.join(shots, "denied.png") });
  step("denied; nothing changed");
} catch (error) {
  report.error = String(error);
  report.tabs = await page.locator(".tab").allInnerTexts().catch(() => []);
  await page.screenshot({ path: path.join(shots, "failure.png") }).catch(() => {});
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(report.error ? 1 : 0);
