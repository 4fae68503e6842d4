// Every code sample of the docs, run to completion against the simulator (issue 12): the
// `ts` blocks of README.md and of the guides, and the reference's samples. A sample that
// throws, exits non-zero or prints nothing fails here; one that does not end within
// SAMPLE_TIMEOUT_MS (an event stream left open, say) is killed and fails naming the sample.
//
// Each sample gets a fresh simulator (clock at 100x, demo data) and runs as written, with
// these substitutions only: the simulator's address for `http://127.0.0.1:4010` and for
// `https://hub.example`, and `discover("<address>", { allowHttp: true })` for
// `discover("https://hub.example")`, as the OAuth samples' own comment says to do against the
// local simulator. What a sample needs beyond that (a file in the working folder, a site
// session, a grant, a function to call) is listed in PLANS below with the simulator's
// documented convenience that provides it; samples that are not run are in NOT_RUN
// (code-samples.ts), each with its reason.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationUrl, discover, documentClient, exchangeCode } from "../../src/client/oauth/index.ts";
import { encodePng } from "../../src/common/png.ts";
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator/index.ts";
import { at } from "../../scripts/lib/paths.ts";
import { allSamples, isSample, notRunReason, NOT_RUN, type CodeSample } from "./code-samples.ts";
import { bundleSample, runInNode, runInPage, SAMPLE_MODULE, type RunResult } from "./sample-runner.ts";
import { chromiumFor } from "../support/chromium.ts";

const SAMPLE_TIMEOUT_MS = 20_000;
const DEMO_KEY = "ghk_demo_full";
/** The client the OAuth samples name (their client ID metadata document's address). */
const STUDIO = { client_id: "https://studio.example/oauth/client.json", redirect_uris: ["https://studio.example/oauth/callback"] };

interface Plan {
  /** The sample (see isSample). */
  sample: string;
  /** What the sample needs beyond the simulator's address (in the test's title). */
  needs: string;
  /** Runs as a module script of a page on the simulator's own origin (`location.origin`), as through a dev server's proxy. */
  page?: boolean;
  /** The page is signed in to the site (a session cookie of acc_demo, from POST /_sim/sessions). */
  session?: boolean;
  simulator?: SimulatorOptions;
  /** Prepares the simulator; answers environment variables for the sample. */
  setup?: (sim: RunningSimulator) => Promise<Record<string, string>>;
  /** Code that imports the sample (`sample:entry`) and calls what it exports. */
  driver?: string;
}

