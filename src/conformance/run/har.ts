// The exchanges that failures cite as a HAR 1.2 file (`--har FILE`), secrets masked: a
// backend engineer opens it in a browser's network panel or a HAR viewer, or replays it.
import { STATUS_CODES } from "node:http";
import type { KeptBody, MaskedExchange } from "../target/record.ts";
import type { Report } from "./runner.ts";

const pairs = (list: [string, string][]) => list.map(([name, value]) => ({ name, value }));

function query(url: string): { name: string; value: string }[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function content(body: KeptBody): { size: number; mimeType: string; text?: string; comment?: string } {
  return { size: body.size, mimeType: body.mimeType, ...(body.text !== undefined ? { text: body.text } : { comment: "binary body not kept" }) };
}

function entry(x: MaskedExchange, comment: string): Record<string, unknown> {
  const body = x.request.body;
  return {
    startedDateTime: x.startedAt,
    time: x.ms,
    request: {
      method: x.request.method,
      url: x.request.url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(x.request.headers),
      queryString: query(x.request.url),
      ...(body ? { postData: { mimeType: body.mimeType, text: body.text ?? "", ...(body.text === undefined ? { comment: `${body.size} bytes, binary body not kept` } : {}) } } : {}),
      headersSize: -1,
      bodySize: body?.size ?? 0,
    },
    response: {
      status: x.response.status,
      statusText: STATUS_CODES[x.response.status] ?? "",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(x.response.headers),
      content: content(x.response.body),
      redirectURL: x.response.headers.find(([n]) => n.toLowerCase() === "location")?.[1] ?? "",
      headersSize: -1,
      bodySize: x.response.body.size,
    },
    cache: {},
    timings: { send: 0, wait: x.ms, receive: 0 },
    comment,
  };
}

/** A HAR 1.2 log of every exchange a failure cites; each entry's comment names the rules and failures. */
export function renderHar(report: Report, creator = { name: "generation-hub-conformance", version: "1.0.0" }): string {
  const why = new Map<number, string[]>();
  for (const row of report.rows) {
    for (const f of row.failures) {
      if (f.exchange !== undefined) why.set(f.exchange, [...(why.get(f.exchange) ?? []), `${row.id}: ${f.message}`]);
      f.steps?.forEach((st, i) => {
        if (st.exchange !== undefined) why.set(st.exchange, [...(why.get(st.exchange) ?? []), `${row.id}: step ${i + 1} (${st.step}) of the sequence before: ${f.message}`]);
      });
    }
  }
  const entries = report.exchanges.map((x, i) => entry(x, (why.get(i) ?? []).join("\n")));
  return `${JSON.stringify({ log: { version: "1.2", creator, pages: [], entries, comment: `Conformance run against ${report.target} at ${report.startedAt}: the exchanges its failures cite, secrets masked` } }, null, 2)}\n`;
}
