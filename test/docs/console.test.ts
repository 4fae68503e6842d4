// The reference's try-it panel without a browser (issue 27): its model of every operation,
// its body check as the page runs it (the very script the docs ship, bundled) against what
// the simulator answers, the verdict and server it reads from the simulator's answers, and
// the curl and client code it writes. The panel in Chromium: console-browser.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { at } from "../../scripts/lib/paths.ts";
import { deref, schema, schemaValidator, toDetails, validateChosen, type Detail, type JsonObject } from "../../src/contract/index.ts";
import type { CheckFunction } from "../../src/contract/details.ts";
import { bundleConsole } from "../../src/docs/console/bundle.ts";
import { clientCodeOf, curlOf, paramKey, startingBody, type CredentialKind, type RequestSpec } from "../../src/docs/console/browser/code.ts";
import { mountPrefix, serverFrom, verdictFrom } from "../../src/docs/console/browser/server.ts";
import type { ConsoleBody, ConsoleModel, ConsoleOperation } from "../../src/docs/console/model.ts";
import { referenceOperations } from "../../src/docs/routes.ts";
import { SITE_MARKER, markerText, siteIsCurrent } from "../../src/docs/site-format.ts";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { diagnostics } from "./support.ts";

interface PageModules {
  checkBody(validators: unknown, body: ConsoleBody, text: string): Detail[];
  toDetails(errors: unknown): Detail[];
  validators: Record<string, CheckFunction>;
  model: ConsoleModel;
}

const work = mkdtempSync(join(tmpdir(), "docs-console-test-"));
let page: PageModules;
let sim: RunningSimulator;
let cookie: string;

beforeAll(async () => {
  // The page's own code, bundled as the docs ship it (validators compiled ahead of time).
  const code = await bundleConsole(
    [
      `export { checkBody } from "./browser/check.ts";`,
      `export { toDetails } from "../../contract/details.ts";`,
      `export { validators } from "console:validators";`,
      `export { default as model } from "console:model";`,
    ].join("\n"),
    "esm",
  );
  const file = join(work, "page.mjs");
  writeFileSync(file, code);
  page = (await import(pathToFileURL(file).href)) as PageModules;
  sim = await startSimulator({ port: 0, clockSpeed: 0 });
  const signIn = await fetch(`${sim.url}/site/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account_id: "acc_demo" }) });
  cookie = ((await signIn.json()) as { cookie: string }).cookie;
}, 60_000);

afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
});

const check = (op: ConsoleOperation, text: string) => page.checkBody(page.validators, op.body!, text);
const withBody = () => page.model.operations.filter((o) => o.body && o.body.form !== "file");

/** The credential a panel starts with: the full demo key, else the session, else none. */
function defaultCredential(op: ConsoleOperation): CredentialKind {
  return op.schemes.includes("api_key") ? "key" : op.schemes.includes("session_cookie") ? "session" : "none";
}

/** Sends what a panel sends for `op` with these values, body and credential. */
async function sendAsPanel(op: ConsoleOperation, values: Record<string, string>, body: string | null, credential: CredentialKind) {
  const headers: Record<string, string> = {};
  if (credential === "key") headers.authorization = "Bearer ghk_demo_full";
  if (credential === "session") {
    headers.cookie = cookie;
    headers.origin = sim.url;
  }
  for (const p of op.parameters) if (p.in === "header" && values[paramKey(p)]) headers[p.name] = values[paramKey(p)]!;
  if (body !== null) headers["content-type"] = op.body!.mediaTypes[0]!;
  const spec: RequestSpec = { operation: op, base: sim.url, values, body, mediaType: null, credential };
  const url = new URL(curlOf(spec).match(/'(http[^']+)'/)![1]!);
  const answer = await fetch(url, { method: op.method, headers, body: body ?? undefined });
  return { status: answer.status, body: (await answer.json().catch(() => null)) as { error?: { code: string; details?: Detail[] } | string } | null };
}

const startValues = (op: ConsoleOperation) =>
  Object.fromEntries(op.parameters.map((p) => [paramKey(p), p.name === "Idempotency-Key" ? crypto.randomUUID() : p.value]));

describe("the try-it panel's model", () => {
  it("every operation under paths has a panel, at its route in the reference; webhooks have none", () => {
    const routes = referenceOperations().filter((o) => !o.webhook);
    expect(routes.length).toBeGreaterThan(30);
    expect(page.model.operations.map((o) => `#/${o.id}`).sort()).toEqual(routes.map((o) => o.route).sort());
  });

  it("a submit's panel offers one example per submit variant the contract shows, and a wrong body", () => {
    const submit = page.model.operations.find((o) => o.operationId === "submitGeneration")!;
    expect(submit.body!.examples.map((e) => JSON.parse(e.text).type)).toEqual(["video", "image", "upscale", "text"]);
    expect(submit.wrong).toMatchObject({ status: 400, code: "invalid_request" });
    expect(JSON.parse(submit.wrong!.body!).duration).toBe("five");
  });

  it("the demo keys are the demo scenario's, and the panel sets X-Request-Id itself (no field for it)", () => {
    expect(page.model.keys.map((k) => k.secret)).toContain("ghk_demo_readonly");
    expect(page.model.operations.length).toBeGreaterThan(0);
    for (const op of page.model.operations) expect(op.parameters.map((p) => p.name)).not.toContain("X-Request-Id");
  });
});

