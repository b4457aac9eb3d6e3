// `npm run package [-- --target T]`: the platform .vsix for T (default: this machine's), named
// foehn-T-VERSION.vsix, carrying Foehn's server as wheels (scripts/bundle.py fills bundled/).
// The repository's .venv runs the bundling when there is one (scripts/setup makes it), else
// python3.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
const args = process.argv.slice(2);
const at = args.indexOf("--target");
const target = at >= 0 ? args[at + 1] : `${process.platform}-${process.arch}`;
if (!TARGETS.includes(target)) {
  console.error(`package: no bundle for target ${target}; one of ${TARGETS.join(", ")}`);
  process.exit(2);
}
const version = JSON.parse(readFileSync(path.join(here, "package.json"), "utf8")).version;
const windows = process.platform === "win32";
const venv = path.join(here, "..", ".venv", windows ? "Scripts/python.exe" : "bin/python");
const python = existsSync(venv) ? venv : windows ? "python" : "python3";
const run = (command, argv) => execFileSync(command, argv, { cwd: here, stdio: "inherit", shell: windows });

run("npm", ["run", "--silent", "build"]);
run(python, [path.join("scripts", "bundle.py"), "--target", target, "--out", "bundled"]);
const out = `foehn-${target}-${version}.vsix`;
run(path.join("node_modules", ".bin", windows ? "vsce.cmd" : "vsce"), ["package", "--no-dependencies", "--target", target, "--out", out]);
console.log(out);
