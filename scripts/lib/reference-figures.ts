// What a reader's browser pays for the reference page: its weight (every byte of every
// file it loads, as the simulator serves them: no compression) and its first render in
// headless Chromium (first contentful paint, and the moment an operation's title shows).
// Shared by `npm run docs`, which prints them for the page it built, and `npm run
// bench:docs`, which measures the other renderers on the same contract.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { chromium, type Browser } from "playwright-core";
import { docsFile, docsHeaders } from "../../src/simulator/http/docs.ts";
import { CHROMIUM_ARGS, chromiumPath } from "./chromium.ts";

export interface LoadFigures {
  /** Bytes of every answer the page's load took (bodies, uncompressed as served). */
  bytes: number;
  /** Files the page loaded, each with its size. */
  files: { path: string; bytes: number }[];
  /** First contentful paint, ms after navigation start. */
  firstPaintMs: number;
  /** When a heading with the operation's title first showed, ms after navigation start. */
  shownMs: number;
  /** What the page's policy refused it (an `eval`, a script from elsewhere). */
  refused: string[];
  /** Addresses it asked for outside the folder served. */
  outside: string[];
}

/** Serves a folder at /docs/ with the headers the simulator serves its docs with (nosniff, each page's CSP). */
export async function serveDocsFolder(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const file = path.startsWith("/docs/") ? docsFile(dir, path) : undefined;
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, docsHeaders(path, file)).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Marks the moment a heading reading `title` appears (window.__shown), and keeps what the
 * page's policy refuses (window.__refused). Runs before the page's own scripts.
 */
const WATCH = (title: string) => `(() => {
  window.__refused = [];
  document.addEventListener("securitypolicyviolation", (e) => window.__refused.push(e.violatedDirective + " " + (e.blockedURI || "")));
  const seen = () => [...document.querySelectorAll("h1, h2, h3")].some((h) => h.textContent.trim() === ${JSON.stringify(title)} && h.getBoundingClientRect().height > 0);
  const observer = new MutationObserver(() => { if (window.__shown === undefined && seen()) { window.__shown = performance.now(); observer.disconnect(); } });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

/** One cold load of `url` in a fresh browser context, until a heading reads `title`. */
export async function measureLoad(browser: Browser, url: string, title: string, timeoutMs = 30_000): Promise<LoadFigures> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  try {
    await context.addInitScript(WATCH(title));
    const page = await context.newPage();
    const origin = new URL(url).origin;
    const done: Promise<void>[] = [];
    const files: LoadFigures["files"] = [];
    const outside: string[] = [];
    page.on("requestfinished", (request) => {
      if (!request.url().startsWith(origin)) {
        if (!/^(data|blob):/.test(request.url())) outside.push(request.url());
        return;
      }
      done.push(request.sizes().then((s) => void files.push({ path: new URL(request.url()).pathname, bytes: s.responseBodySize })));
    });
    page.on("requestfailed", (request) => void (!/^(data|blob):/.test(request.url()) && !request.url().startsWith(origin) && outside.push(request.url())));
    await page.goto(url, { waitUntil: "load", timeout: timeoutMs });
    await page.waitForFunction(() => (window as unknown as { __shown?: number }).__shown !== undefined, undefined, { timeout: timeoutMs });
    await Promise.all(done);
    const timing = await page.evaluate(() => ({
      firstPaintMs: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
      shownMs: (window as unknown as { __shown: number }).__shown,
      refused: (window as unknown as { __refused: string[] }).__refused,
    }));
    return { bytes: files.reduce((n, f) => n + f.bytes, 0), files, outside, ...timing };
  } finally {
    await context.close();
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** A size as people read it: MiB from one MiB up, else KiB. */
export const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);
export const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");

/**
 * The built reference page's weight and first render (the median of `rounds` cold loads
 * at the submit operation), or why they were not measured.
 */
export async function referenceFigures(dir: string, page: string, route: string, title: string, rounds = 3): Promise<{ figures: LoadFigures; rounds: LoadFigures[] } | { skipped: string }> {
  const executablePath = chromiumPath();
  if (!executablePath) return { skipped: "no Chromium at /usr/bin/chromium (or CHROMIUM_PATH): apt-get install -y chromium" };
  const served = await serveDocsFolder(dir);
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const all: LoadFigures[] = [];
    for (let i = 0; i < rounds; i++) all.push(await measureLoad(browser, `${served.url}${page}${route}`, title));
    const byShown = [...all].sort((a, b) => a.shownMs - b.shownMs);
    return { figures: { ...byShown[Math.floor(all.length / 2)]!, firstPaintMs: median(all.map((f) => f.firstPaintMs)), shownMs: median(all.map((f) => f.shownMs)) }, rounds: all };
  } finally {
    await browser.close();
    await served.close();
  }
}
