// Real material for the managed environment's tests: the machine's python3, pip's own wheel (the
// one Python's ensurepip carries), and small real wheels written here, so that making an
// environment runs real venv and pip in seconds. Tests that need what this machine lacks skip.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Bundle } from "../python/bundle";

/** python3 on PATH, when it is 3.11 or newer. */
export function python3(): string | undefined {
  const found = spawnSync("python3", ["-c", "import sys; print(sys.executable if sys.version_info >= (3, 11) else '')"], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

/** The pip wheel that python3's ensurepip carries. */
export function pipWheel(python: string): string | undefined {
  const found = spawnSync(python, ["-c", "import ensurepip, os; print(os.path.join(os.path.dirname(ensurepip.__file__), '_bundled'))"], { encoding: "utf8" });
  if (found.status !== 0) {
    return undefined;
  }
  const folder = found.stdout.trim();
  const wheel = readdirSync(folder).find((name) => name.startsWith("pip-") && name.endsWith(".whl"));
  return wheel ? path.join(folder, wheel) : undefined;
}

/** Whether `unshare -rm` (a mount namespace as an unprivileged root) works here. */
export function canUnshare(): boolean {
  return spawnSync("unshare", ["-rm", "true"]).status === 0;
}

const made: string[] = [];
process.on("exit", () => {
  for (const folder of made) {
    rmSync(folder, { recursive: true, force: true });
  }
});

/** A new folder in the system's temporary folder, removed when the test file's process ends. */
export function tempFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), `foehn-${prefix}-`));
  made.push(folder);
  return folder;
}

const WHEEL_SCRIPT = `
import base64, hashlib, os, sys, zipfile
folder, name, version, data_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
module = name.replace("-", "_")
files = {
    f"{module}/__init__.py": f'__version__ = "{version}"\\n'.encode(),
    f"{module}/data.bin": os.urandom(data_bytes),
    f"{module}-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode(),
    f"{module}-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: foehn-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = f"{module}-{version}.dist-info/RECORD"
lines = []
for path, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    lines.append(f"{path},sha256={digest},{len(data)}")
lines.append(f"{record},,")
wheel = os.path.join(folder, f"{module}-{version}-py3-none-any.whl")
with zipfile.ZipFile(wheel, "w") as archive:
    for path, data in files.items():
        archive.writestr(path, data)
    archive.writestr(record, "\\n".join(lines) + "\\n")
print(hashlib.sha256(open(wheel, "rb").read()).hexdigest())
`;

/** Writes a real wheel of `name` `version` (its module holds `data.bin` of `dataBytes` random
 * bytes) into `folder`; its sha256. */
export function writeWheel(python: string, folder: string, name: string, version: string, dataBytes = 16): string {
  mkdirSync(folder, { recursive: true });
  return execFileSync(python, ["-c", WHEEL_SCRIPT, folder, name, version, String(dataBytes)], { encoding: "utf8" }).trim();
}

/** A bundle whose wheels folder holds a foehn-lsp `version` (with `dataBytes` of data). */
export function testBundle(python: string, pip: string, version: string, dataBytes = 16): Bundle {
  const folder = tempFolder("bundle");
  writeWheel(python, path.join(folder, "wheels"), "foehn-lsp", version, dataBytes);
  return {
    foehn: version,
    target: "linux-x64",
    pythons: ["3.11", "3.12", "3.13", "3.14"],
    key: `${version}-test`,
    pip,
    wheels: path.join(folder, "wheels"),
    offlineModel: path.join(folder, "offline-model.txt"),
  };
}
