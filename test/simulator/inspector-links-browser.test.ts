// The request inspector's links to a row, and its hub picker, in headless Chromium
// (Debian's, driven by playwright-core): `/_sim/ui/#request=<seq>` opens that journal row's
// exchange on load and when the hash changes, under a sandbox as
// `/sandboxes/{id}/_sim/ui/#request=<seq>`; a row opened offers its own link in that form,
// and a click on a row puts it in the address bar; the picker lists the sandboxes and opens
// one's inspector, which shows that sandbox's journal only. (The reference docs' console
// links its requests to the inspector this way.) Without Chromium this check cannot run: it
// says so loudly, and fails in CI (CI=true), where Chromium is installed.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HubControl, startSimulator, type RunningSimulator, type SandboxHandle } from "../../src/simulator/index.ts";
import { chromiumFor } from "../support/chromium.ts";

const browsers = chromiumFor("browser check of the request inspector's links and hub picker", "test/simulator/inspector-links-browser.test.ts");

describe.runIf(browsers.path)("the request inspector's row links and hub picker in Chromium", { timeout: 30_000 }, () => {
  let sim: RunningSimulator;
  let sandbox: SandboxHandle;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  /** A request to the simulator; answers its request id. */
  const send = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${sim.url}${path}`, { headers: { authorization: "Bearer ghk_demo_full", ...headers } })).headers.get("x-request-id")!;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, clockSpeed: 0 });
    sandbox = await HubControl.overHttp(sim.url).createSandbox();
    browser = await browsers.launch();
    page = await (await browser.newContext()).newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  });

  afterAll(async () => {
    await browser?.close();
    await sim?.close();
  });

  /** The request id of the exchange the detail panel shows. */
  const shownRequestId = async () => {
    await page.locator("#detail-body pre.curl").waitFor();
    return page.locator("#detail-body dd.mono").nth(1).textContent();
  };

  it("/_sim/ui/#request=<seq> opens that row's exchange on load, and another when the hash changes; the row offers its own link", async () => {
    const first = await send("/v1/me");
    const second = await send("/v1/whoami");
    const [row1] = await sim.requests({ requestId: first });
    const [row2] = await sim.requests({ requestId: second });
    await page.goto(`${sim.url}/_sim/ui/#request=${row1!.seq}`);
    expect(await shownRequestId()).toBe(first);
    expect(await page.locator("#detail-link").getAttribute("href")).toBe(`/_sim/ui/#request=${row1!.seq}`);
    await page.evaluate((seq) => (location.hash = `#request=${seq}`), row2!.seq);
    await expect.poll(() => page.locator("#detail-body dd.mono").nth(1).textContent()).toBe(second);
    expect(await page.locator("#detail-link").getAttribute("href")).toBe(`/_sim/ui/#request=${row2!.seq}`);
    // Followed, the link opens the same exchange in a fresh page.
    const other = await page.context().newPage();
    await other.goto(`${sim.url}${await page.locator("#detail-link").getAttribute("href")}`);
    await other.locator("#detail-body pre.curl").waitFor();
    expect(await other.locator("#detail-body dd.mono").nth(1).textContent()).toBe(second);
    await other.close();
    // A click on a row names it in the address bar.
    await page.locator(`tr.row[data-request-id="${first}"]`).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#request=${row1!.seq}`);
    // A number the journal does not hold says so.
    await page.evaluate(() => (location.hash = "#request=999999"));
    await expect.poll(() => page.locator("#detail-body").textContent()).toContain("Request 999999 is not in the journal");
    expect(problems).toEqual([]);
  });

  it("under a sandbox, /sandboxes/{id}/_sim/ui/#request=<seq> opens the sandbox's row, and its page shows the sandbox's journal only", async () => {
    const inSandbox = await send("/v1/generations", { "hub-sandbox": sandbox.id });
    const inMain = await send("/v1/generations");
    const [row] = await sandbox.control.requests({ requestId: inSandbox });
    await page.goto(`${sandbox.base_url}/_sim/ui/#request=${row!.seq}`);
    expect(await shownRequestId()).toBe(inSandbox);
    expect(await page.locator("#detail-link").getAttribute("href")).toBe(`/sandboxes/${sandbox.id}/_sim/ui/#request=${row!.seq}`);
    await page.locator(`tr.row[data-request-id="${inSandbox}"]`).waitFor();
    expect(await page.locator(`tr.row[data-request-id="${inMain}"]`).count()).toBe(0);
    expect(await page.locator("#scenario").textContent()).toContain(`sandbox ${sandbox.id}`);
    // Live: a request to the sandbox appears on its page, one to the default hub does not.
    const later = await send("/v1/me", { "hub-sandbox": sandbox.id });
    const elsewhere = await send("/v1/me");
    await page.locator(`tr.row[data-request-id="${later}"]`).waitFor({ timeout: 3_000 });
    expect(await page.locator(`tr.row[data-request-id="${elsewhere}"]`).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("the hub picker lists the default hub and every sandbox, and opens the one chosen", async () => {
    const another = await HubControl.overHttp(sim.url).createSandbox({ scenario: "empty-account" });
    await page.goto(`${sim.url}/_sim/ui/`);
    const picker = page.locator("#hub-pick");
    await expect.poll(async () => (await picker.locator("option").allTextContents()).length).toBeGreaterThanOrEqual(3);
    const labels = await picker.locator("option").allTextContents();
    expect(labels[0]).toBe("default hub");
    expect(labels).toContain(`sandbox ${another.id} (empty-account)`);
    expect(await picker.inputValue()).toBe("");
    await picker.selectOption(another.id);
    await page.waitForURL(`${another.base_url}/_sim/ui/`);
    await expect.poll(() => page.locator("#scenario").textContent()).toContain(`sandbox ${another.id}, scenario empty-account`);
    expect(await page.locator("#hub-pick").inputValue()).toBe(another.id);
    await page.locator("#hub-pick").selectOption("");
    await page.waitForURL(`${sim.url}/_sim/ui/`);
    expect(problems).toEqual([]);
  });
});
