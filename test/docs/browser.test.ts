// The reference docs checked the way a reader uses them (issue 6): in headless Chromium
// (Debian's `chromium`, driven by playwright-core), served from a local server under a
// mount path as the simulator serves them (/docs/). Without Chromium this check cannot run:
// it says so loudly, and fails in CI (CI=true), where Chromium is installed.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocsSite } from "../../src/docs/build.ts";
import { REQUIRED_GUIDES } from "../../src/docs/guides.ts";
import { REFERENCE_PAGE, referenceOperations } from "../../src/docs/routes.ts";
import { at } from "../../scripts/lib/paths.ts";
import { serveSite, type StaticSite } from "./support.ts";
import { CHROMIUM_ARGS, chromiumFor } from "../support/chromium.ts";

const executablePath = chromiumFor("browser check of the docs", "test/docs/browser.test.ts");
const SCREENSHOT = at("test-results/docs/operation-submitGeneration.png");

describe.runIf(executablePath)("docs in a browser", { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "docs-browser-test-"));
  const dir = join(work, "site");
  let site: StaticSite;
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    await buildDocsSite({ outDir: dir });
    site = await serveSite(dir, "/docs/");
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    // Reduced motion: Redoc scrolls to a route without animation, so routes settle at once.
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, reducedMotion: "reduce" });
    context.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(site.url) && !url.startsWith("blob:") && !url.startsWith("data:")) outside.push(url);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function open(path: string): Promise<Page> {
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(`${path}: ${message.text()} ${JSON.stringify(message.location())}`);
    });
    page.on("pageerror", (error) => consoleErrors.push(`${path}: ${error.message}`));
    await page.goto(site.url + path, { waitUntil: "load" });
    return page;
  }

  /**
   * Opens a route of the reference and waits for the heading it names (Redoc gives every
   * heading a deep link to its own route), rendered and scrolled into view.
   */
  async function landOn(page: Page, route: string, title?: string): Promise<void> {
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, route);
    const heading = page.locator(`h1:has(a[href="${route}"]), h2:has(a[href="${route}"])`).first();
    await heading.waitFor({ state: "visible", timeout: 10_000 });
    if (title) expect(await heading.textContent(), route).toContain(title);
    await expect
      .poll(async () => {
        const box = await heading.boundingBox();
        return box !== null && box.y >= 0 && box.y < 1000;
      }, { timeout: 5_000, message: `${route} scrolls to its heading` })
      .toBe(true);
  }

  it("the reference loads with no console error and no request outside localhost", async () => {
    const page = await open(REFERENCE_PAGE);
    await page.locator('[data-testid="search-trigger"]').waitFor({ state: "visible" });
    expect(await page.title()).toContain("API reference");
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it("every operation of the document appears at its route", async () => {
    const page = await open(REFERENCE_PAGE);
    const operations = referenceOperations();
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      await landOn(page, op.route, op.summary);
      // The navigation lists it too, and marks it as the page shown.
      await expect
        .poll(() => page.locator(`a[href$="${op.route}"] [data-active="true"]`).count(), { message: `${op.operationId} in the navigation` })
        .toBeGreaterThan(0);
    }
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("searching finds Idempotency-Key, and a result leads to the operation", async () => {
    const page = await open(REFERENCE_PAGE);
    await page.locator('[data-testid="search-trigger"]').click();
    const input = page.getByPlaceholder(/search/i);
    await input.waitFor({ state: "visible" });
    await input.fill("Idempotency-Key");
    const results = page.locator('[data-component-name="Search/SearchItem"]');
    await results.first().waitFor({ state: "visible", timeout: 10_000 });
    const texts = await results.allTextContents();
    expect(texts.some((t) => t.includes("Idempotency-Key"))).toBe(true);
    const submit = results.filter({ hasText: "Submit a generation" }).first();
    await submit.click();
    await expect.poll(() => page.url()).toMatch(/#\/generations\/submitgeneration/);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("saves a screenshot of an operation page (test-results/docs/)", async () => {
    const page = await open(`${REFERENCE_PAGE}#/generations/submitgeneration`);
    await landOn(page, "#/generations/submitgeneration", "Submit a generation");
    await page.getByText("Error codes", { exact: true }).first().waitFor({ state: "visible" });
    // The client's code sample is the first thing in the request panel.
    await page.getByText("hub.submit(", { exact: false }).first().waitFor({ state: "visible" });
    // The search index is ready (the box no longer says "Loading...").
    await page.locator('[data-testid="search-trigger"]', { hasText: "Search" }).waitFor({ state: "visible" });
    mkdirSync(join(SCREENSHOT, ".."), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(20_000);
    await page.close();
  });

  it("a reader goes from the home page through the guides to the operations they name", async () => {
    const page = await open("");
    for (const slug of REQUIRED_GUIDES) {
      await expect.poll(() => page.locator(`main a[href="guides/${slug}.html"]`).count(), { message: slug }).toBeGreaterThan(0);
    }
    await page.locator('main a[href="guides/getting-started.html"]').first().click();
    await page.waitForURL(/guides\/getting-started\.html$/);
    expect(await page.locator("h1").first().textContent()).toContain("Getting started");
    // The guide's link to the submit operation opens the reference on it.
    await page.locator('main a[href$="#/generations/submitgeneration"]').first().click();
    await page.waitForURL(/reference\.html#\/generations\/submitgeneration$/);
    await landOn(page, "#/generations/submitgeneration", "Submit a generation");
    // And the reference's overview links back to the guides.
    await page.evaluate(() => {
      window.location.hash = "#/";
    });
    await page.locator('a[href="guides/errors.html"]').first().click();
    await page.waitForURL(/guides\/errors\.html$/);
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });

  it("every page of the site loads with no console error, no outside request, nothing outside the mount path", async () => {
    const guides = readdirSync(join(dir, "guides")).filter((f) => f.endsWith(".html"));
    expect(guides.length).toBeGreaterThanOrEqual(REQUIRED_GUIDES.length);
    for (const path of ["", "index.html", ...guides.map((g) => `guides/${g}`)]) {
      const page = await open(path);
      await page.close();
    }
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
    expect(site.requests.filter((p) => !p.startsWith("/docs/"))).toEqual([]);
  });

  it("every link from a guide into the reference lands on a rendered heading", async () => {
    const targets = new Set<string>();
    for (const slug of REQUIRED_GUIDES) {
      const html = readFileSync(join(dir, "guides", `${slug}.html`), "utf8");
      for (const m of html.matchAll(new RegExp(`href="\\.\\./${REFERENCE_PAGE.replace(".", "\\.")}(#/[^"]*)"`, "g"))) targets.add(m[1]!);
    }
    expect(targets.size).toBeGreaterThan(20);
    const page = await open(REFERENCE_PAGE);
    const operationRoutes = new Set(referenceOperations().map((o) => o.route));
    // Operations are checked one by one above; here the schemas and tags the guides name.
    const others = [...targets].filter((r) => !operationRoutes.has(r));
    expect(others.filter((r) => r.startsWith("#/schemas/")).length).toBeGreaterThan(5);
    for (const route of others) await landOn(page, route);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });
});
