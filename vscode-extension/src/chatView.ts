// The chat's webview view: its page (a strict Content-Security-Policy with a nonce, the bundled
// script and stylesheet from the extension, nothing remote), and the messages to and from it.
// Messages posted while the view is hidden or loading are kept and sent once it is ready.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { type HostMessage, type ViewMessage, parseViewMessage } from "./chat/messages";
import { chatPage } from "./chat/page";
import type { ChatPort } from "./conversation";

export const VIEW_ID = "foehn.chat";

export class ChatView implements vscode.WebviewViewProvider, ChatPort, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private queue: HostMessage[] = [];
  private readonly received = new vscode.EventEmitter<ViewMessage>();
  readonly onMessage = this.received.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri) {}

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const media = vscode.Uri.joinPath(this.extensionUri, "out");
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = page(view.webview, media);
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const message = parseViewMessage(raw);
        if (!message) {
          return;
        }
        if (message.type === "ready") {
          this.ready = true;
        }
        this.received.fire(message);
        if (message.type === "ready") {
          this.drain();
        }
      }),
      view.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
      }),
    );
  }

  post(message: HostMessage): void {
    if (this.view && this.ready) {
      void this.view.webview.postMessage(message);
    } else {
      // A later full state makes earlier messages moot; keep the queue small.
      if (message.type === "reset") {
        this.queue = this.queue.filter((m) => m.type !== "reset" && m.type !== "turn");
      }
      this.queue.push(message);
    }
  }

  private drain(): void {
    const queued = this.queue;
    this.queue = [];
    for (const message of queued) {
      this.post(message);
    }
  }

  async reveal(focus: boolean): Promise<void> {
    if (this.view) {
      this.view.show(!focus);
    } else {
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    }
    if (focus) {
      this.post({ type: "focus" });
    }
  }

  dispose(): void {
    this.received.dispose();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }
}

function page(webview: vscode.Webview, media: vscode.Uri): string {
  return chatPage({
    cspSource: webview.cspSource,
    nonce: randomBytes(16).toString("base64"),
    script: webview.asWebviewUri(vscode.Uri.joinPath(media, "webview.js")).toString(),
    style: webview.asWebviewUri(vscode.Uri.joinPath(media, "webview.css")).toString(),
  });
}
