// The hub simulator in a real browser through Mock Service Worker: a page (msw-browser/
// page.ts, bundled by esbuild) registers MSW's service worker (`mockServiceWorker.js` as
// `msw init` writes it) with the hub's handlers and drives the typed client: submit,
// advance the clock, the event stream as a streamed Response that stays open, resume with
// Last-Event-ID, a reset frame, a result file, an upload, a 413 and a refusal. Headless
// Chromium (Debian's), driven by playwright-core. Without Chromium this check cannot run:
// it says so loudly, and fails in CI.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { bundleSample, runInPage } from "../docs/sample-runner.ts";
import { serveSite, type StaticSite } from "../docs/support.ts";
import { chromiumFor } from "../support/chromium.ts";
import type { PageReport } from "./msw-browser/page.ts";
import { mswDocsSample } from "./support/msw-docs.ts";

const browsers = chromiumFor("browser check of the MSW handlers", "test/simulator/msw-browser.test.ts");

describe.runIf(browsers.path)("the hub's MSW handlers in a browser", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "msw-browser-test-"));
  let site: StaticSite;
  let browser: Browser;

  beforeAll(async () => {
    // The worker script as a project gets it: `npx msw init <public dir>`.
    execFileSync(process.execPath, ["node_modules/msw/cli/index.js", "init", dir, "--no-save"], { stdio: "ignore" });
    await build({ entryPoints: ["test/simulator/msw-browser/page.ts"], bundle: true, platform: "browser", format: "esm", outfile: join(dir, "page.js"), logLevel: "silent" });
    writeFileSync(join(dir, "index.html"), `<!doctype html><html><head><meta charset="utf-8"><title>MSW hub</title><script type="module" src="/page.js"></script></head><body></body></html>\n`);
    site = await serveSite(dir, "/");
    browser = await browsers.launch();
  });

  afterAll(async () => {
    await browsers.close();
    await site?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ST-1 EVT-9 EVT-6: the typed client against the hub in the page: submit, advance, the status events on a stream that stays open, resume, reset, files, upload, 413, a refusal, an export written a slice at a time", async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const hubRequests: { url: string; fromServiceWorker: boolean }[] = [];
    page.on("response", (response) => {
      if (response.url().startsWith("https://hub.example/")) hubRequests.push({ url: response.url(), fromServiceWorker: response.fromServiceWorker() });
    });
    await page.goto(`${site.url}index.html`);
    const report = (await page.evaluate(() => window.mswReport)) as PageReport | { error: string };
    expect("error" in report ? report.error : "").toBe("");
    const r = report as PageReport;

    expect(r.submit).toMatchObject({ status: 202, generationStatus: "QUEUED", rateLimitPolicy: "default" });
    expect(r.submit.requestId).not.toBe("");
    expect(r.streamed).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    expect(r.openAfterClose).toBe(0);
    expect(r.resumed).toEqual(["RUNNING", "DONE"]);
    expect(r.unknownCursor).toEqual({ event: "reset", reason: "cursor_unknown" });
    expect(r.final).toBe("DONE");
    expect(r.file).toEqual({ status: 200, contentType: "image/png", bytes: 6383, signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] });
    expect(r.upload.reference).toBe(true);
    expect(r.upload.bytesStored).toBeGreaterThan(0);
    expect(r.tooLarge).toEqual({ status: 413, code: "request_too_large" });
    expect(r.refusal).toEqual({ status: 400, code: "invalid_request" });
    // The page's own control request passes the guard through the worker; one without JSON does not.
    expect(r.pageControl).toEqual({ json: 200, bare: 400 });
    expect(r.exported).toEqual({ generations: 306, sameAsHub: true });
    expect(pageErrors).toEqual([]);
    // Every request to the hub was answered by the service worker (the name resolves nowhere).
    expect(hubRequests.some((h) => h.url.endsWith("/v1/events"))).toBe(true);
    expect(hubRequests.filter((h) => !h.fromServiceWorker)).toEqual([]);
    await page.close();
  });

  it("the browser example of docs/simulator.md runs to completion and prints the statuses up to DONE", async () => {
    const code = await bundleSample({ source: mswDocsSample("setupWorker(...handlers)"), resolveDir: at(".") }, "browser");
    const pageDir = join(dir, "docs-example");
    mkdirSync(pageDir);
    const context = await browser.newContext();
    try {
      const result = await runInPage(code, { context, pageDir, pageUrl: `${site.url}docs-example/index.html`, timeoutMs: 30_000 });
      expect(result.timedOut, result.output).toBe(false);
      expect(result.code, result.output).toBe(0);
      // Its own lines (MSW logs what it answers, too): "<generation id> <status>".
      const printed = result.output.split("\n").flatMap((line) => /^gen_\w+ ([A-Z_]+)$/.exec(line)?.slice(1) ?? []);
      expect(printed, result.output).toEqual(["QUEUED", "PENDING", "RUNNING", "DONE"]);
    } finally {
      await context.close();
    }
  });
});
