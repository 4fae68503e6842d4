// Scalar's API reference (@scalar/api-reference, its browser build) renders the sources as
// written (the multi-file document, every file fetched over HTTP as a user's docs site would
// serve them) and the published bundle, in headless Chromium, offline: no page error, no
// console error or warning, no failed request, and every operation in its sidebar.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at, consumers } from "../../scripts/lib/paths.ts";
import { operations } from "../../src/contract/index.ts";
import { chromiumFor } from "../support/chromium.ts";
import { consumerToolsFor } from "./support.ts";

const browsers = chromiumFor("browser check of Scalar's API reference", "test/consumers/scalar.test.ts");
const installed = consumerToolsFor("consumer matrix: Scalar's API reference", "test/consumers/scalar.test.ts");
const scalarBuild = join(consumers.root, "node_modules/@scalar/api-reference/dist/browser");

/** A missing file the broken copy of the sources points a path at. */
const MISSING = "account/v1@nobody.yaml";

const page = (documentPath: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>API reference</title><link rel="icon" href="data:,"></head>
<body><div id="app"></div>
<script src="/scalar/standalone.js"></script>
<script>Scalar.createApiReference("#app", { url: location.origin + ${JSON.stringify(documentPath)}, withDefaultFonts: false, defaultOpenAllTags: true })</script>
</body></html>`;

const TYPES: Record<string, string> = { ".js": "text/javascript", ".json": "application/json", ".yaml": "application/yaml", ".css": "text/css" };

/**
 * The reference page (`/?doc=<path>`), Scalar's build under /scalar/, the repository's
 * openapi/, schemas/ and generated/, and /broken/: the sources with one path pointing at a
 * file that does not exist.
 */
function serve(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = decodeURIComponent(url.pathname);
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page(url.searchParams.get("doc") ?? ""));
      return;
    }
    if (path === "/broken/openapi.yaml") {
      res.writeHead(200, { "content-type": TYPES[".yaml"] });
      res.end(readFileSync(at("openapi/openapi.yaml"), "utf8").replace("account/v1@whoami.yaml", MISSING));
      return;
    }
    const [, top, ...rest] = path.split("/");
    const roots: Record<string, string> = { scalar: scalarBuild, openapi: at("openapi"), broken: at("openapi"), schemas: at("schemas"), generated: at("generated") };
    const file = top && roots[top] ? join(roots[top], ...rest) : "";
    if (!file || !existsSync(file) || statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
}

describe.runIf(browsers.path && installed)("consumer matrix: Scalar's API reference in a browser", { timeout: 120_000 }, () => {
  let server: Server;
  let origin: string;
  let browser: Browser;
  beforeAll(async () => {
    server = serve();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await browsers.launch();
  });
  afterAll(async () => {
    await browsers.close();
    server?.close();
  });

  /** Renders a document; answers what went wrong on the page and the sidebar's text once every operation shows, or after 30 s. */
  async function render(documentPath: string): Promise<{ problems: string[]; text: string }> {
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    tab.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    tab.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
    tab.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
    });
    await tab.goto(`${origin}/?doc=${encodeURIComponent(documentPath)}`);
    const summaries = operations().map((o) => String(o.op.summary));
    await tab
      .waitForFunction((wanted) => wanted.every((s) => document.body.innerText.includes(s)), summaries, { timeout: 30_000 })
      .catch(() => undefined);
    const text = await tab.locator("body").innerText();
    await tab.close();
    return { problems, text };
  }

  for (const [label, documentPath] of [
    ["the sources as written", "/openapi/openapi.yaml"],
    ["the published bundle", "/generated/openapi.json"],
  ] as const) {
    it(`renders ${label} with no error and every operation`, async () => {
      const { problems, text } = await render(documentPath);
      expect(problems).toEqual([]);
      const summaries = operations().map((o) => String(o.op.summary));
      expect(summaries.length).toBeGreaterThan(30);
      expect(summaries.filter((s) => !text.includes(s))).toEqual([]);
    });
  }

  it("a reference Scalar cannot resolve is seen: sources with a path file missing", async () => {
    const { problems } = await render("/broken/openapi.yaml");
    expect(problems.some((p) => p.includes(MISSING))).toBe(true);
  });
});
