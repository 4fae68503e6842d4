// Runs a code sample as a reader would: bundled with esbuild (the package's published
// names resolved to the client's sources, as docs/samples/tsconfig.json maps them for the
// type check), then executed in a fresh Node process, or in Chromium for samples written for
// a page. A run that does not end within its time is killed and reported as a hang.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import type { BrowserContext } from "playwright-core";
import { at } from "../../scripts/lib/paths.ts";
import { ownImportMetaUrl } from "../support/bundled.ts";

/** The package's published entry points, as the samples import them. */
const PACKAGE_ENTRIES: Record<string, string> = {
  "@generation-hub/api": at("src/client/index.ts"),
  "@generation-hub/api/oauth": at("src/client/oauth/index.ts"),
  "@generation-hub/devtools": at("src/devtools.ts"),
  "@generation-hub/devtools/simulator": at("src/simulator/index.ts"),
  "@generation-hub/devtools/conformance": at("src/conformance/index.ts"),
  "@generation-hub/devtools/msw": at("src/simulator/msw/index.ts"),
};

/** The module a driver imports to reach the sample (`import { f } from "sample:entry"`). */
export const SAMPLE_MODULE = "sample:entry";

export interface Bundled {
  /** The sample's text as run (after the runner's substitutions). */
  source: string;
  /** Folder its relative imports resolve from. */
  resolveDir: string;
  /** Code that imports the sample and drives it (default: import it, nothing more). */
  driver?: string;
}

export async function bundleSample(sample: Bundled, platform: "node" | "browser"): Promise<string> {
  const resolver: Plugin = {
    name: "samples",
    setup(b) {
      b.onResolve({ filter: /^@generation-hub\/(api(\/oauth)?|devtools(\/(simulator|conformance|msw))?)$/ }, (a) => ({ path: PACKAGE_ENTRIES[a.path]! }));
      b.onResolve({ filter: /^sample:entry$/ }, () => ({ path: "entry", namespace: "sample" }));
      b.onLoad({ filter: /.*/, namespace: "sample" }, () => ({ contents: sample.source, loader: "ts", resolveDir: sample.resolveDir }));
    },
  };
  const result = await build({
    stdin: { contents: sample.driver ?? `import ${JSON.stringify(SAMPLE_MODULE)};\n`, loader: "ts", resolveDir: sample.resolveDir },
    bundle: true,
    format: "esm",
    platform,
    target: "es2022",
    write: false,
    logLevel: "silent",
    // The sources read files beside them (the conformance suite its rule registry): in a
    // bundle each keeps its own address, as it has in the installed package.
    plugins: platform === "node" ? [resolver, ownImportMetaUrl] : [resolver],
    // CommonJS packages bundled into an ES module (Fastify, for a sample that starts the
    // simulator) require Node's built-ins at run time.
    banner: platform === "node" ? { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' } : undefined,
  });
  return result.outputFiles[0]!.text;
}

export interface RunResult {
  /** Exit code (Node) or 0/1 (browser: the module settled or threw); null when it was killed. */
  code: number | null;
  output: string;
  timedOut: boolean;
}

/** Runs a bundle in a fresh Node process in `cwd`, killed after `timeoutMs`. */
export async function runInNode(code: string, options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "docs-sample-bundle-"));
  try {
    const file = join(dir, "sample.mjs");
    writeFileSync(file, code);
    return await new Promise<RunResult>((resolve) => {
      const child = spawn(process.execPath, [file], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (d: Buffer) => (output += d));
      child.stderr.on("data", (d: Buffer) => (output += d));
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, options.timeoutMs);
      child.on("close", (exit) => {
        clearTimeout(timer);
        resolve({ code: timedOut ? null : exit, output, timedOut });
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs a bundle as a module script of a page at `pageUrl` (served by the caller from the
 * folder `pageDir`), in a context the caller prepared (cookies of a site session).
 */
export async function runInPage(
  code: string,
  options: { context: BrowserContext; pageDir: string; pageUrl: string; timeoutMs: number },
): Promise<RunResult> {
  writeFileSync(join(options.pageDir, "sample.js"), code);
  writeFileSync(
    join(options.pageDir, "index.html"),
    `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>sample</title></head><body>
<script type="module">
window.sampleRun = import("./sample.js").then(() => "ok", (e) => "error: " + (e && e.stack ? e.stack : String(e)));
</script></body></html>\n`,
  );
  const page = await options.context.newPage();
  let output = "";
  page.on("console", (m) => (output += `${m.text()}\n`));
  page.on("pageerror", (e) => (output += `${e.message}\n`));
  try {
    await page.goto(options.pageUrl, { waitUntil: "load" });
    // The page's module script has set sampleRun by "load"; evaluate waits for it to settle.
    const run = page.evaluate(() => (window as unknown as { sampleRun: Promise<string> }).sampleRun);
    run.catch(() => undefined); // a run still pending when the page closes
    let timer: NodeJS.Timeout | undefined;
    const settled = await Promise.race([run, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), options.timeoutMs)))]);
    clearTimeout(timer);
    if (settled === undefined) return { code: null, output, timedOut: true };
    if (settled !== "ok") output += `${settled}\n`;
    return { code: settled === "ok" ? 0 : 1, output, timedOut: false };
  } finally {
    await page.close();
  }
}
