// The reference renderers on this contract, side by side (`npm run bench:docs`): what
// chose how the docs send requests (issue 27; the figures are in docs/contributing.md,
// "The reference docs and their try-it panel"). Prints figures; asserts nothing.
//
//   Redoc + panel   the site `npm run docs` builds (Redoc CE 3, our try-it panel)
//   Redoc alone     the same page without the panel's script and stylesheet
//   Scalar          @scalar/api-reference (its browser build, from consumers/: run
//                   `npm run consumers:install` first), on the same docs copy of the bundle
//
// Each is served as the simulator serves /docs (nosniff, the pages' CSP: no eval), and
// loaded cold in headless Chromium in interleaved rounds (BENCH_ROUNDS, default 5) at the
// submit operation, by today's link into the reference (#/generations/submitgeneration):
// page weight (every byte loaded, uncompressed as served), first contentful paint, the
// moment the operation's title shows, and what the CSP refused. Then, once each: today's
// link landing on the operation, search (the time from typing `Idempotency-Key` to a
// result), the Tab presses from the page's start to the operation's try-it control, the
// time from clicking it to a console ready to send, and the page's controls without an
// accessible name. The load average is printed: the
// machine is shared, so read the ratios of one run.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildDocsSite, readSamples } from "../src/docs/build.ts";
import { CONSOLE_SCRIPT, CONSOLE_STYLE } from "../src/docs/console/bundle.ts";
import { docsDocument } from "../src/docs/enrich.ts";
import { REFERENCE_PAGE } from "../src/docs/routes.ts";
import { CHROMIUM_ARGS, chromiumPath } from "../scripts/lib/chromium.ts";
import { at, consumers } from "../scripts/lib/paths.ts";
import { load, measureLoad, median, serveDocsFolder, size, type LoadFigures } from "../scripts/lib/reference-figures.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUTE = "#/generations/submitgeneration";
const TITLE = "Submit a generation";

interface Renderer {
  name: string;
  /** The page, relative to the served folder. */
  page: string;
  /** The submit operation's address in it. */
  route: string;
  /** How search is opened and where its results are. */
  search: { open: (page: Page) => Promise<void>; result: string };
  /** The operation's control that opens its request console. */
  tryIt: RegExp;
}

const executablePath = chromiumPath();
if (!executablePath) throw new Error("No Chromium at /usr/bin/chromium (or CHROMIUM_PATH): apt-get install -y chromium");
const work = mkdtempSync(join(tmpdir(), "bench-docs-"));
const site = join(work, "site");
await buildDocsSite({ outDir: site });

// Redoc alone: the same page without the panel.
const bare = readFileSync(join(site, REFERENCE_PAGE), "utf8").replace(/\s*<!-- The try-it panel[^>]*-->\s*<link[^>]*console\.css">\s*<script[^>]*console\.js"[^>]*><\/script>/, "");
if (bare.includes(CONSOLE_SCRIPT) || bare.includes(CONSOLE_STYLE)) throw new Error("could not take the panel out of the reference page");
writeFileSync(join(site, "reference-alone.html"), bare);

const renderers: Renderer[] = [
  { name: "Redoc + panel", page: REFERENCE_PAGE, route: ROUTE, search: { open: redocSearch, result: '[data-component-name="Search/SearchItem"]' }, tryIt: /^Try it$/ },
  { name: "Redoc alone", page: "reference-alone.html", route: ROUTE, search: { open: redocSearch, result: '[data-component-name="Search/SearchItem"]' }, tryIt: /^Try it$/ },
];

async function redocSearch(page: Page): Promise<void> {
  await page.locator('[data-testid="search-trigger"]', { hasText: "Search" }).click();
}

