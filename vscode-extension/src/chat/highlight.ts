// Syntax highlighting for the chat's code blocks: highlight.js's core (BSD-3-Clause) with the
// languages below, bundled into the webview; nothing is fetched, nothing needs more than the
// page's strict policy allows. highlight.js escapes every character of the code and adds only
// <span class="hljs-…"> around tokens (src/test/markdown.test.ts checks that).
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, c, cpp, css, diff, go, ini, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}

/** The code as highlighted HTML, or undefined for a language not bundled (the caller shows
 * it escaped, uncoloured). Aliases work: py, js, ts, sh, zsh, yml, html, toml, console. */
export function highlight(code: string, language: string): string | undefined {
  const name = language.toLowerCase();
  if (!name || !hljs.getLanguage(name)) {
    return undefined;
  }
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}

/** The language for a file name's extension, when one is bundled. */
export function languageOf(path: string): string {
  const extension = /\.([\w+-]+)$/.exec(path)?.[1] ?? "";
  return hljs.getLanguage(extension) ? extension : "";
}

/** Whether a block in this language is a command line (offered "Run in terminal"). */
export function isShell(language: string): boolean {
  return ["bash", "sh", "shell", "zsh", "console", "shellsession"].includes(language.toLowerCase());
}
