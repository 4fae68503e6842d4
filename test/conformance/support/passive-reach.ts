// How far passive judging reaches: each broken server of DOUBLES behind a passive proxy,
// the journey's ordinary traffic through it, and two questions per double.
//   - Exercised: the double's fault fired on that traffic, i.e. it changed something the
//     journey sent or got (a request rewritten to another method, path, header or body; an
//     answer's status, headers or body changed; an answer made up or withheld; a stream's
//     text changed). A fault that never fired is a bug this traffic does not reach, and no
//     judge of it could report it.
//   - Caught: the passive report fails the double's rule (or one it names as the same
//     bug, `also`). A finding under another rule is counted apart (`elsewhere`): the
//     correct server gives no finding at all, so it is the bug, said under another name.
// Each double gets a simulator of its own, so no double's state reaches another's run.
import { judgeHar, startConformanceProxy, type Report } from "../../../src/conformance/index.ts";
import { HubControl } from "../../../src/simulator/msw/control.ts";
import type { Double } from "./doubles.ts";
import { clientJourney } from "./passive-journey.ts";
import { startProxy, type ProxiedAnswer, type ProxiedRequest, type Rewrite } from "./proxy.ts";
import { startSim } from "./run.ts";

export interface Reach {
  title: string;
  rule: string;
  /** Where the fault fired (`answer POST /v1/generations`), the first few; empty: not exercised. */
  fired: string[];
  /** The report failed the double's rule (or its `also`). */
  caught: boolean;
  /** The same, judging the HAR of the traffic offline. */
  caughtFromHar: boolean;
  /** The rules the report failed. */
  failing: string[];
}

const sameRequest = (a: ProxiedRequest, b: ProxiedRequest) => a.method === b.method && a.path === b.path && a.body.equals(b.body) && JSON.stringify(a.headers) === JSON.stringify(b.headers);
const sameAnswer = (a: ProxiedAnswer, b: ProxiedAnswer) => a.status === b.status && a.body === b.body && JSON.stringify(a.headers) === JSON.stringify(b.headers);

/** The double's rewrite, noting in `fired` each time it changes what passes. */
export function tracked(inner: Rewrite, fired: string[]): Rewrite {
  const note = (hook: string, req: ProxiedRequest) => void (fired.length < 20 && fired.push(`${hook} ${req.method} ${req.path.split("?")[0]}`));
  const out: Rewrite = {};
  if (inner.request) {
    out.request = (req) => {
      const next = inner.request!(req);
      if (!sameRequest(req, next)) note("request", req);
      return next;
    };
  }
  if (inner.answer) {
    out.answer = (req, a) => {
      const next = inner.answer!(req, { ...a, headers: { ...a.headers } });
      if (!sameAnswer(a, next)) note("answer", req);
      return next;
    };
  }
  if (inner.intercept) {
    out.intercept = (req) => {
      const own = inner.intercept!(req);
      if (own) note("intercept", req);
      return own;
    };
  }
  if (inner.hang) {
    out.hang = (req) => {
      const hangs = inner.hang!(req);
      if (hangs) note("hang", req);
      return hangs;
    };
  }
  if (inner.stream) {
    out.stream = (req, chunk, first) => {
      const next = inner.stream!(req, chunk, first);
      if (next !== chunk) note("stream", req);
      return next;
    };
  }
  return out;
}

const failingOf = (report: Report) => report.rows.filter((r) => r.verdict === "fail").map((r) => r.id);

