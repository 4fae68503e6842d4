// The attack of the issue in a real browser: headless Chromium (Debian's, driven by
// playwright-core) opens pages of other origins, served by a second local server under
// names that Chromium's resolver maps to 127.0.0.1, and tries what a page can do to a
// simulator on the same machine: read /_sim/state with fetch, change the hub with simple
// requests (no-cors fetch, form posts, the text/plain JSON trick), sign its visitor in as
// another account, and rebind its own name to the simulator's address so that it is
// same-origin. Afterwards the hub is as it was. Without Chromium this check cannot run:
// it says so loudly, and fails in CI (CI=true), where Chromium is installed.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumFor } from "../support/chromium.ts";
import { startSim, type Sim } from "./support/harness.ts";

const browsers = chromiumFor("browser check of the control interface's protections", "test/simulator/control-browser.test.ts");

/** What the hub looks like to the attack: each value must be the same after it. */
function snapshot(sim: Sim) {
  const hub = sim.hub;
  return {
    apiEnabled: hub.state.api_enabled,
    scenario: hub.scenario.name,
    keys: hub.state.keys.size,
    fullRevoked: hub.state.keys.get("ghk_demo_full")!.revoked,
    sessions: hub.state.sessions.size,
    clockSpeed: hub.clock.speed,
    faults: hub.faults.size,
    generations: hub.state.generations.size,
  };
}