describe("the body check in the page says what the simulator says", () => {
  it("every example of every body passes the check, as the simulator's validator takes it", () => {
    const examples = withBody().flatMap((op) => op.body!.examples.map((e) => [op, e] as const));
    expect(examples.length).toBeGreaterThan(15);
    for (const [op, e] of examples) {
      expect(check(op, e.text), `${op.operationId} ${e.name}`).toEqual([]);
    }
  });

  it("each operation's wrong request gets the refusal it names from the simulator, and a wrong body the very details the page flagged", async () => {
    const wrong = page.model.operations.filter((o) => o.wrong);
    expect(wrong.length).toBeGreaterThan(30);
    const mismatches: string[] = [];
    let bodies = 0;
    for (const op of wrong) {
      const w = op.wrong!;
      const values = { ...startValues(op) };
      for (const [name, v] of Object.entries(w.params ?? {})) values[paramKey(op.parameters.find((p) => p.name === name)!)] = v;
      const body = w.body ?? (startingBody(op) || null);
      const answer = await sendAsPanel(op, values, body, w.noCredential ? "none" : defaultCredential(op));
      // The OAuth routes answer their protocol's form (`error` is the code).
      const error = answer.body?.error;
      const code = typeof error === "object" ? error.code : error;
      if (answer.status !== w.status || code !== w.code) mismatches.push(`${op.operationId}: ${w.what} answered ${answer.status} ${String(code)}, the panel says ${w.status} ${w.code}`);
      if (w.body === undefined || op.body?.form !== "json") continue;
      bodies++;
      const flagged = check(op, w.body);
      expect(flagged.length, `${op.operationId}: the page flags its wrong body`).toBeGreaterThan(0);
      // An OAuth route answers its protocol's form: where it validates the body, the details' messages, joined.
      if (typeof error === "object") expect(error.details, `${op.operationId}: the simulator's details`).toEqual(flagged);
    }
    expect(bodies).toBeGreaterThan(10);
    expect(mismatches).toEqual([]);
  });

  it("no body and a body that is not JSON are flagged in the simulator's words", async () => {
    const op = page.model.operations.find((o) => o.operationId === "createLibraryFolder")!;
    for (const text of ["", "{ name: Characters }"]) {
      const answer = await sendAsPanel(op, startValues(op), text === "" ? null : text, "key");
      expect(answer.status).toBe(400);
      expect(check(op, text), JSON.stringify(text)).toEqual((answer.body!.error as { details: Detail[] }).details);
    }
  });

  it("on bodies made from the examples by every kind of fault, the page's check and the simulator's validator give the same details", () => {
    /** Every field a body of the schema may carry: its own, its `allOf` parts', and its `oneOf` branches'. */
    const declared = (node: JsonObject): string[] => {
      const own = Object.keys((node.properties as JsonObject | undefined) ?? {});
      const parts = [...((node.allOf as JsonObject[] | undefined) ?? []), ...((node.oneOf as JsonObject[] | undefined) ?? [])].map((p) => deref(p));
      return [...new Set([...own, ...parts.flatMap(declared)])];
    };
    const faults = (value: Record<string, unknown>, fields: string[]): unknown[] => {
      const out: unknown[] = [null, [], "text", 5, {}, { ...value, unexpected_field: 1 }];
      for (const key of Object.keys(value)) {
        const { [key]: _, ...without } = value;
        out.push(without);
      }
      for (const key of new Set([...Object.keys(value), ...fields])) {
        for (const wrong of [5, "five", true, null, [], {}, "x".repeat(100_001), -1, 1e12, ["a", 1]]) out.push({ ...value, [key]: wrong });
      }
      return out;
    };
    let compared = 0;
    const differences: string[] = [];
    const ops = withBody().filter((o) => o.body!.form === "json" && o.body!.schema);
    expect(ops.length).toBeGreaterThan(10);
    for (const op of ops) {
      for (const example of op.body!.examples) {
        const value = JSON.parse(example.text) as Record<string, unknown>;
        const bodies = [...faults(value, declared(schema(op.body!.schema!))), ...fc.sample(fc.record({ key: fc.constantFrom(...Object.keys(value), "other"), wrong: fc.jsonValue({ maxDepth: 2 }) }), { numRuns: 40, seed: 27 }).map(({ key, wrong }) => ({ ...value, [key]: wrong }))];
        for (const body of bodies) {
          compared++;
          const server = validateChosen(op.body!.schema!, body);
          const inPage = check(op, JSON.stringify(body));
          if (JSON.stringify(server) !== JSON.stringify(inPage)) differences.push(`${op.operationId} ${JSON.stringify(body).slice(0, 120)}: simulator ${JSON.stringify(server)}, page ${JSON.stringify(inPage)}`);
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(differences.slice(0, 5)).toEqual([]);
  });

  it("a oneOf whose branches are other schemas collapses in the page as in the simulator: the page's validators report the bundle's own schema objects", () => {
    const inPage = page.validators["#/components/schemas/SubmitRequest"]!;
    const server = schemaValidator("SubmitRequest");
    const bodies = [{ type: 5 }, { type: "video" }, { type: "image", prompt: 5 }, { model: "x" }, { type: "upscale", image_url: 3, scale: "two" }];
    expect(bodies).not.toHaveLength(0);
    for (const body of bodies) {
      expect(inPage(body)).toBe(false);
      server(body);
      expect(page.toDetails(inPage.errors), JSON.stringify(body)).toEqual(toDetails(server.errors));
    }
  });

  it("a submit's faults are those of its chosen variant only, in the page as in the simulator (a failed oneOf collapses)", () => {
    const submit = page.model.operations.find((o) => o.operationId === "submitGeneration")!;
    const body = { type: "image", model: "image-model-a", prompt: "a fox", n_variants: "two", duration: 5 };
    const inPage = check(submit, JSON.stringify(body));
    // Only the image variant's faults: `duration` is a video's field, unknown to an image.
    expect(inPage.map((d) => `${d.field} ${d.reason}`).sort()).toEqual(["duration unknown_field", "n_variants wrong_type"]);
    expect(inPage).toEqual(validateChosen("SubmitRequest", body));
    expect(Object.keys((schema("SubmitRequest").oneOf as JsonObject[])).length).toBeGreaterThan(3);
  });
});

describe("where the panel sends, and the verdict it reads", () => {
  it("the requests' base is the page's own path before /docs/: the simulator's root, or a sandbox's prefix", () => {
    expect(mountPrefix("/docs/reference.html")).toBe("");
    expect(mountPrefix("/sandboxes/team-a/docs/reference.html")).toBe("/sandboxes/team-a");
    expect(mountPrefix("/sandboxes/docs/docs/reference.html")).toBe("/sandboxes/docs");
    expect(mountPrefix("/reference.html")).toBeUndefined();
  });

  it("the simulator is told apart by its journal; a refusal's row gives its verdict and the inspector link /_sim/ui/#request=<seq>", async () => {
    const probe = await fetch(`${sim.url}/_sim/requests?limit=1`);
    expect(serverFrom(sim.url, probe.status, probe.headers.get("x-request-id"), await probe.json())).toEqual({ kind: "simulator", base: sim.url, control: { on: true, journalSize: 200 } });
    const refused = await fetch(`${sim.url}/v1/generations`, { method: "POST", headers: { authorization: "Bearer ghk_demo_readonly", "content-type": "application/json", "idempotency-key": crypto.randomUUID(), "x-request-id": "docs-test-scope" }, body: JSON.stringify({ type: "image", model: "image-model-a", prompt: "a teapot" }) });
    expect(refused.status).toBe(403);
    const row = await fetch(`${sim.url}/_sim/requests?request_id=docs-test-scope`);
    const verdict = verdictFrom(sim.url, row.status, await row.json());
    expect(verdict.kind).toBe("row");
    if (verdict.kind !== "row") return;
    expect(verdict.inspector).toBe(`${sim.url}/_sim/ui/#request=${verdict.seq}`);
    expect(verdict.reason).toMatchObject({ by: "scope" });
    expect(verdict.reason!.text).toContain('rung "scope"');
  });

  it("where no verdict can be read the panel says why: the journal off, rolled past the row, the control interface off, not the simulator", async () => {
    const off = await startSimulator({ port: 0, clockSpeed: 0, journalSize: 0 });
    const small = await startSimulator({ port: 0, clockSpeed: 0, journalSize: 1 });
    const hidden = await startSimulator({ port: 0, clockSpeed: 0, host: "0.0.0.0" });
    try {
      const read = async (base: string, id: string) => {
        const answer = await fetch(`${base}/_sim/requests?request_id=${id}`);
        return verdictFrom(base, answer.status, await answer.json().catch(() => null));
      };
      await fetch(`${off.url}/v1/me`, { headers: { "x-request-id": "docs-off" } });
      expect(await read(off.url, "docs-off")).toEqual({ kind: "unavailable", why: expect.stringContaining("journal is off (--journal-size 0)") });
      await fetch(`${small.url}/v1/me`, { headers: { "x-request-id": "docs-first" } });
      await fetch(`${small.url}/v1/me`, { headers: { "x-request-id": "docs-second" } });
      expect(await read(small.url, "docs-first")).toEqual({ kind: "unavailable", why: expect.stringContaining("no longer holds this request: it keeps the 1 most recent") });
      const probe = await fetch(`${hidden.url}/_sim/requests?limit=1`);
      const server = serverFrom(hidden.url, probe.status, probe.headers.get("x-request-id"), await probe.json());
      expect(server).toMatchObject({ kind: "simulator", control: { on: false, why: expect.stringMatching(/^control interface is off: .*--expose-control/) } });
      // Another web server at the docs' address: not the simulator.
      expect(serverFrom("http://127.0.0.1:8080", 404, null, null)).toMatchObject({ kind: "static" });
    } finally {
      await Promise.all([off.close(), small.close(), hidden.close()]);
    }
  });
});

describe("the request as curl and as client code", () => {
  const specOf = (op: ConsoleOperation, credential: CredentialKind, body: string | null = startingBody(op) || null): RequestSpec => ({
    operation: op,
    base: "http://127.0.0.1:4010",
    values: startValues(op),
    body: op.body?.form === "file" ? null : body,
    mediaType: op.body ? op.body.mediaTypes[0]! : null,
    credential,
  });

  it("never writes the key: $HUB_API_KEY (process.env.HUB_API_KEY in code), the cookie $HUB_COOKIE", () => {
    const ops = page.model.operations.filter((o) => o.schemes.includes("api_key"));
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) {
      const spec = specOf(op, "key");
      for (const text of [curlOf(spec), clientCodeOf(spec)]) expect(text).not.toMatch(/ghk_|gho_/);
      expect(curlOf(spec)).toContain(`"Authorization: Bearer $HUB_API_KEY"`);
      expect(clientCodeOf(spec)).toContain("apiKey: process.env.HUB_API_KEY!");
    }
    const session = page.model.operations.find((o) => o.operationId === "resumeSubscription")!;
    expect(curlOf(specOf(session, "session"))).toContain(`"Cookie: $HUB_COOKIE"`);
  });

  // One type check for both: every example's client code, and a wrong-type body's beside it
  // (modules, so neither changes the other's types; the client's types are checked once).
  const WRONG = "wrong.mts";
  let problems: string[] | undefined;

  it("the client code of every operation's examples type-checks against the client", () => {
    const dir = mkdtempSync(join(work, "client-code-"));
    const specs = page.model.operations.flatMap((op) => (op.body?.examples.length ? op.body.examples.map((e) => [op, specOf(op, defaultCredential(op), e.text)] as const) : [[op, specOf(op, defaultCredential(op))] as const]));
    expect(specs.length).toBeGreaterThan(40);
    specs.forEach(([op, spec], i) => writeFileSync(join(dir, `${op.operationId}-${i}.mts`), clientCodeOf(spec)));
    const submit = page.model.operations.find((o) => o.operationId === "submitGeneration")!;
    writeFileSync(join(dir, WRONG), clientCodeOf(specOf(submit, "key", submit.wrong!.body!)));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ extends: at("docs/samples/tsconfig.json"), compilerOptions: { typeRoots: [at("node_modules/@types")] }, include: [join(dir, "*.mts")] }),
    );
    problems = diagnostics(join(dir, "tsconfig.json"));
    expect(problems.filter((p) => !p.includes(`/${WRONG}(`))).toEqual([]);
  }, 90_000);

  it("a wrong-type body does not type-check: the client's types catch what the panel flags", () => {
    expect(problems, "the type check above ran").toBeDefined();
    expect(problems!.filter((p) => p.includes(`/${WRONG}(`)).join("\n")).toMatch(/duration|string' is not assignable/);
  });
});

describe("a site built before the panel", () => {
  it("is not current: npm start and the dev tools' build make it again (the contract unchanged)", () => {
    const dir = mkdtempSync(join(work, "old-site-"));
    const bundle = at("generated/openapi.json");
    writeFileSync(join(dir, "index.html"), "<!doctype html>");
    writeFileSync(join(dir, SITE_MARKER), "Built by src/docs/build.ts (npm run docs). Safe to delete.\n");
    expect(siteIsCurrent(dir, bundle)).toBe(false);
    writeFileSync(join(dir, SITE_MARKER), markerText());
    expect(siteIsCurrent(dir, bundle)).toBe(true);
  });
});

describe("a site whose build was cut short", () => {
  it("is not current until the build finished: its marker says so only at the end", () => {
    const dir = mkdtempSync(join(work, "cut-site-"));
    const bundle = at("generated/openapi.json");
    writeFileSync(join(dir, "index.html"), "<!doctype html>");
    writeFileSync(join(dir, SITE_MARKER), markerText(false));
    expect(siteIsCurrent(dir, bundle)).toBe(false);
    writeFileSync(join(dir, SITE_MARKER), markerText(true));
    expect(siteIsCurrent(dir, bundle)).toBe(true);
  });
});

