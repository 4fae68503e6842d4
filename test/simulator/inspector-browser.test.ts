// The request inspector (/_sim/ui/) in a real browser: headless Chromium (Debian's, driven
// by playwright-core) opens the page; requests sent from outside it appear within a second
// with their request ids and the refusal's error code; its buttons steer the hub (force an
// outcome, advance the clock) and the generation's row moves; everything it loads comes
// from the simulator (every request of the page intercepted); and a page of another
// origin reads neither the journal nor the push channel. Without Chromium this check
// cannot run: it says so loudly, and fails in CI (CI=true), where Chromium is installed.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFor } from "../support/chromium.ts";
import { FULL, startSim, type Sim } from "./support/harness.ts";

const browsers = chromiumFor("browser check of the request inspector", "test/simulator/inspector-browser.test.ts");

const VIDEO = { type: "video", model: "video-model-a", prompt: "a lighthouse at dusk", duration: 5 };

describe.runIf(browsers.path)("the request inspector in Chromium", { timeout: 30_000 }, () => {
  let sim: Sim;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let elsewhere: Server;
  let elsewherePort: number;
  /** Every request the inspector's page made, and what went wrong in it. */
  const requested: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    sim = await startSim();
    // A page of another origin: a second local server under a name mapped to 127.0.0.1.
    elsewhere = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>elsewhere</title><p>a page elsewhere</p>"));
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    elsewherePort = (elsewhere.address() as AddressInfo).port;
    browser = await browsers.launch(["--host-resolver-rules=MAP elsewhere.test 127.0.0.1"]);
    context = await browser.newContext();
    const own = new URL(sim.url).origin;
    // Every request of the inspector's context is intercepted: recorded, and one to any other
    // place than the simulator would be refused (and fail the check below).
    await context.route("**/*", (route) => {
      const url = route.request().url();
      requested.push(url);
      return new URL(url).origin === own ? route.continue() : route.abort("blockedbyclient");
    });
    page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.goto(`${sim.url}/_sim/ui/`);
    await page.locator("#live.on").waitFor({ timeout: 5_000 });
  });

  afterAll(async () => {
    await browsers.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
    await sim?.close();
  });

  it("a refused request and a submit sent from outside the page appear within a second, with their request ids and the refusal's error code", async () => {
    const refused = await sim.get("/v1/me", { key: "ghk_demo_revoked" });
    const submitted = await sim.submit(VIDEO);
    const sentAt = Date.now();
    const refusedRow = page.locator(`tr.row[data-request-id="${refused.json.error.request_id}"]`);
    const submitRow = page.locator(`tr.row[data-request-id="${submitted.headers.get("x-request-id")}"]`);
    await refusedRow.waitFor({ timeout: 1_000 });
    await submitRow.waitFor({ timeout: Math.max(1, 1_000 - (Date.now() - sentAt)) });
    expect(Date.now() - sentAt).toBeLessThan(1_000);
    expect(await refusedRow.locator("td.code").textContent()).toBe("api_key_revoked");
    expect(await refusedRow.locator("td.rid").textContent()).toBe(refused.json.error.request_id);
    expect(await submitRow.locator("td.rid").textContent()).toBe(submitted.headers.get("x-request-id"));
    expect(await submitRow.getAttribute("data-status")).toBe("202");
    // The reason in words under the row, and the whole exchange on a click: masked, with a curl line.
    const why = page.locator(`tr.why[data-seq="${await refusedRow.getAttribute("data-seq")}"]`);
    expect(await why.textContent()).toContain('the refusal ladder, rung "credential"');
    await refusedRow.click();
    const detail = page.locator("#detail-body");
    await detail.locator("pre.curl").waitFor();
    expect(await detail.locator("pre.curl").textContent()).toContain("Authorization: Bearer $HUB_KEY");
    expect(await detail.locator(".reason a").getAttribute("href")).toMatch(/^\/docs\/reference\.html#\/account\/readaccount$/);
    const shown = await page.content();
    expect(shown).toContain("ghk_… (key_revoked)");
    expect(shown).not.toContain("ghk_demo_revoked");
    expect(shown).not.toContain(FULL);
  });

  it("clicking Force outcome and Advance clock moves the generation's row", async () => {
    const submitted = await sim.submit(VIDEO);
    const id = submitted.json.id as string;
    const row = (status: string) => page.locator(`tr.gen[data-generation="${id}"][data-status="${status}"]`);
    await row("QUEUED").waitFor({ timeout: 3_000 });
    await row("QUEUED").locator("select.outcome").selectOption("fail");
    await row("QUEUED").getByRole("button", { name: "Force outcome" }).click();
    await expect.poll(() => sim.hub.state.generations.get(id)!.steps.map((s) => s.status)).toContain("FAILED");
    await page.getByRole("button", { name: "Advance clock" }).click();
    await row("FAILED").waitFor({ timeout: 3_000 });
    expect(sim.hub.state.generations.get(id)!.status).toBe("FAILED");
    expect(await row("FAILED").locator(".timeline").first().textContent()).toMatch(/QUEUED .*PENDING .*RUNNING .*FAILED/);
    // Both clicks went through the control routes a script calls, and the journal shows them.
    const routes = (await sim.running.requests({ route: "/_sim/" })).map((r) => r.route);
    expect(routes).toEqual(expect.arrayContaining(["POST /_sim/generations/{id}/outcome", "POST /_sim/clock/advance"]));
  });

  it("filters by status class through the journal's route, and its other controls steer the hub: clock, faults, reset", async () => {
    await page.locator("#filter-status").selectOption("4xx");
    await expect.poll(async () => [...new Set(await page.locator("tr.row").evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.status!.slice(0, 1))))]).toEqual(["4"]);
    await page.locator("#filter-status").selectOption("");
    await expect.poll(() => page.locator('tr.row[data-status="202"]').count()).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Resume clock" }).click();
    await expect.poll(() => sim.hub.clock.speed).toBe(1);
    await page.getByRole("button", { name: "Pause clock" }).click();
    await expect.poll(() => sim.hub.clock.speed).toBe(0);
    await page.locator("#fault-kind").selectOption("service_unavailable");
    await page.locator("#fault-route").fill("readAccount");
    await page.locator("#fault-count").fill("2");
    await page.getByRole("button", { name: "Add fault" }).click();
    await expect.poll(() => sim.hub.faults.list().map((f) => [f.kind, f.route, f.count])).toEqual([["service_unavailable", "readAccount", 2]]);
    await page.locator("#faults tr[data-fault]").waitFor();
    await page.getByRole("button", { name: "Clear faults" }).click();
    await expect.poll(() => sim.hub.faults.size).toBe(0);
    await page.getByRole("button", { name: "Reset" }).click();
    await expect.poll(() => sim.hub.state.generations.size).toBe(0);
    await page.locator('tr.row[data-status="200"] td.path', { hasText: "/_sim/reset" }).first().waitFor();
  });

  it("its generation and scenario controls steer the hub: Cancel, Delete, Load a shipped scenario, Export it", async () => {
    const row = (id: string, status: string) => page.locator(`tr.gen[data-generation="${id}"][data-status="${status}"]`);
    // A queued generation cancelled is gone (deleted: true), as the requirements' cancellation is.
    const queued = (await sim.submit(VIDEO)).json.id as string;
    await row(queued, "QUEUED").getByRole("button", { name: "Cancel" }).click();
    await row(queued, "deleted").waitFor({ timeout: 3_000 });
    // A finished one is deleted.
    const done = (await sim.submit(VIDEO)).json.id as string;
    await row(done, "QUEUED").locator("select.outcome").selectOption("done");
    await row(done, "QUEUED").getByRole("button", { name: "Force outcome" }).click();
    await page.getByRole("button", { name: "Advance clock" }).click();
    await row(done, "DONE").getByRole("button", { name: "Delete" }).click();
    await row(done, "deleted").waitFor({ timeout: 3_000 });
    expect(sim.hub.state.generations.get(done)!.deleted).toBe(true);
    const routes = (await sim.running.requests({ route: "/_sim/generations/" })).map((r) => [r.route, r.status]);
    expect(routes).toEqual(expect.arrayContaining([["POST /_sim/generations/{id}/cancel", 200], ["DELETE /_sim/generations/{id}", 200]]));

    await page.locator("#scenario-name").selectOption("busy-account");
    await page.getByRole("button", { name: "Load", exact: true }).click();
    await expect.poll(() => sim.hub.scenario.name).toBe("busy-account");
    await expect.poll(() => page.locator("#scenario-export").getAttribute("download")).toBe("busy-account.json");
    expect(await page.locator("#scenario-export").getAttribute("href")).toBe("/_sim/scenario");
  });

  it("the page loads nothing from outside the machine: every request it made went to the simulator", () => {
    const own = new URL(sim.url).origin;
    expect(requested.length).toBeGreaterThan(5);
    expect(requested.filter((url) => new URL(url).origin !== own)).toEqual([]);
    const paths = new Set(requested.map((url) => new URL(url).pathname));
    for (const path of ["/_sim/ui/", "/_sim/ui/app.js", "/_sim/ui/app.css", "/_sim/ui/events", "/_sim/overview"]) expect(paths).toContain(path);
    expect(problems).toEqual([]);
  });

  for (const name of ["elsewhere.test", "localhost"]) {
    it(`a page of http://${name}:<port> reads neither the journal nor the push channel`, async () => {
      const other = await browser.newPage();
      try {
        await other.goto(`http://${name}:${elsewherePort}/`);
        const seen = await other.evaluate(async (base) => {
          const outcome = (p: Promise<Response>) => p.then((r) => `read ${r.status}`, () => "blocked");
          const channel = await new Promise<string>((resolve) => {
            const source = new EventSource(`${base}/_sim/ui/events`);
            source.addEventListener("requests", () => resolve("read a frame"));
            source.onerror = () => {
              source.close();
              resolve("blocked");
            };
            setTimeout(() => resolve("nothing"), 3_000);
          });
          return {
            journal: await outcome(fetch(`${base}/_sim/requests`)),
            exchange: await outcome(fetch(`${base}/_sim/requests/1`)),
            overview: await outcome(fetch(`${base}/_sim/overview`)),
            channel,
          };
        }, sim.url);
        expect(seen).toEqual({ journal: "blocked", exchange: "blocked", overview: "blocked", channel: "blocked" });
      } finally {
        await other.close();
      }
    });
  }
});
