// The reference docs checked the way a reader uses them (issue 6): in headless Chromium
// (Debian's `chromium`, driven by playwright-core), served from a local server under a
// mount path as the simulator serves them (/docs/). Without Chromium this check cannot run:
// it says so loudly, and fails in CI (CI=true), where Chromium is installed.
//
// Why it takes 45 to 60 s on the shared 2-core machine: Redoc renders the reference in a
// real Chromium, and every operation and every schema a guide links to is opened at its
// route and its layout judged (about ten seconds each for the two loops); it is the only
// check that a reader's route lands on a rendered heading.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocsSite } from "../../src/docs/build.ts";
import { REQUIRED_GUIDES } from "../../src/docs/guides.ts";
import { REFERENCE_PAGE, referenceOperations } from "../../src/docs/routes.ts";
import { at } from "../../scripts/lib/paths.ts";
import { serveSite, type StaticSite } from "./support.ts";
import { chromiumFor } from "../support/chromium.ts";

const browsers = chromiumFor("browser check of the docs", "test/docs/browser.test.ts");
/** Screenshots for a human to look at (not compared by the tests). */
const SCREENSHOTS = at("test-results/docs");
const SCREENSHOT = join(SCREENSHOTS, "operation-submitGeneration.png");

async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, name), fullPage });
}

/**
 * Layout faults of the operation shown in the reference: its error-code table open by
 * default or placed after the request body, and code blocks (samples, payloads) whose
 * lines overflow their box or run under the block's copy button.
 */
