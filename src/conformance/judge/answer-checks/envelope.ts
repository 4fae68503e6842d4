// Every failure (but the OAuth protocol routes' RFC 6749 errors) is the error envelope:
// JSON, its status that of the error-code table, no stack trace or framework message in
// any of its texts, an English `message`, Russian `user_message` only on request, and the
// caller's request id repeated.
import { errorCodes, responseFor, schemaValidator, statusOf } from "../../../contract/index.ts";
import { envelopeRule } from "../broken-rule.ts";
import { broke, held, isEnvelopeFailure, type AnswerCheck, type Finding } from "./check.ts";
import { type Exchange } from "../../target/exchange.ts";

const envelopeValid = schemaValidator("ErrorEnvelope");
const CYRILLIC = /[\u0400-\u04FF]/;
const STACK = [
  /\n\s+at [^\n]+:\d+:\d+/,
  /\bat [\w$.<>]+ \([^)]*:\d+:\d+\)/,
  /node_modules\//,
  /Traceback \(most recent call last\)/,
  /\b(?:SyntaxError|TypeError|ReferenceError|RangeError):/,
  /\bFST_[A-Z_]+\b/,
  // V8's JSON.parse messages (Node 20: "... in JSON at position 5"; Node 22+: `"x" is not valid JSON`).
  /in JSON at position \d+|Unexpected end of JSON input|Unexpected token\b|"[^"]*" is not valid JSON|Expected property name or/,
  /\bException in thread\b|\bjava\.lang\./,
];

/** The `error` object of an envelope failure, when its body has one. */
function errorOf(ex: Exchange): Record<string, any> | undefined {
  if (!isEnvelopeFailure(ex)) return undefined;
  const error = ex.json?.error;
  return error && typeof error === "object" ? error : undefined;
}

export const failureIsEnvelope: AnswerCheck = {
  name: "a failure answers the error envelope",
  rules: ["W-5", "EP-1"],
  check(ex) {
    if (!isEnvelopeFailure(ex)) return [];
    const out: Finding[] = [held("W-5"), held("EP-1")];
    if (ex.json === undefined) return [...out, broke("W-5", `a failure whose body is not JSON: ${JSON.stringify(ex.text.slice(0, 100))}`)];
    // checkAnswer validated the body when the status is declared; otherwise (an unknown
    // route, an undeclared status) the envelope is checked here.
    const declared = ex.operation !== undefined && responseFor(ex.operation, ex.status) !== undefined;
    if (!declared && !envelopeValid(ex.json)) {
      for (const e of envelopeValid.errors ?? []) {
        const missing = (e.params as { missingProperty?: string }).missingProperty;
        const message = `body${e.instancePath} ${e.message ?? "is not valid"}${e.keyword === "required" ? ` '${String(missing)}'` : ""}`;
        out.push(broke(envelopeRule([...e.instancePath.split("/").filter(Boolean), ...(missing ? [missing] : [])]), message));
      }
    }
    return out;
  },
};

export const errorCodeStatus: AnswerCheck = {
  name: "an error code answers with the status of the error-code table",
  rules: ["ERR-2", "ENV-1", "ENV-5", "ERR-4", "ERR-3"],
  check(ex) {
    const error = errorOf(ex);
    if (!error) return [];
    const out: Finding[] = [];
    const code = typeof error.code === "string" ? error.code : undefined;
    if (code && errorCodes.has(code)) {
      out.push(held("ERR-2"), held("ENV-1"));
      if (statusOf(code) !== ex.status) out.push(broke("ERR-2", `${code} answered with ${ex.status}; the error-code table says ${statusOf(code)}`));
    }
    if (Array.isArray(error.details) && error.details.length > 0) out.push(held("ENV-5"), held("ERR-4"));
    if (ex.status === 429) out.push(held("ERR-3"));
    return out;
  },
};

export const noStackTrace: AnswerCheck = {
  name: "no stack trace or framework message in a failure",
  rules: ["ENV-6"],
  check(ex) {
    if (!isEnvelopeFailure(ex)) return [];
    if (ex.json === undefined) {
      return STACK.some((p) => p.test(ex.text)) ? [broke("ENV-6", `a stack trace or framework message in the body: ${JSON.stringify(ex.text.slice(0, 120))}`)] : [];
    }
    if (!errorOf(ex)) return [];
    // Every text of the body, not only the envelope's own fields: a trace is often a field
    // of its own (`error.stack`, `error.trace` as a list of frames).
    const leak = textsOf(ex.json, "").find(([, t]) => STACK.some((p) => p.test(t)));
    return [held("ENV-6"), ...(leak ? [broke("ENV-6", `a stack trace or framework message in the body at ${leak[0]}: ${JSON.stringify(leak[1].slice(0, 120))}`)] : [])];
  },
};

export const englishMessage: AnswerCheck = {
  name: "error.message is English",
  rules: ["ENV-2"],
  check(ex) {
    const error = errorOf(ex);
    if (typeof error?.message !== "string") return [];
    return [held("ENV-2"), ...(CYRILLIC.test(error.message) ? [broke("ENV-2", `error.message is not English: ${JSON.stringify(error.message.slice(0, 80))}`)] : [])];
  },
};

export const russianOnRequest: AnswerCheck = {
  name: "user_message is Russian only when asked for",
  rules: ["ENV-3"],
  check(ex, context) {
    const error = errorOf(ex);
    if (typeof error?.user_message !== "string") return [];
    const russian = /^\s*ru\b/i.test(context.acceptLanguage ?? "");
    if (!russian) return [held("ENV-3"), ...(CYRILLIC.test(error.user_message) ? [broke("ENV-3", "error.user_message is Russian although the request did not ask for Russian")] : [])];
    // Russian, or the English message where no translation exists; whether the server
    // translates at all is judged over the run (the `localisation` check).
    const inRussian = CYRILLIC.test(error.user_message);
    context.seen.localisation.push({ code: typeof error.code === "string" ? error.code : String(error.code), russian: inRussian });
    return !inRussian && error.user_message !== error.message ? [broke("ENV-3", "with Accept-Language: ru, user_message is neither Russian nor equal to message")] : [];
  },
};

export const envelopeRequestId: AnswerCheck = {
  name: "error.request_id repeats the caller's X-Request-Id",
  rules: ["ENV-4"],
  check(ex, context) {
    const error = errorOf(ex);
    if (context.staticMock || typeof error?.request_id !== "string" || !ex.sentRequestId) return [];
    return [held("ENV-4"), ...(error.request_id !== ex.sentRequestId ? [broke("ENV-4", `error.request_id ${JSON.stringify(error.request_id)} does not repeat the X-Request-Id sent (${JSON.stringify(ex.sentRequestId)})`)] : [])];
  },
};

/** Every string in a JSON value with its dotted path (`error.trace.0`). */
function textsOf(value: unknown, path: string): [string, string][] {
  if (typeof value === "string") return [[path || "body", value]];
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => textsOf(v, path ? `${path}.${k}` : k));
}
