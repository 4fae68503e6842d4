// What an answer owes the request it answers, whoever sent it (the suite, or traffic it
// only watched): a validator the request named that the answer carries means "unchanged"
// (304, not the whole answer again), and a text the seed says comes back as written does.
// Not judged against a static mock (its answers are examples, not echoes).
import { broke, held, type AnswerCheck } from "./check.ts";

/** The operations that answer 304 to a matching If-None-Match, by the rule that says so. */
const REVALIDATED: Readonly<Record<string, string>> = { listModels: "CAT-4" };

/** An entity tag's opaque part (weak comparison, RFC 9110 8.8.3.2: `W/` ignored). */
const opaque = (tag: string) => tag.trim().replace(/^W\//, "");

export const notModified: AnswerCheck = {
  name: "If-None-Match naming the answer's own ETag answers 304",
  rules: Object.values(REVALIDATED),
  check(ex, context) {
    if (context.staticMock) return [];
    const rule = ex.operation ? REVALIDATED[ex.operation.operationId] : undefined;
    const asked = ex.record.sent.headers["if-none-match"];
    const etag = ex.headers.get("etag");
    if (!rule || ex.method !== "GET" || asked === undefined || etag === null || ex.status !== 200) return [];
    const named = asked.split(",").map(opaque);
    if (!named.includes("*") && !named.includes(opaque(etag))) return [held(rule)];
    return [broke(rule, `If-None-Match ${asked} named the answer's own ETag ${etag}, and the answer was 200 with the whole list, not 304`)];
  },
};

export const textAsWritten: AnswerCheck = {
  name: "a support message's text comes back as written",
  rules: ["SUP-1"],
  check(ex, context) {
    if (context.staticMock || ex.method !== "POST" || ex.status < 200 || ex.status >= 300 || !/^\/v1\/support\/messages(?:\?|$)/.test(ex.path) || typeof ex.json?.text !== "string") return [];
    const sent = ex.record.sent;
    if (typeof sent.body !== "string" || sent.bodySize !== undefined) return [];
    let written: unknown;
    try {
      written = (JSON.parse(sent.body) as { text?: unknown }).text;
    } catch {
      return [];
    }
    if (typeof written !== "string") return [];
    return written === ex.json.text ? [held("SUP-1")] : [broke("SUP-1", `the message's text came back as ${JSON.stringify(ex.json.text.slice(0, 80))}, not as written (${JSON.stringify(written.slice(0, 80))})`)];
  },
};
