// Running a program and keeping what it said, for the managed environment's steps (probing a
// Python, making the environment, installing wheels). Every run has a time limit and may be
// stopped through an AbortSignal; a program that cannot be started is an answer, not a throw.
// No VS Code API here.
import { spawn } from "node:child_process";

export interface Ran {
  /** The exit code; null when the program was killed (time limit, abort) or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it did not run to its end: it could not start (ENOENT…), took too long, was stopped. */
  failure?: "spawn" | "timeout" | "aborted";
  /** The spawn error's code (ENOENT, EACCES) when it could not start. */
  spawnError?: string;
}

export interface RunOptions {
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
  /** Each line the program writes to stdout, as it comes (progress). */
  onLine?: (line: string) => void;
}

/** The part of stdout and stderr kept: a program's last words are what explains a failure. */
const KEPT = 64_000;

function keep(text: string): string {
  return text.length > KEPT ? text.slice(-KEPT) : text;
}

export function run(command: string, args: readonly string[], options: RunOptions): Promise<Ran> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let pending = "";
    let failure: Ran["failure"];
    let spawnError: string | undefined;
    if (options.signal?.aborted) {
      resolve({ code: null, stdout, stderr, failure: "aborted" });
      return;
    }
    const child = spawn(command, [...args], {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const stop = (why: NonNullable<Ran["failure"]>) => {
      failure ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
    const abort = () => stop("aborted");
    options.signal?.addEventListener("abort", abort, { once: true });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout = keep(stdout + chunk);
      if (options.onLine) {
        const lines = (pending + chunk).split(/\r?\n|\r/);
        pending = lines.pop() ?? "";
        lines.forEach((line) => options.onLine!(line));
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = keep(stderr + chunk);
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      failure ??= "spawn";
      spawnError = error.code ?? error.message;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", abort);
      if (pending && options.onLine) {
        options.onLine(pending);
      }
      resolve({
        code: failure ? null : code,
        stdout,
        stderr,
        ...(failure ? { failure } : {}),
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}

/** The last lines a program wrote, for a message or the log. */
export function lastLines(ran: Ran, count = 8): string {
  const said = ran.stderr.trim() || ran.stdout.trim();
  return said.split("\n").slice(-count).join("\n");
}
