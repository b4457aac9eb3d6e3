// The model's Markdown as HTML for the chat view. Everything the model wrote is escaped first;
// only the tags below are ever produced, so no text can add a script, a style or a remote
// image to the webview. Works on half-streamed text (an unclosed fence is a code block so far).
// Code blocks are highlighted by the bundled highlighter (highlight.ts). No VS Code or DOM API
// here: it is unit-tested in node.
import { highlight, isShell, languageOf } from "./highlight";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)\s*([^\s`]*)/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** Block-level Markdown: fenced code (highlighted, with its actions), headings, lists, quotes,
 * tables, rules and paragraphs. */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: "ul" | "ol"; items: string[] } | undefined;
  let quote: string[] = [];

  const flush = (): void => {
    if (paragraph.length) {
      out.push(`<p>${renderInline(paragraph.join("\n")).replace(/\n/g, "<br>")}</p>`);
      paragraph = [];
    }
    if (list) {
      out.push(`<${list.tag}>${list.items.map((i) => `<li>${renderInline(i)}</li>`).join("")}</${list.tag}>`);
      list = undefined;
    }
    if (quote.length) {
      out.push(`<blockquote>${renderMarkdown(quote.join("\n"))}</blockquote>`);
      quote = [];
    }
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1]!;
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trimStart().startsWith(marker)) {
        code.push(lines[i]!);
        i++;
      }
      out.push(codeBlock(code.join("\n"), fenceInfo(fence[2] ?? "", fence[3] ?? "")));
      continue;
    }
    const quoted = QUOTE.exec(line);
    if (quoted) {
      if (!quote.length) {
        flush();
      }
      quote.push(quoted[1]!);
      continue;
    }
    if (quote.length) {
      flush();
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? "")) {
      flush();
      const rows: string[] = [line];
      i += 2;
      while (i < lines.length && TABLE_ROW.test(lines[i]!)) {
        rows.push(lines[i]!);
        i++;
      }
      i--;
      out.push(table(rows));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      // The view's own headings are h2/h3; the model's start at h3.
      const level = Math.min(heading[1]!.length + 2, 6);
      out.push(`<h${level}>${renderInline(heading[2]!)}</h${level}>`);
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push("<hr>");
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? undefined : NUMBERED.exec(line);
    if (bullet || numbered) {
      const tag = bullet ? "ul" : "ol";
      if (paragraph.length || (list && list.tag !== tag)) {
        flush();
      }
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += " " + line.trim();
      continue;
    }
    if (list) {
      flush();
    }
    paragraph.push(line);
  }
  flush();
  return out.join("\n");
}

function table(rows: string[]): string {
  const cells = (row: string) => row.trim().replace(/^\||\|$/g, "").split("|").map((c) => renderInline(c.trim()));
  const [head, ...body] = rows.map(cells);
  return (
    `<table><thead><tr>${head!.map((c) => `<th>${c}</th>`).join("")}</tr></thead>` +
    `<tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("")}</tbody></table>`
  );
}

export interface FenceInfo {
  language: string;
  /** A file the block is for, when the fence names one: ```python app.py or ```app.py. */
  path?: string;
}

export function fenceInfo(first: string, second: string): FenceInfo {
  const looksLikePath = (word: string) => /[./]/.test(word) && /^[\w./-]+$/.test(word) && !word.startsWith(".");
  if (second && looksLikePath(second)) {
    return { language: first, path: second };
  }
  if (first && looksLikePath(first) && languageOf(first)) {
    return { language: languageOf(first), path: first };
  }
  return { language: first };
}

function codeBlock(code: string, { language, path }: FenceInfo): string {
  const name = language ? escapeHtml(language) : "code";
  const file = path ? escapeHtml(path) : "";
  const button = (action: string, text: string, label: string) =>
    `<button type="button" data-action="${action}" aria-label="${label}">${text}</button>`;
  const coloured = highlight(code, language);
  return (
    `<div class="code" data-language="${name}"${file ? ` data-path="${file}"` : ""}>` +
    `<div class="code-bar"><span class="code-lang">${name}${file ? ` · ${file}` : ""}</span>` +
    button("copy", "Copy", `Copy ${name}`) +
    button("insert", "Insert", `Insert ${name} at the cursor`) +
    button("apply", "Apply…", `Apply ${name} to ${file || "a file"}: shows the diff first`) +
    (isShell(language) ? button("runInTerminal", "Run…", `Run ${name} in a terminal: shows the command first`) : "") +
    `</div><pre><code${coloured ? ` class="hljs language-${name}"` : ""}>${coloured ?? escapeHtml(code)}</code></pre></div>`
  );
}

/** Inline Markdown: `code`, **bold**, *emphasis*, [links](https://…) and bare file paths stay
 * text. Links go only to http(s) and are opened by VS Code, never loaded in the view. */
export function renderInline(text: string): string {
  const parts = text.split(/(`+)([\s\S]*?[^`])\1(?!`)/);
  let html = "";
  for (let i = 0; i < parts.length; i++) {
    if (i % 3 === 0) {
      html += emphasis(escapeHtml(parts[i]!));
    } else if (i % 3 === 2) {
      html += `<code>${escapeHtml(parts[i]!.trim() || parts[i]!)}</code>`;
    }
  }
  return html;
}

function emphasis(escaped: string): string {
  return escaped
    .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_, label: string, url: string) => {
      return `<a href="${url}" title="${url}">${label}</a>`;
    })
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/__(?=\S)([\s\S]*?\S)__/g, "<strong>$1</strong>")
    .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?![_\w])/g, "$1<em>$2</em>");
}
