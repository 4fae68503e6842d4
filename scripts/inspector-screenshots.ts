// The request inspector's screenshots in the simulator guide (docs/images/inspector*.png),
// made again by `npm run docs:screenshots`: a simulator in this process, a short session of
// a frontend's requests (reads, an open event stream, submits, a refused body, a revoked
// key, a missing scope), then the page in headless Chromium, whole and with one refusal's
// exchange open. The pictures ship in the package beside the guide, so where Debian's
// pngquant is installed they are reduced to a palette (a third of the bytes).
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startSimulator } from "../src/simulator/index.ts";
import { CHROMIUM_ARGS, chromiumPath } from "./lib/chromium.ts";
import { at } from "./lib/paths.ts";

const OUT = at("docs/images");
const executablePath = chromiumPath();
if (!executablePath) throw new Error("No Chromium at /usr/bin/chromium (or CHROMIUM_PATH): apt-get install -y chromium");

const sim = await startSimulator({ port: 0, clockSpeed: 0 });
const base = sim.url;
let n = 0;
async function call(method: string, path: string, key: string | null, body?: unknown): Promise<void> {
  const headers: Record<string, string> = { "user-agent": "my-frontend/1.4" };
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    if (method === "POST" && path === "/v1/generations") headers["idempotency-key"] = `checkout-${++n}`;
  }
  await (await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).arrayBuffer();
}
const advance = (seconds: number) => fetch(`${base}/_sim/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seconds }) });

const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(`${base}/_sim/ui/`);
  await page.locator("#live.on").waitFor();
  // The session: what a frontend sends while a developer watches.
  const stream = new AbortController();
  void fetch(`${base}/v1/events`, { headers: { authorization: "Bearer ghk_demo_full" }, signal: stream.signal }).then((r) => r.arrayBuffer()).catch(() => undefined);
  await call("GET", "/v1/me", "ghk_demo_full");
  await call("GET", "/v1/models?type=video", "ghk_demo_full");
  await call("POST", "/v1/generations", "ghk_demo_full", { type: "video", model: "video-model-a", prompt: "A lighthouse at dusk, waves breaking", duration: 5 });
  await call("POST", "/v1/generations", "ghk_demo_full", { type: "video", model: "video-model-a", prompt: "A fox in the snow", duration: "five" });
  await call("POST", "/v1/generations", "ghk_demo_full", { type: "image", model: "image-model-a", prompt: "A red bicycle [sim:fail]" });
  await call("POST", "/v1/generations", "ghk_demo_full", { type: "video", model: "video-model-a", prompt: "Timelapse of a city [sim:hold]", duration: 5 });
  await call("GET", "/v1/me", "ghk_demo_revoked");
  await call("POST", "/v1/generations", "ghk_demo_readonly", { type: "image", model: "image-model-a", prompt: "A teapot" });
  await advance(4);
  await call("GET", "/v1/generations?limit=20", "ghk_demo_full");
  await page.locator("tr.row").nth(9).waitFor();
  await page.waitForTimeout(800);
  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, "inspector.png") });
  // One refusal opened: the reason in words, the exchange masked, the curl line.
  await page.locator('tr.row[data-code="invalid_request"]').click();
  await page.locator("#detail-body pre.curl").waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, "inspector-exchange.png") });
  stream.abort();
  const written = [join(OUT, "inspector.png"), join(OUT, "inspector-exchange.png")];
  const quantized = spawnSync("pngquant", ["--quality", "60-85", "--speed", "1", "--force", "--ext", ".png", ...written]);
  console.log(`wrote ${written.join(" and ")}${quantized.status === 0 ? ", reduced by pngquant" : " (apt-get install -y pngquant makes them a third of the size)"}`);
} finally {
  await browser.close();
  await sim.close();
}
