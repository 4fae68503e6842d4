// The try-it panel's screenshot in the simulator guide (docs/images/docs-console.png),
// made again by `npm run docs:screenshots`: the docs built into a temporary folder, a
// simulator in this process serving them, and the submit operation's panel in headless
// Chromium with its ready wrong body flagged before sending, then sent anyway: the 400
// with its details and the simulator's verdict. Reduced by Debian's pngquant where
// installed, as the inspector's are (scripts/inspector-screenshots.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { buildDocsSite } from "../src/docs/build.ts";
import { startSimulator } from "../src/simulator/index.ts";
import { CHROMIUM_ARGS, chromiumPath } from "./lib/chromium.ts";
import { at } from "./lib/paths.ts";

const OUT = at("docs/images");
const FILE = join(OUT, "docs-console.png");
const executablePath = chromiumPath();
if (!executablePath) throw new Error("No Chromium at /usr/bin/chromium (or CHROMIUM_PATH): apt-get install -y chromium");

const work = mkdtempSync(join(tmpdir(), "console-screenshot-"));
await buildDocsSite({ outDir: work });
const sim = await startSimulator({ port: 0, clockSpeed: 0, docsDir: work });
const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1100 }, deviceScaleFactor: 1, reducedMotion: "reduce" });
  await page.goto(`${sim.url}/docs/reference.html#/generations/submitgeneration`);
  const panel = page.locator('section.hub-console[data-operation="submitGeneration"]');
  await panel.getByRole("button", { name: "Try it" }).click();
  await panel.locator('[data-role="server"]').filter({ hasNotText: "Finding the simulator" }).waitFor();
  await panel.getByLabel("Request", { exact: true }).selectOption("wrong");
  await panel.getByRole("button", { name: "Send", exact: true }).click();
  await panel.getByRole("button", { name: "Send anyway" }).click();
  await panel.locator('[data-role="verdict-text"]').waitFor();
  await page.waitForTimeout(300);
  mkdirSync(OUT, { recursive: true });
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: FILE });
  const quantized = spawnSync("pngquant", ["--quality", "60-85", "--speed", "1", "--force", "--ext", ".png", FILE]);
  console.log(`wrote ${FILE}${quantized.status === 0 ? ", reduced by pngquant" : " (apt-get install -y pngquant makes it a third of the size)"}`);
} finally {
  await browser.close();
  await sim.close();
  rmSync(work, { recursive: true, force: true });
}