/** A fetch that records what it sends and gets as HAR 1.2 entries, as a browser's export holds them (an event stream's body as far as the client read it). */
export function harRecorder(): { fetch: typeof fetch; har(): object } {
  const entries: { entry: Record<string, any>; chunks: Uint8Array[]; textual: boolean }[] = [];
  const pairs = (headers: Headers) => [...headers].map(([name, value]) => ({ name, value }));
  const recorded: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const type = request.headers.get("content-type") ?? "";
    const sent = request.body ? Buffer.from(await request.clone().arrayBuffer()) : undefined;
    const started = Date.now();
    const answer = await fetch(request);
    const wait = Date.now() - started;
    const mimeType = answer.headers.get("content-type") ?? "x-unknown";
    const textual = /json|text|xml/.test(mimeType);
    const entry: Record<string, any> = {
      startedDateTime: new Date(started).toISOString(),
      time: wait,
      request: { method: request.method, url: request.url, httpVersion: "HTTP/1.1", headers: pairs(request.headers), queryString: [], cookies: [], headersSize: -1, bodySize: sent?.length ?? 0, ...(sent ? { postData: /json|text/.test(type) ? { mimeType: type, text: sent.toString("utf8") } : { mimeType: type, text: sent.toString("base64"), encoding: "base64" } } : {}) },
      response: { status: answer.status, statusText: answer.statusText, httpVersion: "HTTP/1.1", headers: pairs(answer.headers), cookies: [], content: { size: 0, mimeType }, redirectURL: "", headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait, receive: 0 },
    };
    const kept = { entry, chunks: [] as Uint8Array[], textual };
    entries.push(kept);
    if (!answer.body) return answer;
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        kept.chunks.push(chunk);
        out.enqueue(chunk);
      },
    });
    return new Response(answer.body.pipeThrough(tap), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
  };
  return {
    fetch: recorded,
    har() {
      const list = entries.map(({ entry, chunks, textual }) => {
        const body = Buffer.concat(chunks);
        return { ...entry, response: { ...entry.response, content: { ...entry.response.content, size: body.length, ...(textual ? { text: body.toString("utf8") } : { text: body.toString("base64"), encoding: "base64" }) } } };
      });
      return { log: { version: "1.2", creator: { name: "passive-reach", version: "1" }, entries: list } };
    },
  };
}

/**
 * The journey through a passive proxy in front of `upstream` (its clock moved through the
 * proxy): the report, the lines said as findings came, the journey's steps, and the HAR of
 * all its traffic as the client saw it (the clock's moves included), judged offline.
 */
export async function journeyJudged(upstream: string, apiKey = "ghk_demo_full"): Promise<{ report: Report; said: string[]; steps: number; har: object; fromHar: Report }> {
  const said: string[] = [];
  const recorder = harRecorder();
  const proxy = await startConformanceProxy({ baseUrl: upstream, onFinding: (line) => said.push(line) });
  let steps = 0;
  let report: Report;
  try {
    const control = HubControl.overHttp(proxy.url, { fetch: recorder.fetch });
    steps = (await clientJourney({ baseUrl: proxy.url, apiKey, fetch: recorder.fetch, advance: (s) => control.advance(s).then(() => undefined) })).length;
  } finally {
    report = await proxy.stop();
  }
  const har = recorder.har();
  return { report, said, steps, har, fromHar: judgeHar(har, { baseUrl: proxy.url }) };
}

/** One double: its fault tracked, the journey judged through a passive proxy in front of it. */
export async function reachOf(d: Double): Promise<Reach & { report: Report; said: string[] }> {
  const sim = await startSim();
  const fired: string[] = [];
  try {
    const broken = await startProxy(sim.url, tracked(d.make(sim), fired));
    try {
      const { report, said, fromHar } = await journeyJudged(broken.url);
      const failing = failingOf(report);
      const rules = [d.rule, ...(d.also ?? [])];
      return { title: d.title, rule: d.rule, fired, caught: failing.some((id) => rules.includes(id)), caughtFromHar: failingOf(fromHar).some((id) => rules.includes(id)), failing, report, said };
    } finally {
      await broken.close();
    }
  } finally {
    await sim.close();
  }
}

/** Exercised and caught, in figures. */
export function tally(reach: readonly Reach[]): { doubles: number; exercised: number; caught: number; caughtFromHar: number; elsewhere: number } {
  const exercised = reach.filter((r) => r.fired.length > 0);
  return {
    doubles: reach.length,
    exercised: exercised.length,
    caught: exercised.filter((r) => r.caught).length,
    caughtFromHar: exercised.filter((r) => r.caughtFromHar).length,
    elsewhere: exercised.filter((r) => !r.caught && r.failing.length > 0).length,
  };
}
