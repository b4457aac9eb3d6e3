// An MCP server's question during a call (foehn/elicit), as the person reads and answers it:
// who asks, what each field takes, and what an answer sends. The chat's card and VS Code's own
// inputs both use it; the server checks the answer again before it reaches the MCP server.
// No VS Code or DOM API here.
import type { ElicitField, ElicitParams } from "../protocol";

/** Who asks, named first, as every front end says it: `The MCP server "x" asks during t`. */
export function askedBy(params: Pick<ElicitParams, "server" | "tool">): string {
  return `The MCP server "${params.server}" asks${params.tool ? ` during ${params.tool}` : ""}`;
}

/** A page Foehn may open in the browser: http or https only (never `command:`, `file:` or
 * another scheme VS Code would act on). */
export function webPage(url: string | null | undefined): URL | undefined {
  try {
    const page = new URL(url ?? "");
    return page.protocol === "https:" || page.protocol === "http:" ? page : undefined;
  } catch {
    return undefined;
  }
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
  uri: /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  "date-time": /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/,
};

/** A field left empty: no text, or no choice. */
function empty(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === "string" && !raw.trim()) || (Array.isArray(raw) && !raw.length);
}

/** What the field's bounds say of `size` (a number, a text's length or a count of choices). */
function bounded(field: ElicitField, size: number, unit: string): string | undefined {
  if (field.minimum !== undefined && size < field.minimum) {
    return `at least ${field.minimum}${unit}`;
  }
  if (field.maximum !== undefined && size > field.maximum) {
    return `at most ${field.maximum}${unit}`;
  }
  return undefined;
}

/** The value the person gave for `field` (text from an input, a checkbox's state, the values
 * of the choices ticked) in the field's type, or why it does not fit. */
export function fieldValue(field: ElicitField, raw: unknown): { value: unknown } | { error: string } {
  const values = (field.options ?? []).map((option) => option.value);
  switch (field.kind) {
    case "boolean":
      return typeof raw === "boolean" ? { value: raw } : { error: "yes or no" };
    case "number":
    case "integer": {
      const number = typeof raw === "number" ? raw : Number(String(raw).trim());
      if (!Number.isFinite(number) || (field.kind === "integer" && !Number.isInteger(number))) {
        return { error: field.kind === "integer" ? "a whole number" : "a number" };
      }
      const out = bounded(field, number, "");
      return out ? { error: out } : { value: number };
    }
    case "choice":
      return values.includes(String(raw)) ? { value: String(raw) } : { error: `one of ${values.join(", ")}` };
    case "choices": {
      const picked = Array.isArray(raw) ? raw.map(String) : undefined;
      if (!picked || picked.some((value) => !values.includes(value))) {
        return { error: `choices among ${values.join(", ")}` };
      }
      const out = bounded(field, picked.length, " choices");
      return out ? { error: out } : { value: picked };
    }
    case "string": {
      if (typeof raw !== "string") {
        return { error: "text" };
      }
      if (field.format && FORMATS[field.format] && !FORMATS[field.format]!.test(raw)) {
        return { error: `a valid ${field.format}` };
      }
      const out = bounded(field, raw.length, " characters");
      return out ? { error: out } : { value: raw };
    }
  }
}

/** The content an accepted answer sends: each field the person filled in, in its type; a field
 * left empty is left out (the server gives it the form's default). Or the first field that does
 * not fit, and why. Names the form does not have are never sent. */
export function contentOf(fields: readonly ElicitField[], given: Record<string, unknown>): { content: Record<string, unknown> } | { error: string } {
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
    if (empty(raw)) {
      if (field.required && field.default === undefined) {
        return { error: `${field.title} is required.` };
      }
      continue;
    }
    const checked = fieldValue(field, raw);
    if ("error" in checked) {
      return { error: `${field.title}: ${checked.error}.` };
    }
    content[field.name] = checked.value;
  }
  return { content };
}

/** What an input box says is wrong with `text` for `field` (undefined: it fits). */
export function inputProblem(field: ElicitField, text: string): string | undefined {
  if (!text.trim()) {
    return field.required && field.default === undefined ? `${field.title} is required.` : undefined;
  }
  const checked = fieldValue(field, text);
  return "error" in checked ? `${field.title}: ${checked.error}.` : undefined;
}

/** The question as one modal says it, outside the chat: who asks, what, and the answer's label. */
export function windowQuestion(params: ElicitParams): { message: string; detail: string; accept: string } {
  const page = params.url ? `\n\nThe page: ${params.url}` : "";
  const fields = params.fields.length ? `\n\nIt asks for: ${params.fields.map((field) => field.title).join(", ")}.` : "";
  return {
    message: `${askedBy(params)}:`,
    detail: `${params.message}${page}${fields}`,
    accept: params.url ? OPEN_PAGE : params.fields.length ? "Answer…" : "Accept",
  };
}

export const OPEN_PAGE = "Open the page";
export const DECLINE = "Decline";
