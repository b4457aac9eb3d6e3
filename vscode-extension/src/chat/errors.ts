// A failed turn as the person in VS Code reads it: a card that says what went wrong in VS
// Code's words (the `foehn.*` setting, the command) rather than the server's CLI flags and
// environment variables, and the buttons that fix it. The server says what kind of failure it
// was (protocol.ts's ErrorKind); the wording is this front end's. No VS Code or DOM API here.
import type { ErrorKind } from "../protocol";
import type { StatusCommand } from "./actions";

/** `server`: the request never reached a running server (not started, crashed). `saved`: a
 * failed turn of a saved session, whose kind was not saved. */
export type FailureKind = ErrorKind | "server" | "saved";

export interface Failure {
  kind: FailureKind;
  /** The server's own message, as sent. */
  message: string;
}

export type FixAction =
  | { kind: "retry"; label: string }
  | { kind: "command"; label: string; command: StatusCommand }
  | { kind: "settings"; label: string; query: string };

export interface FailureView {
  title: string;
  /** The server's message in VS Code's words. */
  detail: string;
  actions: FixAction[];
}

const RETRY: FixAction = { kind: "retry", label: "Retry" };
const SET_KEY: FixAction = { kind: "command", label: "Set API key…", command: "foehn.setApiKey" };
const BASE_URL: FixAction = { kind: "settings", label: "Open settings", query: "foehn.baseUrl" };
const ALL_SETTINGS: FixAction = { kind: "settings", label: "Open settings", query: "@ext:foehn.foehn" };

export function failureView(failure: Failure): FailureView {
  const detail = inVsCodeWords(failure.message);
  switch (failure.kind) {
    case "missing_key":
      return {
        title: "No API key is set for this provider.",
        detail,
        actions: [SET_KEY, { kind: "command", label: "Choose another provider", command: "foehn.chooseProvider" }, RETRY],
      };
    case "auth":
      return { title: "The provider refused the API key.", detail, actions: [SET_KEY, RETRY] };
    case "unavailable":
      return { title: "Foehn could not reach the model.", detail, actions: [RETRY, BASE_URL] };
    case "request":
      return { title: "The model server refused the request.", detail, actions: [ALL_SETTINGS, RETRY] };
    case "protocol":
      return { title: "The model server's answer was not what Foehn expected.", detail, actions: [BASE_URL, RETRY] };
    case "config":
      return { title: "Foehn's settings cannot work as they are.", detail, actions: [ALL_SETTINGS, RETRY] };
    case "server":
      return {
        title: "Foehn's server did not answer.",
        detail,
        actions: [{ kind: "command", label: "Restart the server", command: "foehn.restartServer" }, RETRY],
      };
    case "internal":
      return { title: "Something went wrong in Foehn.", detail, actions: [RETRY] };
    case "saved":
      return { title: "This turn failed.", detail, actions: [RETRY] };
  }
}

/** The server's hints name what a terminal person would set; in VS Code it is a setting or a
 * command. Each pattern is a hint the server's messages really carry (src/test/errors.test.ts
 * holds them verbatim; the real-VS-Code test checks a refused key's card). */
const REWORDING: [RegExp, string][] = [
  [/set (?:[A-Z_]+_API_KEY or )?FOEHN_API_KEY \(or apiKey in the user config file; the VS Code extension stores it with 'Foehn: Set API Key'\)/g, "run “Foehn: Set API Key”"],
  [/\(FOEHN_API_KEY or the provider's own variable\)/g, "(“Foehn: Set API Key”)"],
  [/set it with --base-url, FOEHN_BASE_URL or baseUrl/g, "set it in the foehn.baseUrl setting"],
  [/\(--base-url, --model\)/g, "(the foehn.baseUrl and foehn.model settings)"],
  [/set FOEHN_PROVIDER \(mistral, openai, anthropic\) and its API key/g, "choose one with “Foehn: Choose Provider” and set its key"],
  [/pip install 'foehn-lsp\[local\]'/g, "“Foehn: Use the Offline Model”"],
];

export function inVsCodeWords(message: string): string {
  return REWORDING.reduce((text, [pattern, words]) => text.replace(pattern, words), message);
}