// Scalar, on the same docs copy of the bundle (code samples, error tables, gaps).
const scalarBuild = join(consumers.root, "node_modules/@scalar/api-reference/dist/browser");
let scalarVersion = "not installed (npm run consumers:install)";
if (existsSync(join(scalarBuild, "standalone.js"))) {
  scalarVersion = (JSON.parse(readFileSync(join(scalarBuild, "../../package.json"), "utf8")) as { version: string }).version;
  const dir = join(site, "scalar");
  mkdirSync(dir);
  cpSync(join(scalarBuild, "standalone.js"), join(dir, "standalone.js"));
  writeFileSync(join(dir, "openapi.json"), JSON.stringify(docsDocument({ samples: readSamples(at("docs/samples")) })));
  writeFileSync(
    join(dir, "index.html"),
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>API reference</title><link rel="icon" href="data:,"></head>\n<body><div id="app"></div><script src="standalone.js"></script>\n<script>Scalar.createApiReference("#app", { url: "openapi.json", withDefaultFonts: false })</script></body></html>\n`,
  );
  renderers.push({
    name: `Scalar ${scalarVersion}`,
    page: "scalar/index.html",
    // Its own address of the operation; today's links (ROUTE) are checked apart.
    route: "#tag/generations/POST/v1/generations",
    search: { open: async (page) => void (await page.keyboard.press("Control+k")), result: '[role="option"]' },
    tryIt: /^Test Request\(post \/v1\/generations\)$/,
  });
}

/** Tab presses from the page's start until the focus is on the operation's try-it control (0: not reached in 400). */
async function tabsToTryIt(page: Page, name: RegExp): Promise<number> {
  await page.locator("body").focus();
  for (let i = 1; i <= 400; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => (document.activeElement?.textContent ?? "").trim().slice(0, 60));
    if (name.test(focused)) return i;
  }
  return 0;
}

/** Controls (buttons, links, fields) without an accessible name, from Chromium's accessibility tree. */
async function unnamedControls(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[] };
  const controls = new Set(["button", "link", "textbox", "combobox", "checkbox", "searchbox", "tab", "menuitem", "option", "switch"]);
  return nodes.filter((n) => !n.ignored && controls.has(n.role?.value ?? "") && !(n.name?.value ?? "").trim()).length;
}

/** Once per renderer: today's link, search, keyboard and accessibility. */
async function inUse(browser: Browser, url: string, r: Renderer) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  try {
    const page = await context.newPage();
    // Today's link into the reference: does it show the operation?
    await page.goto(`${url}${r.page}${ROUTE}`, { waitUntil: "load" });
    await page.waitForTimeout(3000);
    const landed = await page.locator("h1, h2, h3", { hasText: new RegExp(`^${TITLE}$`) }).evaluateAll((hs) => hs.some((h) => {
      const b = h.getBoundingClientRect();
      return b.height > 0 && b.top >= 0 && b.top < 1000;
    }));
    await page.goto("about:blank");
    await page.goto(`${url}${r.page}${r.route}`, { waitUntil: "load" });
    await page.locator("h1, h2, h3", { hasText: new RegExp(`^${TITLE}$`) }).filter({ visible: true }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    const unnamed = await unnamedControls(page);
    const tabs = await tabsToTryIt(page, r.tryIt);
    // Its request console opened, until it offers to send.
    let consoleMs = NaN;
    try {
      const t0 = Date.now();
      await page.locator("button", { hasText: r.tryIt }).filter({ visible: true }).first().click();
      await page.locator("button", { hasText: /^Send/ }).filter({ visible: true }).first().waitFor({ timeout: 10_000 });
      consoleMs = Date.now() - t0;
    } catch {
      // Not opened: NaN.
    }
    let searchMs = NaN;
    try {
      await page.goto("about:blank");
      await page.goto(`${url}${r.page}`, { waitUntil: "load" });
      await page.waitForTimeout(1500);
      await r.search.open(page);
      const input = page.getByPlaceholder(/search/i).first();
      await input.waitFor({ timeout: 5_000 });
      const t0 = Date.now();
      await input.fill("Idempotency-Key");
      await page.locator(r.search.result).first().waitFor({ timeout: 10_000 });
      searchMs = Date.now() - t0;
    } catch {
      // No search found: NaN.
    }
    return { landed, unnamed, tabs, searchMs, consoleMs };
  } finally {
    await context.close();
  }
}

const served = await serveDocsFolder(site);
const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
try {
  console.log(`load average before: ${load()}; ${ROUNDS} interleaved rounds of cold loads at the submit operation`);
  const loads = new Map<string, LoadFigures[]>(renderers.map((r) => [r.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = renderers.map((_, i) => renderers[(i + round) % renderers.length]!);
    for (const r of order) loads.get(r.name)!.push(await measureLoad(browser, `${served.url}${r.page}${r.route}`, TITLE, 60_000));
  }
  console.log("\n| Renderer | Page weight | Files | First paint | Operation shown | CSP refused | Outside requests |");
  console.log("|---|---:|---:|---:|---:|---|---:|");
  for (const r of renderers) {
    const all = loads.get(r.name)!;
    const f = all[0]!;
    const refused = [...new Set(all.flatMap((x) => x.refused))];
    console.log(`| ${r.name} | ${size(median(all.map((x) => x.bytes)))} | ${f.files.length} | ${Math.round(median(all.map((x) => x.firstPaintMs)))} ms | ${Math.round(median(all.map((x) => x.shownMs)))} ms | ${refused.length ? refused.join("; ") : "none"} | ${f.outside.length} |`);
  }
  console.log("\n| Renderer | Today's link lands on the operation | Search `Idempotency-Key` | Tab presses to its try-it control | Its console open, ready to send | Controls without a name |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const r of renderers) {
    const u = await inUse(browser, served.url, r);
    console.log(`| ${r.name} | ${u.landed ? "yes" : "no"} | ${Number.isNaN(u.searchMs) ? "not found" : `${u.searchMs} ms`} | ${u.tabs || "not reached"} | ${Number.isNaN(u.consoleMs) ? "none" : `${u.consoleMs} ms`} | ${u.unnamed} |`);
  }
  console.log(`\nload average after: ${load()}`);
} finally {
  await browser.close();
  await served.close();
  rmSync(work, { recursive: true, force: true });
}