async function control(sim: RunningSimulator, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The first item of a list of the demo account, read with the demo key. */
async function firstOf(sim: RunningSimulator, path: string): Promise<string> {
  const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${DEMO_KEY}` } });
  const [first] = ((await response.json()) as { data: { id: string }[] }).data;
  if (!first) throw new Error(`${path} lists nothing for the demo account`);
  return first.id;
}

/** The simulator cannot reach https://studio.example: the client's document is published on it instead. */
async function publishStudioClient(sim: RunningSimulator): Promise<Record<string, string>> {
  await control(sim, "PUT", "/_sim/oauth/documents", {
    url: STUDIO.client_id,
    document: { ...STUDIO, client_name: "Studio", grant_types: ["authorization_code", "refresh_token"] },
  });
  return {};
}

/** A refresh token of a grant of the studio client (consented by the auto-consent convenience). */
async function studioRefreshToken(sim: RunningSimulator): Promise<Record<string, string>> {
  await publishStudioClient(sim);
  const server = await discover(sim.url, { allowHttp: true });
  const client = documentClient(STUDIO);
  const request = await authorizationUrl(server, client, { redirectUri: STUDIO.redirect_uris[0]!, scope: ["generations:read"] });
  const consent = await fetch(request.url, { redirect: "manual" });
  const tokens = await exchangeCode(server, client, request, consent.headers.get("location")!);
  if (!tokens.refresh_token) throw new Error("the grant gave no refresh token");
  return { REFRESH_TOKEN: tokens.refresh_token };
}

const AUTO_CONSENT: SimulatorOptions = { oauth: { autoConsent: "acc_demo" } };
const LIGHTHOUSE = "lighthouse.png in the working folder (a 64x64 PNG)";
const SITE_PAGE = "a page on the simulator's origin, signed in to the site (POST /_sim/sessions)";

/** A 1x1 PNG, for a page sample that uploads a file. */
const PNG_BASE64 = encodePng(1, 0, new Uint8Array(2)).toString("base64");

const PLANS: Plan[] = [
  { sample: "docs/samples/createUpload.ts", needs: LIGHTHOUSE },
  { sample: "docs/samples/completeUpload.ts", needs: LIGHTHOUSE },
  { sample: "docs/samples/sendSupportMessage.ts", needs: LIGHTHOUSE },
  { sample: "docs/samples/cancelSubscription.ts", needs: SITE_PAGE, page: true, session: true },
  { sample: "docs/samples/startCardChange.ts", needs: SITE_PAGE, page: true, session: true },
  { sample: "docs/samples/completeCardChange.ts", needs: SITE_PAGE, page: true, session: true },
  {
    sample: "docs/samples/resumeSubscription.ts",
    needs: `${SITE_PAGE}, with a cancelled subscription (PATCH /_sim/subscriptions/acc_demo)`,
    page: true,
    session: true,
    setup: async (sim) => (await control(sim, "PATCH", "/_sim/subscriptions/acc_demo", { status: "cancelled" }), {}),
  },
  { sample: "docs/samples/authorize.ts", needs: "the studio client's document published (PUT /_sim/oauth/documents)", setup: publishStudioClient },
  {
    sample: "docs/samples/exchangeToken.ts",
    needs: "the studio client's document published, and the browser's return: onCallback gets the redirect of an auto-consented authorization",
    simulator: AUTO_CONSENT,
    setup: publishStudioClient,
    driver: `import { request, onCallback } from "${SAMPLE_MODULE}";
const consent = await fetch(request.url, { redirect: "manual" });
await onCallback(consent.headers.get("location"));`,
  },
  {
    sample: "docs/samples/revokeToken.ts",
    needs: "REFRESH_TOKEN: a refresh token of an auto-consented grant of the studio client",
    simulator: AUTO_CONSENT,
    setup: studioRefreshToken,
  },
  {
    sample: "docs/samples/changeGenerationTitle.ts",
    needs: "a call of the function it exports, with the newest generation's id and a body",
    setup: async (sim) => ({ GENERATION_ID: await firstOf(sim, "/v1/generations?limit=1") }),
    driver: `import { changeGenerationTitle } from "${SAMPLE_MODULE}";
console.log(await changeGenerationTitle(process.env.GENERATION_ID, {}));`,
  },
  {
    sample: "docs/samples/changeLibraryAssetTitle.ts",
    needs: "a call of the function it exports, with the demo asset's id and a body",
    setup: async (sim) => ({ ASSET_ID: await firstOf(sim, "/v1/library/assets?limit=1") }),
    driver: `import { changeLibraryAssetTitle } from "${SAMPLE_MODULE}";
console.log(await changeLibraryAssetTitle(process.env.ASSET_ID, {}));`,
  },
  {
    sample: "docs/conformance.md#runConformance",
    // The suite holds a server to real time (a rate window's reset counts down in seconds
    // as they pass), so the simulator here keeps real time instead of 100x.
    needs: "a simulator whose clock keeps real time, as a deployed server's does",
    simulator: { clockSpeed: 1 },
  },
  {
    sample: "docs/simulator.md#uploadImage",
    needs: "a page on the simulator's origin (as through the dev server's proxy) calling the function it exports with a PNG file and the demo key",
    page: true,
    driver: `import { uploadImage } from "${SAMPLE_MODULE}";
const bytes = Uint8Array.from(atob("${PNG_BASE64}"), (c) => c.charCodeAt(0));
console.log(await uploadImage(new File([bytes], "lighthouse.png", { type: "image/png" }), "${DEMO_KEY}"));`,
  },
];

function asRun(sample: CodeSample, sim: RunningSimulator): string {
  // One pass: a replacement is never matched again (the simulator's own address may begin
  // with http://127.0.0.1:4010, as port 40103 does).
  return sample.source.replace(
    /discover\("https:\/\/hub\.example"\)|https:\/\/hub\.example|http:\/\/127\.0\.0\.1:4010(?!\d)/g,
    (found) => (found.startsWith("discover(") ? `discover(${JSON.stringify(sim.url)}, { allowHttp: true })` : sim.url),
  );
}

const samples = allSamples();
const browsers = chromiumFor("the docs' page samples in a browser", "test/docs/run-samples.test.ts");

describe("every code sample of the docs runs to completion against the simulator", () => {
  const work = mkdtempSync(join(tmpdir(), "docs-run-samples-"));
  let browser: Browser | undefined;

  beforeAll(async () => {
    writeFileSync(join(work, "lighthouse.png"), encodePng(64, 0, new Uint8Array(64 * (1 + 64))));
    if (browsers.path) browser = await browsers.launch();
  });
  afterAll(async () => {
    await browsers.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("the samples not run are few, each still exists and has its reason", () => {
    for (const entry of [...NOT_RUN, ...PLANS]) expect(samples.filter((s) => isSample(entry.sample, s)).map((s) => s.name), entry.sample).toHaveLength(1);
    expect(NOT_RUN.length).toBeLessThanOrEqual(3);
  });

  for (const sample of samples.filter((s) => !notRunReason(s))) {
    const plan = PLANS.find((p) => isSample(p.sample, sample));
    const title = plan ? `${sample.name} (needs ${plan.needs})` : sample.name;
    const runs = plan?.page ? it.runIf(browsers.path) : it;
    runs(title, { timeout: SAMPLE_TIMEOUT_MS + 30_000 }, async () => {
      const pageDir = mkdtempSync(join(work, "page-"));
      const sim = await startSimulator({ port: 0, clockSpeed: 100, docsDir: pageDir, ...plan?.simulator });
      try {
        const env = { HUB_KEY: DEMO_KEY, ...(await plan?.setup?.(sim)) };
        const resolveDir = sample.name.startsWith("docs/samples/") ? at("docs/samples") : at(".");
        const bundle = { source: asRun(sample, sim), resolveDir, driver: plan?.driver };
        let result: RunResult;
        if (plan?.page) {
          const context = await browser!.newContext();
          try {
            if (plan.session) {
              const session = await control(sim, "POST", "/_sim/sessions", { account_id: "acc_demo" });
              const [name, ...value] = String(session.cookie).split("=");
              await context.addCookies([{ name: name!, value: value.join("="), url: sim.url }]);
            }
            const code = await bundleSample(bundle, "browser");
            result = await runInPage(code, { context, pageDir, pageUrl: `${sim.url}/docs/index.html`, timeoutMs: SAMPLE_TIMEOUT_MS });
          } finally {
            await context.close();
          }
        } else {
          const code = await bundleSample(bundle, "node");
          result = await runInNode(code, { cwd: work, env, timeoutMs: SAMPLE_TIMEOUT_MS });
        }
        const shown = `${sample.name}:\n${result.output}`;
        expect(result.timedOut, `${sample.name} did not end within ${SAMPLE_TIMEOUT_MS / 1000} s (it hangs):\n${result.output}`).toBe(false);
        expect(result.code, shown).toBe(0);
        expect(result.output.trim(), `${sample.name} printed nothing`).not.toBe("");
      } finally {
        await sim.close();
        rmSync(pageDir, { recursive: true, force: true });
      }
    });
  }
});
