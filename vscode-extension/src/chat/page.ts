// The chat view's page: a strict Content-Security-Policy (nothing by default; the extension's
// own stylesheet; only the script carrying this page's nonce; no remote source of any kind)
// and the skeleton the webview script fills. No VS Code API here, so the policy is unit-tested.

export interface PageSources {
  /** The webview's own origin (webview.cspSource). */
  cspSource: string;
  /** Fresh for every page: only a script tag carrying it runs. */
  nonce: string;
  script: string;
  style: string;
}

export function chatPage({ cspSource, nonce, script, style }: PageSources): string {
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Foehn</title>
</head>
<body>
<header class="top">
  <h2 id="title">New chat</h2>
  <button type="button" data-action="history" aria-label="Chat history: resume, rename or delete a chat" title="Chat history">History</button>
  <button type="button" data-action="newChat" aria-label="New chat" title="New chat">New</button>
</header>
<div id="status"></div>
<div id="empty" class="empty"><p>Ask Foehn about this workspace, or to change it. Type <kbd>@</kbd> to add a file. Every change waits for your approval and can be undone.</p></div>
<main id="log" aria-live="polite" aria-label="Conversation"></main>
<footer class="composer">
  <div id="queued" class="queued" aria-live="polite"></div>
  <div id="chips" class="chips" aria-label="Context sent with the question"></div>
  <ul id="mentions" role="listbox" aria-label="Completions" hidden></ul>
  <textarea id="input" rows="3" aria-label="Ask Foehn" placeholder="Ask Foehn… (Enter to send, Shift+Enter for a new line, @ for a file, / for a command)" role="combobox" aria-autocomplete="list" aria-controls="mentions" aria-expanded="false"></textarea>
  <div class="row">
    <span id="meter" class="meter" aria-label="Context used"></span>
    <select id="mode" aria-label="Mode" title="Ask: Foehn acts, asking before changes. Plan: it only reads, then proposes a plan for you to approve.">
      <option value="act">Ask</option>
      <option value="plan">Plan</option>
    </select>
    <button type="button" id="stop" hidden>Stop</button>
    <button type="button" id="send" class="primary">Send</button>
  </div>
</footer>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