describe.runIf(browsers.path)("a page of another origin against the simulator, in Chromium", { timeout: 30_000 }, () => {
  let sim: Sim;
  /** The same simulator started with --cors '*'. */
  let open: Sim;
  let attacker: Server;
  let attackerPort: number;
  let browser: Browser;

  beforeAll(async () => {
    [sim, open] = await Promise.all([startSim({ demoData: true }), startSim({ demoData: true, cors: true })]);
    // The second local server: an empty page for the attack to run in, and a target for frames.
    attacker = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>a page elsewhere</title><p>hello</p>"));
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    attackerPort = (attacker.address() as AddressInfo).port;
    browser = await browsers.launch(["--host-resolver-rules=MAP attacker.test 127.0.0.1, MAP rebound.test 127.0.0.1"]);
  });

  afterAll(async () => {
    await browsers.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await sim?.close();
    await open?.close();
  });

  async function pageAt(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(url);
    return page;
  }

  /** Posts a form from `page` into a frame of it and waits for the answer to load there. */
  async function postForm(page: Page, action: string, enctype: string, fields: Record<string, string>): Promise<void> {
    await page.evaluate(
      ({ action, enctype, fields }) =>
        new Promise<void>((resolve) => {
          const frame = document.createElement("iframe");
          frame.name = `f${Math.random().toString(36).slice(2)}`;
          document.body.append(frame);
          const form = document.createElement("form");
          Object.assign(form, { method: "post", action, enctype, target: frame.name });
          for (const [name, value] of Object.entries(fields)) {
            const input = document.createElement("input");
            Object.assign(input, { type: "hidden", name, value });
            form.append(input);
          }
          document.body.append(form);
          frame.addEventListener("load", () => resolve(), { once: true });
          form.submit();
        }),
      { action, enctype, fields },
    );
  }

  for (const name of ["attacker.test", "localhost"]) {
    it(`a page of http://${name}:<port> neither reads nor changes the hub: fetch, no-cors requests, form posts${name === "localhost" ? "" : ", a sign-in"}`, async () => {
      const before = snapshot(sim);
      const page = await pageAt(`http://${name}:${attackerPort}/`);
      const seen = await page.evaluate(async ({ base, openBase }) => {
        const outcome = (p: Promise<Response>) => p.then((r) => (r.type === "opaque" ? "opaque" : `read ${r.status}`), () => "blocked");
        const json = { "content-type": "application/json" };
        return {
          read: await outcome(fetch(`${base}/_sim/state`)),
          readWithCorsOpen: await outcome(fetch(`${openBase}/_sim/state`)),
          jsonChange: await outcome(fetch(`${base}/_sim/api`, { method: "POST", headers: json, body: '{"enabled":false}' })),
          jsonChangeWithCorsOpen: await outcome(fetch(`${openBase}/_sim/scenario`, { method: "POST", headers: json, body: '{"name":"empty-account"}' })),
          simple: await Promise.all([
            outcome(fetch(`${base}/_sim/keys/ghk_demo_full/revoke`, { method: "POST", mode: "no-cors" })),
            outcome(fetch(`${base}/_sim/reset`, { method: "POST", mode: "no-cors" })),
            outcome(fetch(`${base}/_sim/keys`, { method: "POST", mode: "no-cors", body: "{}" })),
            outcome(fetch(`${base}/_sim/api`, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"enabled":false}' })),
            outcome(fetch(`${base}/_sim/clock`, { method: "POST", mode: "no-cors", body: new URLSearchParams({ speed: "7" }) })),
          ]),
        };
      }, { base: sim.url, openBase: open.url });
      expect(seen).toEqual({ read: "blocked", readWithCorsOpen: "blocked", jsonChange: "blocked", jsonChangeWithCorsOpen: "blocked", simple: ["opaque", "opaque", "opaque", "opaque", "opaque"] });
      // Form posts: the classic text/plain body that reads as JSON, a urlencoded one, and a
      // sign-in as an account of the page's choosing (login CSRF).
      await postForm(page, `${sim.url}/_sim/api`, "text/plain", { '{"enabled":false,"pad":"': '"}' });
      await postForm(page, `${sim.url}/_sim/keys/ghk_demo_full/revoke`, "application/x-www-form-urlencoded", { a: "b" });
      // A loopback page may post the sign-in form (the session allowlist admits loopback
      // origins unless --session-origins says otherwise); a page elsewhere may not.
      if (name !== "localhost") await postForm(page, `${sim.url}/site/sign-in`, "application/x-www-form-urlencoded", { account_id: "acc_other", return_to: "/site/" });
      await page.close();
      expect(snapshot(sim)).toEqual(before);
      expect(snapshot(open).apiEnabled).toBe(true);
      expect(open.hub.scenario.name).toBe("demo");
      expect((await sim.get("/v1/me")).status).toBe(200);
    });
  }

  it("a name rebound to 127.0.0.1 is same-origin to the browser, and the simulator refuses its Host", async () => {
    const before = snapshot(sim);
    const { port } = new URL(sim.url);
    // After rebinding, the attacker's script runs in a document of http://rebound.test:<port>
    // whose name now points at this machine (here that document is the simulator's own
    // refusal of the Host; the script's origin is what matters).
    const page = await browser.newPage();
    const first = await page.goto(`http://rebound.test:${port}/`);
    expect(first?.status()).toBe(403);
    const seen = await page.evaluate(async () => {
      const state = await fetch("/_sim/state");
      const change = await fetch("/_sim/api", { method: "POST", headers: { "content-type": "application/json" }, body: '{"enabled":false}' });
      const me = await fetch("/v1/me", { headers: { authorization: "Bearer ghk_demo_full" } });
      const text = await state.text();
      return { state: state.status, code: JSON.parse(text).error.code, secrets: text.includes("ghk_"), change: change.status, me: me.status };
    });
    await page.close();
    expect(seen).toEqual({ state: 403, code: "origin_mismatch", secrets: false, change: 403, me: 403 });
    expect(snapshot(sim)).toEqual(before);
  });

  it("the simulator's own pages still work: the sign-in form posts from its own origin", async () => {
    const before = sim.hub.state.sessions.size;
    const page = await pageAt(`${sim.url}/site/sign-in?return_to=/site/`);
    await page.locator('input[value="acc_other"]').check();
    await Promise.all([page.waitForURL(`${sim.url}/site/`), page.locator('button[type="submit"]').click()]);
    expect(await page.locator("code").first().textContent()).toBe("acc_other");
    await page.close();
    expect(sim.hub.state.sessions.size).toBe(before + 1);
  });
});
