// The OAuth consent screen in a real browser: headless Chromium (Debian's `chromium`,
// driven by playwright-core) signs in on the simulator's page, sees the application
// name, the return address and one checkbox per scope, unchecks one, allows, and lands on
// the application's callback; the application (oauth4webapi) exchanges the code and the
// token carries exactly the scopes left checked. Also: declining, native clients asked
// every time, remembered consent for a web client. Without Chromium this check cannot
// run: it says so loudly, and fails in CI (CI=true), where Chromium is installed.
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { chromiumFor } from "../support/chromium.ts";
import { startSim, type Sim } from "./support/harness.ts";
import { authorizationRequest } from "./support/oauth.ts";

const browsers = chromiumFor("browser check of the OAuth consent screen", "test/simulator/oauth-consent.test.ts");

describe.runIf(browsers.path)("OAuth consent in a browser", { timeout: 60_000 }, () => {
  let sim: Sim;
  let app: Server;
  let appUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const outside: string[] = [];
  const webCallbacks: string[] = [];
  const WEB_REDIRECT = "https://studio.example/oauth/callback";
  const http = { [oauth.allowInsecureRequests]: true } as const;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    sim = await startSim();
    // The application's own server: its callback shows what it received.
    app = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><title>App callback</title><p id="got">${req.url!.replace(/[<>&"]/g, "")}</p>`);
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    browser = await browsers.launch();
    const issuer = new URL(sim.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...http, algorithm: "oauth2" }));
  });

  beforeEach(async () => {
    sim.hub.reset();
    await context?.close();
    context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    context.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(sim.url) && !url.startsWith(appUrl) && !url.startsWith(WEB_REDIRECT)) outside.push(url);
    });
    // The web application's https callback cannot be reached here (no network, and a
    // redirect target is not interceptable): a 303 of the simulator to it is answered in
    // the browser by a page standing for the callback, and the address is recorded.
    await context.route((url) => url.href.startsWith(sim.url), async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.headers()["location"];
      if (response.status() === 303 && location?.startsWith(WEB_REDIRECT)) {
        webCallbacks.push(location);
        await route.fulfill({ status: 200, contentType: "text/html", body: `<!doctype html><title>Studio callback</title><p id="got">${location.replace(/[<>&"]/g, "")}</p>` });
      } else {
        await route.fulfill({ response });
      }
    });
    page = await context.newPage();
  });

  afterAll(async () => {
    await context?.close();
    await browsers.close();
    await new Promise<void>((resolve) => app?.close(() => resolve()));
    await sim?.close();
    expect(outside).toEqual([]);
  });

  async function registerClient(metadata: Record<string, unknown>): Promise<oauth.Client> {
    return oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata as Partial<oauth.Client>, http));
  }

  const start = (client: oauth.Client, redirectUri: string, scope: string) => authorizationRequest(as, client, { redirectUri, scope });

  async function exchange(client: oauth.Client, callback: URL, state: string, redirectUri: string, verifier: string) {
    const params = oauth.validateAuthResponse(as, client, callback, state);
    return oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, http));
  }

  async function signInOnPage(account = "acc_demo") {
    expect(await page.locator("h1").textContent()).toMatch(/^Sign in to continue to /);
    await page.locator(`input[name="account_id"][value="${account}"]`).check();
    await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.locator('button[name="sign_in"]').click()]);
  }

  it("OAUTH-9 OAUTH-10 OAUTH-14: the user signs in, sees the name, the return address and a checkbox per scope, unchecks one and allows; the token carries what stayed checked", async () => {
    const redirectUri = `${appUrl}/callback`;
    const client = await registerClient({ redirect_uris: [redirectUri], client_name: "Browser Test App" });
    const { url, verifier, state } = await start(client, redirectUri, "me:read generations:read generations:write");
    await page.goto(url.href);
    await signInOnPage();
    expect(await page.locator("#app-name").textContent()).toBe("Browser Test App");
    expect(await page.locator("#return-address").textContent()).toBe(redirectUri);
    expect(await page.locator("#account").textContent()).toBe("acc_demo");
    const boxes = page.locator('input[type="checkbox"][name="scope"]');
    expect(await boxes.evaluateAll((els) => els.map((e) => [(e as HTMLInputElement).value, (e as HTMLInputElement).checked]))).toEqual([
      ["me:read", true],
      ["generations:read", true],
      ["generations:write", true],
    ]);
    await page.locator('input[name="scope"][value="generations:write"]').uncheck();
    mkdirSync(at("test-results/simulator"), { recursive: true });
    await page.screenshot({ path: at("test-results/simulator/oauth-consent.png"), fullPage: true });
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.locator('button[value="allow"]').click()]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get("iss")).toBe(sim.url);
    expect(await page.locator("#got").textContent()).toContain("code=");
    const tokens = await exchange(client, callback, state, redirectUri, verifier);
    expect(tokens.scope).toBe("me:read generations:read");
    const who = await (await fetch(`${sim.url}/v1/whoami`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).json();
    expect(who).toMatchObject({ channel: "oauth", user_id: "acc_demo", scopes: ["me:read", "generations:read"] });

    // A native (loopback-only) client is asked again on the next authorization; the session stays.
    const second = await start(client, redirectUri, "me:read");
    await page.goto(second.url.href);
    expect(await page.locator("#app-name").textContent()).toBe("Browser Test App");
    // Declining goes back with access_denied.
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.locator('button[value="deny"]').click()]);
    const declined = new URL(page.url());
    expect(Object.fromEntries(declined.searchParams)).toMatchObject({ error: "access_denied", state: second.state, iss: sim.url });
  });

  it("OAUTH-9: a web client's consent is remembered in the browser: the same scopes pass without the screen, broader ones show it again", async () => {
    const client = await registerClient({ redirect_uris: [WEB_REDIRECT], client_name: "Studio" });
    const first = await start(client, WEB_REDIRECT, "me:read generations:read");
    await page.goto(first.url.href);
    await signInOnPage();
    await Promise.all([page.waitForSelector("#got"), page.locator('button[value="allow"]').click()]);
    expect((await exchange(client, new URL(webCallbacks.at(-1)!), first.state, WEB_REDIRECT, first.verifier)).scope).toBe("me:read generations:read");
    // The same or narrower scopes: straight back to the application, no screen.
    const repeat = await start(client, WEB_REDIRECT, "generations:read");
    await page.goto(repeat.url.href);
    expect(await page.title()).toBe("Studio callback");
    expect((await exchange(client, new URL(webCallbacks.at(-1)!), repeat.state, WEB_REDIRECT, repeat.verifier)).scope).toBe("generations:read");
    const broader = await start(client, WEB_REDIRECT, "generations:read models:read");
    await page.goto(broader.url.href);
    expect(await page.locator("#app-name").textContent()).toBe("Studio");
  });

  it("OAUTH-11: an unregistered return address is shown to the user in the browser, which stays on the simulator", async () => {
    const client = await registerClient({ redirect_uris: [WEB_REDIRECT] });
    const { url } = await start(client, "https://evil.example/steal", "me:read");
    const response = await page.goto(url.href);
    expect(response!.status()).toBe(400);
    expect(await page.locator("h1").textContent()).toBe("Cannot authorize");
    expect(new URL(page.url()).origin).toBe(sim.url);
  });
});
