// Passive conformance (issue 25): a client's ordinary traffic through the proxy, and a
// recorded HAR file, judged with the same answer checks and invariants as an active run,
// without a request of the suite's own: in front of a correct simulator nothing is found,
// from the proxy or from the HAR of the same traffic (the broken servers: passive-reach.test.ts).
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeHar, renderJson, renderTable, startConformanceProxy, type Report } from "../../src/conformance/index.ts";
import type { RunningSimulator } from "../../src/simulator/index.ts";
import { HubControl } from "../../src/simulator/msw/control.ts";
import { harRecorder, journeyJudged } from "./support/passive-reach.ts";
import { startSim } from "./support/run.ts";

const KEY = "ghk_demo_full";
/** 8×8 transparent PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AAIMEwYAAHIAE7JcaSUAAAAASUVORK5CYII=", "base64");


const failing = (report: Report) => report.rows.filter((r) => r.verdict === "fail").map((r) => r.id);

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSim();
});
afterAll(async () => {
  await sim.close();
});

describe("passive proxy in front of the simulator", () => {
  it("judges a client's traffic (bad requests on purpose included) and finds nothing; it sends nothing of its own", async () => {
    const { report, said, steps, fromHar } = await journeyJudged(sim.url, KEY);
    expect(steps).toBeGreaterThan(20);
    expect(failing(report), renderTable(report)).toEqual([]);
    expect(said).toEqual([]);
    // The HAR of the same traffic, as the client saw it, judged offline: nothing either.
    expect(fromHar.passive!.judged.judged).toBeGreaterThan(30);
    expect(fromHar.passive!.judged.frames).toBeGreaterThan(0);
    expect(failing(fromHar), renderTable(fromHar)).toEqual([]);
    const passive = report.passive!;
    expect(passive.source).toBe("proxy");
    expect(passive.judged.judged).toBeGreaterThan(30);
    expect(passive.judged.frames).toBeGreaterThan(0);
    expect(passive.proxy!.streams).toBeGreaterThan(0);
    expect(passive.proxy!.upstreamErrors).toBe(0);
    // Every exchange it counts is one the client sent: the judged, the bare, and none besides.
    expect(passive.proxy!.exchanges).toBe(passive.judged.judged + passive.judged.bare + Object.values(passive.judged.bodyUnknown).reduce((a, b) => a + b, 0));
    expect(report.requests.total).toBe(passive.proxy!.exchanges);
    expect(report.summary.pass).toBeGreaterThan(20);
  });

  it("refuses a Host not of this machine (DNS rebinding) with 403 in the envelope, and forwards nothing", async () => {
    const proxy = await startConformanceProxy({ baseUrl: sim.url });
    const { request } = await import("node:http");
    const url = new URL(proxy.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: "/v1/me", headers: { host: `attacker.example:${url.port}`, authorization: `Bearer ${KEY}` } }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
      req.end();
    });
    const report = await proxy.stop();
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe("origin_mismatch");
    expect(report.passive!.proxy).toMatchObject({ refusedHosts: 1, exchanges: 0 });
  });
});

/** A request to the proxy under the Host the client names (a name the proxy allows), with its answer read whole. */
function viaHost(proxyUrl: string, host: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string) {
  const url = new URL(proxyUrl);
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { host, ...headers } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("--rewrite-links: a server behind another name", () => {
  const NAME = "hub-proxy.example";

  it("sends the server its own Host and rewrites the links it builds from it (the OAuth issuer, upload and output links) to the name the client used; the client follows them through the proxy", async () => {
    const plain = await startConformanceProxy({ baseUrl: sim.url, allowedHosts: [NAME] });
    const rewriting = await startConformanceProxy({ baseUrl: sim.url, allowedHosts: [NAME], rewriteLinks: true });
    const auth = { authorization: `Bearer ${KEY}` };
    try {
      // The client's Host goes on by default: the simulator names the proxy in its links
      // when that Host is one it answers, and refuses a name that is not its own.
      const local = new URL(plain.url).host;
      expect(JSON.parse((await viaHost(plain.url, local, "GET", "/.well-known/oauth-authorization-server")).body).issuer).toBe(plain.url);
      expect((await viaHost(plain.url, NAME, "GET", "/.well-known/oauth-authorization-server")).status).toBe(403);

      // Behind another name: the server gets its own Host, the client gets links to the name it used.
      const metadata = await viaHost(rewriting.url, NAME, "GET", "/.well-known/oauth-authorization-server");
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.body)).toMatchObject({ issuer: `http://${NAME}`, token_endpoint: `http://${NAME}/oauth/token` });
      expect(metadata.body).not.toContain(sim.url);

      const generations = JSON.parse((await viaHost(rewriting.url, NAME, "GET", "/v1/generations?limit=100", auth)).body) as { data: { output_urls: string[] }[] };
      const outputs = generations.data.flatMap((g) => g.output_urls);
      expect(outputs.length).toBeGreaterThan(0);
      for (const link of outputs) expect(link.startsWith(`http://${NAME}/v1/generations/`), link).toBe(true);
      const output = await viaHost(rewriting.url, NAME, "GET", new URL(outputs[0]!).pathname, auth);
      expect(output.status).toBe(200);

      const ticket = JSON.parse((await viaHost(rewriting.url, NAME, "POST", "/v1/uploads", { ...auth, "content-type": "application/json" }, JSON.stringify({ kind: "image", content_type: "image/png", content_length: PNG.length }))).body) as { url: string; headers: Record<string, string> };
      expect(ticket.url.startsWith(`http://${NAME}/`), ticket.url).toBe(true);
      // The upload's one PUT, to the rewritten link, reaches the server's storage through the proxy.
      const put = await viaHost(rewriting.url, NAME, "PUT", new URL(ticket.url).pathname + new URL(ticket.url).search, ticket.headers, PNG);
      expect(put.status, put.body).toBeLessThan(300);
      // A submit's Location is the server's path: it comes through as is, and leads back through the proxy.
      const submit = await viaHost(rewriting.url, NAME, "POST", "/v1/generations", { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() }, JSON.stringify({ type: "image", model: "image-model-a", prompt: "behind another name" }));
      expect(submit.status).toBe(202);
      const location = String(submit.headers.location);
      expect(location).toMatch(/^\/v1\/generations\/gen_/);
      expect((await viaHost(rewriting.url, NAME, "GET", location, auth)).status).toBe(200);
    } finally {
      await Promise.all([plain.stop(), rewriting.stop()]);
    }
    // stop() answers the report it made when it stopped.
    const [before, behind] = [await plain.stop(), await rewriting.stop()];
    expect(failing(behind), renderTable(behind)).toEqual([]);
    expect(behind.passive!.judged.judged).toBeGreaterThanOrEqual(6);
    // The server's refusal of a Host not its own is the proxy's set-up, not the server's finding: counted as unproved.
    expect(failing(before), renderTable(before)).toEqual([]);
    expect(Object.entries(before.passive!.judged.unproved)).toEqual([[expect.stringMatching(/^the server refused the Host it was sent/), 1]]);
  });

  it("rewrites every spelling of the server's address in what the client gets: a Location, JSON escaped or not, a percent-encoded parameter, and drops a cookie's Domain", async () => {
    // A server that builds absolute links from its own address (as one behind TLS or a virtual host does).
    const upstream = createHttpServer((req, res) => {
      const own = `http://${req.headers.host}`;
      res.writeHead(302, {
        location: `${own}/v1/generations/gen_1`,
        link: `<${own}/v1/models>; rel="related"`,
        "set-cookie": "gh_session=x; Domain=internal.example; Path=/; HttpOnly",
        "content-type": "application/json",
      });
      res.end(JSON.stringify({ plain: `${own}/v1/me`, escaped: `${own}/v1/me`.replace(/\//g, "\\/"), encoded: `/oauth/authorize?iss=${encodeURIComponent(own)}`, other: "http://elsewhere.example/v1/me" }).replace(/\\\\\//g, "\\/"));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const own = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const proxy = await startConformanceProxy({ baseUrl: own, allowedHosts: [NAME], rewriteLinks: true });
    try {
      const got = await viaHost(proxy.url, NAME, "GET", "/site/links");
      expect(got.headers.location).toBe(`http://${NAME}/v1/generations/gen_1`);
      expect(got.headers.link).toBe(`<http://${NAME}/v1/models>; rel="related"`);
      expect(got.headers["set-cookie"]).toEqual(["gh_session=x; Path=/; HttpOnly"]);
      expect(got.body).not.toContain(own);
      expect(got.body).toContain(`http:\\/\\/${NAME}\\/v1\\/me`);
      expect(JSON.parse(got.body)).toEqual({ plain: `http://${NAME}/v1/me`, escaped: `http://${NAME}/v1/me`, encoded: `/oauth/authorize?iss=${encodeURIComponent(`http://${NAME}`)}`, other: "http://elsewhere.example/v1/me" });
    } finally {
      await proxy.stop();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});

describe("judgeHar", () => {
  /** A HAR 1.2 log of requests sent straight to the simulator, as a browser exports it. */
  async function recorded(requests: { path: string; init?: RequestInit }[]): Promise<object> {
    expect(requests.length).toBeGreaterThan(0);
    const entries = [];
    for (const { path, init } of requests) {
      const started = new Date();
      const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, ...(init?.headers as Record<string, string>) };
      const res = await fetch(sim.url + path, { ...init, headers });
      const text = await res.text();
      entries.push({
        startedDateTime: started.toISOString(),
        time: Date.now() - started.getTime(),
        request: { method: init?.method ?? "GET", url: sim.url + path, httpVersion: "HTTP/1.1", headers: Object.entries(headers).map(([name, value]) => ({ name, value })), queryString: [], cookies: [], headersSize: -1, bodySize: -1, ...(init?.body ? { postData: { mimeType: headers["content-type"] ?? "application/json", text: String(init.body) } } : {}) },
        response: { status: res.status, statusText: "", httpVersion: "HTTP/1.1", headers: [...res.headers].map(([name, value]) => ({ name, value })), cookies: [], content: { size: text.length, mimeType: res.headers.get("content-type") ?? "x-unknown", text }, redirectURL: "", headersSize: -1, bodySize: -1 },
        cache: {},
        timings: { send: 0, wait: Date.now() - started.getTime(), receive: 0 },
      });
    }
    return { log: { version: "1.2", creator: { name: "test", version: "1" }, entries } };
  }

  it("judges a recorded HAR of a correct server's traffic (refusals of bad requests included) and finds nothing", async () => {
    const har = await recorded([{ path: "/v1/me" }, { path: "/v1/models" }, { path: "/v1/generations?limit=1000" }, { path: "/v1/generations?cursor=nonsense" }, { path: "/v1/nothing-here" }, { path: "/v1/me", init: { headers: { authorization: "Bearer ghk_no_such_key" } } }]);
    const report = judgeHar(har, { baseUrl: sim.url });
    expect(failing(report), renderTable(report)).toEqual([]);
    expect(report.passive!.har).toEqual({ entries: 6, exchanges: 6, skipped: {} });
    expect(report.passive!.judged.judged).toBe(6);
    expect(report.summary.pass).toBeGreaterThan(3);
    expect(renderJson(report)).not.toContain(KEY);
  });

  it("reads what a browser export holds besides: failed entries and WebSockets skipped under their reason, a body not recorded not judged", async () => {
    const har = (await recorded([{ path: "/v1/me" }])) as { log: { entries: Record<string, any>[] } };
    const [entry] = har.log.entries;
    har.log.entries.push({ ...entry, response: { ...entry!.response, status: 0 } }, { ...entry, _resourceType: "websocket" }, { ...entry, response: { ...entry!.response, content: { size: 120, mimeType: "application/json" } } });
    const report = judgeHar(har);
    expect(report.passive!.har!.skipped).toEqual({ "no answer (the request failed or was aborted)": 1, "a WebSocket": 1 });
    expect(report.passive!.judged.bodyUnknown).toEqual({ "not recorded": 1 });
    expect(failing(report)).toEqual([]);
  });

  it("reads an event stream's body from a HAR and judges its frames like live ones: an event id sent twice, DONE then RUNNING", async () => {
    // A stream recorded as the client read it: opened, a submit, the clock moved, read to DONE.
    const recorder = harRecorder();
    const headers = { authorization: `Bearer ${KEY}` };
    const abort = new AbortController();
    const stream = await recorder.fetch(`${sim.url}/v1/events`, { headers: { ...headers, accept: "text/event-stream" }, signal: abort.signal });
    await recorder.fetch(`${sim.url}/v1/generations`, { method: "POST", headers: { ...headers, "content-type": "application/json", "idempotency-key": randomUUID() }, body: JSON.stringify({ type: "image", model: "image-model-a", prompt: "a stream in a HAR" }) }).then((r) => r.text());
    await HubControl.overHttp(sim.url, { fetch: recorder.fetch }).advance(60);
    const reader = stream.body!.getReader();
    let text = "";
    while (!/"status":"DONE"[^\n]*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const har = recorder.har() as { log: { entries: Record<string, any>[] } };
    const entry = har.log.entries.find((e) => e.request.url.endsWith("/v1/events"))!;
    const body: string = entry.response.content.text;
    const frames = body.split("\n\n").filter((f) => f.startsWith("event: generation.status_changed"));
    expect(frames.length).toBeGreaterThanOrEqual(2);

    const clean = judgeHar(har, { baseUrl: sim.url });
    expect(failing(clean), renderTable(clean)).toEqual([]);
    expect(clean.passive!.judged.frames).toBeGreaterThanOrEqual(frames.length);

    /** The same HAR with the stream's body replaced. */
    const withStream = (text: string) => ({ log: { ...har.log, entries: har.log.entries.map((e) => (e === entry ? { ...e, response: { ...e.response, content: { ...e.response.content, size: text.length, text } } } : e)) } });
    const done = frames.find((f) => f.includes('"status":"DONE"'))!;
    const repeated = judgeHar(withStream(`${body}${done}\n\n`), { baseUrl: sim.url });
    expect(failing(repeated), renderTable(repeated)).toEqual(["EVT-9"]);
    const running = done.replace('"status":"DONE"', '"status":"RUNNING"').replace(/^id: .*$/m, "id: 99.after-done");
    const regressed = judgeHar(withStream(`${body}${running}\n\n`), { baseUrl: sim.url });
    expect(failing(regressed), renderTable(regressed)).toEqual(["ST-5"]);
    // A stream whose body the file does not hold (Playwright's "omit") is judged on its opening alone.
    const omitted = judgeHar({ log: { ...har.log, entries: [{ ...entry, response: { ...entry.response, content: { size: -1, mimeType: "text/event-stream" } } }] } }, { baseUrl: sim.url });
    expect(omitted.passive!.judged.frames).toBe(0);
    expect(failing(omitted)).toEqual([]);
  });

  it("refuses what is not a HAR 1.x log with one reason", () => {
    expect(() => judgeHar("{not json")).toThrow(/not a HAR file: it is not JSON/);
    expect(() => judgeHar({ entries: [] })).toThrow(/not a HAR file: it has no `log` object/);
    expect(() => judgeHar({ log: { entries: {} } })).toThrow(/`log.entries` is not a list/);
    expect(() => judgeHar({ log: { version: "2.0", entries: [] } })).toThrow(/only HAR 1.x is read/);
  });
});
