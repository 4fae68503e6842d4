// The getting-started guide, followed as written against the simulator (issue 6, "done
// when": a reader follows a guide from a demo key to a finished generation). The guide's
// own `curl` commands are parsed and sent (with its base address, demo key, model and
// bodies), then the generation it submitted is followed to DONE on the event stream and
// its result downloaded. A guide that names a key, model or body the simulator refuses
// fails here. The simulator also serves the built docs at /docs/.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAnswer, matchOperation } from "../../src/contract/index.ts";
import { buildDocsSite } from "../../src/docs/build.ts";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.ts";
import { at } from "../../scripts/lib/paths.ts";

const guide = readFileSync(at("docs/guides/getting-started.md"), "utf8");

interface Curl {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  stream: boolean;
  line: string;
}

/** Shell words of one command (single and double quotes, `\` line continuations). */
function words(command: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | undefined;
  let started = false;
  const text = command.replace(/\\\n/g, " ");
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started || current) out.push(current);
      current = "";
      started = false;
    } else {
      current += ch;
    }
  }
  if (started || current) out.push(current);
  return out;
}

/** The guide's `curl` commands, with its shell variables substituted. */
function curls(markdown: string, env: Record<string, string>): Curl[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const commands = blocks.flatMap((b) => b.replace(/\\\n/g, " ").split("\n")).filter((l) => l.trim().startsWith("curl "));
  return commands.map((line) => {
    const argv = words(line.replace(/\$(\w+)/g, (_, name: string) => env[name] ?? `$${name}`)).slice(1);
    const c: Curl = { method: "GET", url: "", headers: {}, stream: false, line };
    for (let k = 0; k < argv.length; k++) {
      const a = argv[k]!;
      if (a === "-H") {
        const [name, ...rest] = argv[++k]!.split(":");
        c.headers[name!.trim()] = rest.join(":").trim();
      } else if (a === "-d") {
        c.body = argv[++k];
        c.method = "POST";
        c.headers["Content-Type"] ??= "application/json";
      } else if (a === "-X") c.method = argv[++k]!;
      else if (a === "-o") k++;
      else if (/^-[a-zA-Z]+$/.test(a)) c.stream ||= a.includes("N");
      else c.url = a;
    }
    return c;
  });
}

const env = Object.fromEntries([...guide.matchAll(/^export (\w+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));

describe("getting started, followed as written against the simulator", () => {
  let sim: RunningSimulator;
  const work = mkdtempSync(join(tmpdir(), "docs-walkthrough-"));
  const site = join(work, "site");
  const violations: string[] = [];

  beforeAll(async () => {
    await buildDocsSite({ outDir: site });
    sim = await startSimulator({ port: 0, clockSpeed: 100, docsDir: site });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Sends a request to the simulator in place of the guide's base address; checks the answer against the contract. */
  async function send(c: Curl): Promise<Response> {
    const url = c.url.replace(env.HUB!, sim.url);
    const response = await fetch(url, { method: c.method, headers: c.headers, body: c.body });
    const matched = matchOperation(c.method, new URL(url).pathname);
    if (matched && !c.stream) {
      const body = await response.clone().text();
      for (const v of checkAnswer(matched.operation, { status: response.status, headers: response.headers, body })) violations.push(`${c.line}: ${v.where}: ${v.message}`);
    }
    return response;
  }

  it("the guide names the simulator's address and a demo key", () => {
    expect(env.HUB).toBe("http://127.0.0.1:4010");
    expect(env.HUB_KEY).toMatch(/\S/);
  });

  it("from the demo key to a finished generation and its result file", { timeout: 60_000 }, async () => {
    const commands = curls(guide, env);
    const byPath = (method: string, path: string) => {
      const found = commands.find((c) => c.method === method && new URL(c.url).pathname === path && !c.url.includes("<"));
      expect(found, `the guide shows ${method} ${path}`).toBeDefined();
      return found!;
    };

    // 2. The key resolves.
    const whoami = await send(byPath("GET", "/v1/whoami"));
    expect(whoami.status).toBe(200);
    expect(((await whoami.json()) as { scopes: string[] }).scopes).toContain("generations:write");

    // 3. The model the guide uses is in the key's catalog.
    const submit = byPath("POST", "/v1/generations");
    const model = (JSON.parse(submit.body!) as { model: string }).model;
    const models = await send(byPath("GET", "/v1/models"));
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toContain(model);

    // 4. The estimate prices the guide's body.
    const estimate = await send(byPath("POST", "/v1/pricing/estimate"));
    expect(estimate.status).toBe(200);
    expect(typeof ((await estimate.json()) as { price_cc: unknown }).price_cc).toBe("number");

    // 6 (opened first, so no event is missed). The stream of the guide.
    const streamCommand = commands.find((c) => c.stream && new URL(c.url).pathname === "/v1/events")!;
    expect(streamCommand).toBeDefined();
    const controller = new AbortController();
    const stream = await fetch(streamCommand.url.replace(env.HUB!, sim.url), { headers: streamCommand.headers, signal: controller.signal });
    expect(stream.status).toBe(200);

    // 5. The submit: 202 with Location; the replay with the same key answers the same generation.
    const first = await send(submit);
    expect(first.status).toBe(202);
    expect(first.headers.get("location")).toMatch(/\/v1\/generations\//);
    const record = (await first.json()) as { id: string; status: string };
    const replay = await send(submit);
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { id: string }).id).toBe(record.id);

    // 6. Events until the generation is final (an event is never the full record).
    const decoder = new TextDecoder();
    let buffered = "";
    let final: string | undefined;
    const reader = stream.body!.getReader();
    while (!final) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      for (const m of buffered.matchAll(/^data: (.*)$/gm)) {
        const data = JSON.parse(m[1]!) as { id?: string; status?: string };
        if (data.id === record.id && (data.status === "DONE" || data.status === "FAILED")) final = data.status;
      }
    }
    controller.abort();
    expect(final).toBe("DONE");

    // 7. Read the record, then download each output link as given, with the key.
    const read = await send({ ...byPath("GET", "/v1/generations/gen_01JD8X4K2M9QF7T3V5W6Y8Z0AB"), url: `${env.HUB}/v1/generations/${record.id}` });
    expect(read.status).toBe(200);
    const done = (await read.json()) as { status: string; output_urls: string[] };
    expect(done.status).toBe("DONE");
    expect(done.output_urls.length).toBeGreaterThan(0);
    for (const link of done.output_urls) {
      const file = await fetch(link, { headers: { Authorization: `Bearer ${env.HUB_KEY}` } });
      expect(file.status, link).toBe(200);
      expect((await file.arrayBuffer()).byteLength, link).toBeGreaterThan(0);
    }
    expect(violations).toEqual([]);
  });

  it("the simulator serves these docs at /docs/", async () => {
    const home = await fetch(`${sim.url}/docs/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('href="guides/getting-started.html"');
    const reference = await fetch(`${sim.url}/docs/reference.html`);
    expect(reference.status).toBe(200);
    expect(reference.headers.get("content-type")).toMatch(/text\/html/);
  });
});
