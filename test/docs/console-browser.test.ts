// The reference's try-it panel in headless Chromium (issue 27), against a simulator started
// in this process as `npm start` starts it, serving the docs the build makes: one browser
// and one simulator for the file. Also the docs served at a prefixed path (a proxy that
// records every path asked) and in a real sandbox, the static site with no simulator behind it, and a page of another origin trying
// to drive or read the panel. (The same flows against the packed `generation-hub mock`:
// test/devtools/consumer.test.ts.)
// 24 to 34 s on this machine in full runs (three test workers sharing the two cores): each
// flow renders the reference in a real Chromium, the only place the panel's sends and
// refusals can be judged.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocsSite } from "../../src/docs/build.ts";
import { CONSOLE_APP, CONSOLE_SCRIPT } from "../../src/docs/console/bundle.ts";
import { HubControl, startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { chromiumFor } from "../support/chromium.ts";
import {
  eventsFromAnotherPanel,
  journalRows,
  missingScope,
  noCredentialMeansNone,
  openAt,
  openPanel,
  pickCredential,
  referenceOf,
  sendAndRead,
  submitThroughSearch,
  watchErrors,
  wrongBodyFlagged,
  type ConsoleTarget,
} from "./console-flows.ts";
import { serveSite, type StaticSite } from "./support.ts";

const browsers = chromiumFor("browser check of the docs' try-it panel", "test/docs/console-browser.test.ts");

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const close = (server: Server | undefined) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

/** Serves the simulator under /sandboxes/team-a/ (the prefix cut off), as a sandbox's pages are served; records every path asked. */
function prefixProxy(target: () => string, prefix: string, seen: string[]): Server {
  return createServer((req, res) => {
    const path = req.url ?? "/";
    seen.push(path);
    if (!path.startsWith(`${prefix}/`)) {
      res.writeHead(404).end("outside the sandbox");
      return;
    }
    const to = new URL(path.slice(prefix.length), target());
    const forward = httpRequest(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
}

/** A page of another site: it frames the docs, opens them and messages them, and tries to read the journal. */
const ATTACKER = (docs: string, journal: string) => `<!doctype html><html><body>
<button id="open">Open the docs</button>
<iframe id="framed" src="${docs}#/generations/submitgeneration"></iframe>
<script>
window.results = {};
let opened;
document.getElementById("open").onclick = () => {
  opened = window.open(${JSON.stringify(`${docs}#/generations/submitgeneration?send=1`)}, "docs");
  setTimeout(() => { try { opened.postMessage({ send: true, body: { type: "video" } }, "*"); window.results.posted = true; } catch (e) { window.results.posted = String(e); } }, 1500);
  setTimeout(() => { try { window.results.readWindow = opened.document.body.innerHTML.length; } catch (e) { window.results.readWindow = "refused"; } }, 2500);
};
fetch(${JSON.stringify(journal)}).then((r) => r.text()).then((t) => (window.results.journal = t), (e) => (window.results.journal = "refused: " + e.message));
fetch(${JSON.stringify(docs)}).then((r) => r.text()).then((t) => (window.results.docs = t.length), (e) => (window.results.docs = "refused: " + e.message));
</script></body></html>`;

describe.runIf(browsers.path)("the docs' try-it panel in a browser", { timeout: 60_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "docs-console-browser-"));
  const dir = join(work, "site");
  let sim: RunningSimulator;
  let target: ConsoleTarget;
  let staticSite: StaticSite;
  let proxy: Server;
  let proxyUrl: string;
  const proxied: string[] = [];
  let attacker: Server;
  let attackerUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  const errors: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    await buildDocsSite({ outDir: dir });
    // The static site (npm run docs) on a web server of its own, as a reader may serve it.
    staticSite = await serveSite(dir, "/docs/");
    const staticOrigin = new URL(staticSite.url).origin;
    sim = await startSimulator({ port: 0, clockSpeed: 0, docsDir: dir, cors: [staticOrigin] });
    target = { base: sim.url };
    proxy = prefixProxy(() => sim.url, "/sandboxes/team-a", proxied);
    proxyUrl = await listen(proxy);
    attacker = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(ATTACKER(`${sim.url}/docs/reference.html`, `${sim.url}/_sim/requests`)));
    attackerUrl = await listen(attacker);
    browser = await browsers.launch();
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, reducedMotion: "reduce" });
    context.on("request", (r) => requested.push(r.url()));
    context.on("page", (page) => watchErrors(page, errors));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([sim?.close(), staticSite?.close(), close(proxy), close(attacker)]);
    rmSync(work, { recursive: true, force: true });
  });

  // One page for the reader's flows on the simulator: moving between operations only changes its route.
  let shared: Page;
  const reader = async () => (shared ??= await context.newPage());

  it("a submit sent from its panel, reached through the page's search, answers 202 and is in the journal with its inspector link; the same Idempotency-Key again answers the same record", async () => {
    await submitThroughSearch(await reader(), target);
  });

  it("a body with a wrong type is flagged before sending with the reasons the server then gives, and the server's 400 is shown with its details and the verdict", async () => {
    await wrongBodyFlagged(await reader(), target);
  });

  it("a key without the scope shows the 403 with its rung", async () => {
    await missingScope(await reader(), target);
  });

  it("GET /v1/events shows a generation.status_changed frame after a submit from another panel, until Stop", async () => {
    await eventsFromAnotherPanel(context, await reader(), target);
  });

  it("the panel is there wherever the reader arrives at an operation: a link, the side menu; and it works from the keyboard alone", async () => {
    const page = await reader();
    await openAt(page, target, "#/catalog/listmodels", "listModels");
    // The side menu: another operation of the same group.
    await page.locator('a[href$="#/catalog/searchknowledge"]').first().click();
    const panel = page.locator('section.hub-console[data-operation="searchKnowledge"]');
    await panel.waitFor({ state: "visible" });
    const toggle = panel.getByRole("button", { name: "Try it" });
    await toggle.focus();
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await openPanel(page, "searchKnowledge");
    await panel.getByRole("button", { name: "Send", exact: true }).focus();
    await page.keyboard.press("Enter");
    await panel.locator('[data-role="answer-status"]', { hasText: "200" }).waitFor();
    // Every control of the panel has a name a screen reader says.
    const unnamed = await panel.evaluate((root) =>
      [...root.querySelectorAll("input, select, textarea, button")].filter((e) => {
        const labelled = e.id && root.querySelector(`label[for="${e.id}"]`);
        return !labelled && !(e.textContent ?? "").trim() && !e.getAttribute("aria-label");
      }).map((e) => e.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
  });

  it("with no credential picked a read answers 401, even while the browser holds a site session", async () => {
    await noCredentialMeansNone(context, await reader(), target);
  });

  it("a pasted key stays in the page's memory, masked on screen, and never in the page's storage or the code to copy", async () => {
    const page = await reader();
    const panel = await openAt(page, target, "#/account/readaccount", "readAccount");
    // A key of the reader's own (not a demo key the picker lists).
    const created = await fetch(`${sim.url}/_sim/keys`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account_id: "acc_demo" }) });
    const key = (await created.json()) as { secret: string; id: string };
    await pickCredential(panel, "A key or token you paste");
    const field = panel.getByLabel(/Your key/);
    expect(await field.getAttribute("type")).toBe("password");
    await field.fill(key.secret);
    const sent = await sendAndRead(panel);
    expect(sent.status).toMatch(/^200 /);
    expect((await journalRows(target, sent.requestId))[0]!.credential).toMatchObject({ id: key.id });
    const text = (await panel.textContent()) ?? "";
    expect(text).not.toContain(key.secret);
    expect(text).toContain("Bearer ghk_…");
    expect(text).toContain("$HUB_API_KEY");
    const stored = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href]));
    expect(stored).not.toContain(key.secret);
  });

  it("under a prefix (a sandbox's pages, /sandboxes/<id>/docs/), every request goes under that prefix: the API, the journal, the inspector link", async () => {
    const page = await context.newPage();
    const sandbox = { base: `${proxyUrl}/sandboxes/team-a` };
    const panel = await openAt(page, sandbox, "#/account/readaccount", "readAccount");
    expect(await panel.locator('[data-role="server"] code').textContent()).toBe(sandbox.base);
    const sent = await sendAndRead(panel);
    expect(sent.status).toMatch(/^200 /);
    const [row] = await journalRows(target, sent.requestId);
    expect(await panel.locator('[data-role="inspector-link"]').getAttribute("href")).toBe(`${sandbox.base}/_sim/ui/#request=${row!.seq}`);
    expect(proxied).toContain("/sandboxes/team-a/v1/me");
    expect(proxied.some((p) => p.startsWith("/sandboxes/team-a/_sim/requests?request_id="))).toBe(true);
    expect(proxied.filter((p) => !p.startsWith("/sandboxes/team-a/"))).toEqual([]);
    await page.close();
  });

  it("in a sandbox (its docs at /sandboxes/<id>/docs/), the panel sends to that sandbox: the answer, the journal row and the inspector row are the sandbox's, never the default hub's", async () => {
    const sandbox = await HubControl.overHttp(sim.url).createSandbox();
    const page = await context.newPage();
    try {
      const inSandbox = { base: sandbox.base_url };
      expect(inSandbox.base).toBe(`${sim.url}/sandboxes/${sandbox.id}`);
      const panel = await openAt(page, inSandbox, "#/generations/submitgeneration", "submitGeneration");
      const sent = await sendAndRead(panel);
      expect(sent.status).toMatch(/^202 /);
      const rows = await sandbox.control.requests({ requestId: sent.requestId });
      expect(rows).toHaveLength(1);
      expect(await sim.requests({ requestId: sent.requestId })).toEqual([]);
      // The generation is the sandbox's: its list holds it, the default hub's does not.
      const list = async (base: string) => ((await (await fetch(`${base}/v1/generations?limit=1`, { headers: { authorization: "Bearer ghk_demo_full" } })).json()) as { data: { id: string }[] }).data[0]?.id;
      const made = await list(inSandbox.base);
      expect(made).toBeDefined();
      expect(await list(sim.url)).not.toBe(made);
      const link = await panel.locator('[data-role="inspector-link"]').getAttribute("href");
      expect(link).toBe(`${inSandbox.base}/_sim/ui/#request=${rows[0]!.seq}`);
      await page.goto(link!);
      await page.locator("#detail-body pre.curl").waitFor();
      expect(await page.locator("#detail-body").textContent()).toContain(sent.requestId);
    } finally {
      await page.close();
      await HubControl.overHttp(sim.url).deleteSandbox(sandbox.id);
    }
  });

  it("the static site (npm run docs, no simulator behind it) asks for the simulator's address, says how to open CORS, sends there, and says why no verdict", async () => {
    const page = await context.newPage();
    await page.goto(`${staticSite.url}reference.html#/account/readaccount`);
    const panel = await openPanel(page, "readAccount");
    const server = panel.locator('[data-role="server"]');
    expect(await server.textContent()).toContain("No simulator serves these docs");
    expect(await server.textContent()).toContain(`npx generation-hub mock --cors ${new URL(staticSite.url).origin}`);
    await panel.locator('[data-role="base"]').fill(sim.url);
    const sent = await sendAndRead(panel);
    expect(sent.status).toMatch(/^200 /);
    expect(await panel.locator('[data-role="verdict"]').textContent()).toContain("No verdict: these docs are not served by the simulator");
    expect((await journalRows(target, sent.requestId))[0]).toMatchObject({ route: "readAccount", status: 200 });
    // The session cookie does not cross origins: it is not offered here.
    expect(await panel.locator('option[value="session"]').isDisabled()).toBe(true);
    await page.close();
  });

  it("a page of another origin can neither drive the panel nor read its answers: no frame, no message or address that sends, no read of the journal or the page", async () => {
    const before = (await sim.requests({ route: "/v1" })).length;
    const page = await context.newPage();
    await page.goto(attackerUrl);
    const [opened] = await Promise.all([page.waitForEvent("popup"), page.locator("#open").click()]);
    await expect.poll(() => page.evaluate(() => (window as unknown as { results: Record<string, unknown> }).results.readWindow), { timeout: 10_000 }).toBeDefined();
    const results = await page.evaluate(() => (window as unknown as { results: Record<string, unknown> }).results);
    expect(results.journal).toMatch(/^refused/);
    expect(results.docs).toMatch(/^refused/);
    expect(results.readWindow).toBe("refused");
    // The docs may not be framed (frame-ancestors 'none'): the frame holds no panel.
    const framed = page.frames().find((f) => f.parentFrame() !== null);
    expect(await framed?.locator("section.hub-console").count().catch(() => 0)).toBe(0);
    // The opened docs show the panel, closed: nothing was sent.
    expect(opened.url()).toContain(`${sim.url}/docs/reference.html`);
    await opened.locator('section.hub-console[data-operation="submitGeneration"]').waitFor();
    expect(await opened.locator('section.hub-console [data-role="answer-status"]').count()).toBe(0);
    expect((await sim.requests({ route: "/v1" })).length).toBe(before);
    await opened.close();
    await page.close();
    // What the browser noted on the other site's page is what it refused it.
    const refusals = errors.filter((e) => e.startsWith(attackerUrl));
    expect(refusals.length).toBeGreaterThan(0);
    for (const e of refusals) expect(e).toMatch(/frame-ancestors 'none'|blocked by CORS policy|net::ERR_FAILED/);
  });

  it("the panel's scripts are served with the docs' headers: nosniff, a policy that runs no eval; the pages made no request outside the machine and logged no error", async () => {
    for (const file of [CONSOLE_SCRIPT, CONSOLE_APP]) {
      const script = await fetch(`${sim.url}/docs/${file}`);
      expect(script.headers.get("content-type"), file).toBe("text/javascript; charset=utf-8");
      expect(script.headers.get("x-content-type-options"), file).toBe("nosniff");
    }
    const page = await fetch(referenceOf(target));
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/script-src 'self'/);
    expect(policy).not.toContain("unsafe-eval");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(requested.length).toBeGreaterThan(20);
    const ours = [sim.url, proxyUrl, attackerUrl, new URL(staticSite.url).origin];
    expect(requested.filter((u) => !ours.some((o) => u.startsWith(o)) && !u.startsWith("blob:") && !u.startsWith("data:"))).toEqual([]);
    expect(errors.filter((e) => !e.startsWith(attackerUrl))).toEqual([]);
  });
});