function operationLayoutFaults(route: string): string[] {
  const faults: string[] = [];
  const box = (e: Element) => e.getBoundingClientRect();
  // The operation's own element (a neighbour may still be in the page while routes change).
  const operation = document.getElementById(route.replace(/^#\//, ""));
  if (!operation) return [`no element with the id of ${route}`];
  const errors = operation.querySelector("details.error-codes") as HTMLDetailsElement | null;
  const body = operation.querySelector('[id$="/request/body"]');
  if (errors?.open) faults.push("the error-code table is open by default");
  if (errors && body && box(body).top < box(errors).top) faults.push("the error-code table comes after the request body");
  for (const block of operation.querySelectorAll('[data-component-name="CodeBlock/CodeBlock"]')) {
    const pre = block.querySelector('[data-component-name="CodeBlock/CodeBlockContainer"]');
    if (!pre || box(pre).width === 0) continue;
    const first = (pre.textContent ?? "").trim().split("\n")[0]!.slice(0, 40);
    if (pre.scrollWidth > pre.clientWidth + 1) faults.push(`code block "${first}" overflows: ${pre.scrollWidth} px of text in ${pre.clientWidth} px`);
    const copy = block.querySelector('[data-testid="copy-button"]');
    if (!copy) continue;
    const c = box(copy);
    const range = document.createRange();
    range.selectNodeContents(pre);
    for (const r of range.getClientRects()) {
      if (r.width > 0 && r.left < c.right && r.right > c.left && r.top < c.bottom && r.bottom > c.top) {
        faults.push(`code block "${first}": its copy button covers text`);
        break;
      }
    }
  }
  return faults;
}

describe.runIf(browsers.path)("docs in a browser", { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "docs-browser-test-"));
  const dir = join(work, "site");
  let site: StaticSite;
  let browser: Browser;
  let context: BrowserContext;
  const outside: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    await buildDocsSite({ outDir: dir });
    // Under the headers the simulator serves /docs with (nosniff, each page's CSP).
    site = await serveSite(dir, "/docs/", { docsHeaders: true });
    browser = await browsers.launch();
    // Reduced motion: Redoc scrolls to a route without animation, so routes settle at once.
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, reducedMotion: "reduce" });
    context.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(site.url) && !url.startsWith("blob:") && !url.startsWith("data:")) outside.push(url);
    });
  });

  afterAll(async () => {
    await browsers.close();
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
    const faults: string[] = [];
    for (const op of operations) {
      await landOn(page, op.route, op.summary);
      // The client's sample is rendered in the request panel before its layout is judged.
      await page.locator(`[id="${op.route.slice(2)}"] [data-component-name="CodeBlock/CodeBlockContainer"]`).first().waitFor({ state: "visible" });
      faults.push(...(await page.evaluate(operationLayoutFaults, op.route)).map((f) => `${op.operationId}: ${f}`));
      // The navigation lists it too, and marks it as the page shown.
      await expect
        .poll(() => page.locator(`a[href$="${op.route}"] [data-active="true"]`).count(), { message: `${op.operationId} in the navigation` })
        .toBeGreaterThan(0);
    }
    expect(faults).toEqual([]);
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

  it("an operation shows its request body before its error codes, which open on a click (screenshots)", async () => {
    const page = await open(`${REFERENCE_PAGE}#/generations/submitgeneration`);
    await landOn(page, "#/generations/submitgeneration", "Submit a generation");
    const operation = page.locator('[id="generations/submitgeneration"]');
    const errors = operation.locator("details.error-codes");
    const body = operation.locator('[id$="/request/body"]');
    await body.waitFor({ state: "visible" });
    const closed = (await errors.boundingBox())!;
    const bodyClosed = (await body.boundingBox())!;
    expect(await errors.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(closed.height).toBeLessThan(60); // one line: its summary
    expect(closed.y).toBeLessThan(bodyClosed.y);
    await page.getByText("hub.submit(", { exact: false }).first().waitFor({ state: "visible" });
    await screenshot(page, "operation-submitGeneration-error-codes-closed.png");

    await errors.locator("summary").click();
    const rows = errors.locator("tbody tr");
    await rows.first().waitFor({ state: "visible" });
    const opened = (await errors.boundingBox())!;
    const bodyOpened = (await body.boundingBox())!;
    expect(await rows.count()).toBeGreaterThan(10);
    expect(opened.height).toBeGreaterThan(closed.height * 10);
    // Opening it moves the body down by exactly what the table adds.
    expect(Math.abs(bodyOpened.y - bodyClosed.y - (opened.height - closed.height))).toBeLessThan(2);
    await screenshot(page, "operation-submitGeneration-error-codes-open.png");
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("guides' code blocks wrap long lines instead of cutting them off, at 1400 px and on a narrow screen (screenshots)", async () => {
    const overflows: string[] = [];
    let blocks = 0;
    for (const width of [1400, 700]) {
      const page = await open("guides/getting-started.html");
      await page.setViewportSize({ width, height: 1000 });
      for (const slug of [...REQUIRED_GUIDES, "simulator"]) {
        await page.goto(`${site.url}guides/${slug}.html`, { waitUntil: "load" });
        const found = await page.$$eval("main pre", (pres) =>
          pres.filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => `${p.scrollWidth} > ${p.clientWidth}: ${(p.textContent ?? "").slice(0, 50)}`),
        );
        overflows.push(...found.map((f) => `${slug} at ${width} px: ${f}`));
        blocks += await page.locator("main pre").count();
      }
      await page.goto(`${site.url}guides/getting-started.html#6-follow-it-to-a-final-status`, { waitUntil: "load" });
      await screenshot(page, `guide-getting-started-code-${width}px.png`);
      await page.close();
    }
    expect(blocks).toBeGreaterThan(40);
    expect(overflows).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it("every card of the home page has its text, the simulator's too (screenshot)", async () => {
    const page = await open("");
    const cards = page.locator("ul.cards li");
    expect(await cards.count()).toBeGreaterThanOrEqual(REQUIRED_GUIDES.length + 1);
    for (const card of await cards.all()) {
      const title = (await card.locator("a").textContent())!;
      const text = card.locator("p");
      expect((await text.textContent())!.trim().length, title).toBeGreaterThan(40);
      expect((await text.boundingBox())!.height, title).toBeGreaterThan(20);
    }
    expect(await page.locator('ul.cards li:has(a[href="guides/simulator.html"]) p').textContent()).toContain("simulator");
    await screenshot(page, "home.png", true);
    await page.close();
  });

  it("'Listed by: N operations' in the errors guide leads to the N operations, and they to the reference (screenshots)", async () => {
    const page = await open("guides/errors.html#error-codes");
    const many = page.locator("main table td a", { hasText: /^\d+ operations$/ });
    expect(await many.count()).toBeGreaterThan(5);
    await screenshot(page, "guide-errors-listed-by.png");
    const link = many.first();
    const count = Number((await link.textContent())!.split(" ")[0]);
    const target = (await link.getAttribute("href"))!;
    await link.click();
    await page.waitForURL((url) => url.hash === target);
    const heading = page.locator(target);
    await expect.poll(async () => {
      const b = await heading.boundingBox();
      return b !== null && b.y > 40 && b.y < 400; // below the sticky header, at the top of the screen
    }, { message: `${target} scrolls into view` }).toBe(true);
    // The paragraph after the heading links each of the operations, into the reference.
    const links = page.locator(`${target} + p a`);
    expect(await links.count()).toBe(count);
    const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
    expect(hrefs).not.toHaveLength(0);
    for (const href of hrefs) expect(href).toMatch(new RegExp(`^\\.\\./${REFERENCE_PAGE.replace(".", "\\.")}#/`));
    await screenshot(page, "guide-errors-operations-of-a-code.png");
    const first = links.first();
    const route = (await first.getAttribute("href"))!.split("#")[1]!;
    await first.click();
    await page.waitForURL(new RegExp(`${REFERENCE_PAGE.replace(".", "\\.")}#${route.replace(/\//g, "\\/")}$`));
    await landOn(page, `#${route}`);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("the simulator guide opens on what the simulator answers (screenshot)", async () => {
    const page = await open("guides/simulator.html");
    const intro = (await page.locator("main > p").nth(1).textContent())!;
    expect(intro).toMatch(/^It answers every operation of the contract/);
    await screenshot(page, "guide-simulator.png");
    await page.close();
  });

  it("a reader goes from the home page through the guides to the operations they name", async () => {
    const page = await open("");
    expect(REQUIRED_GUIDES.length).toBeGreaterThan(0);
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
