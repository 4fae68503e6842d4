// One request and its answer as the suite (and anything that judges it) reads them: what
// was sent, what came back, the operation of the contract it answered, the credential it
// went with, and how a finding cites it. `exchangeOf` makes one from a request and an
// answer, whoever sent it: the target, or traffic the suite did not send (a proxy, a
// recorded HAR file) fed to the same sinks.
import { matchOperation, type Operation } from "../../contract/index.ts";
import { keptBody, type ExchangeRecord, type SentRequest } from "./record.ts";

export interface Exchange {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  headers: Headers;
  /** The body as text, whole (up to `--max-answer-bytes`): for the moment the answer is judged. */
  text: string;
  /** The parsed body when it is JSON. */
  json: any;
  /** The body as bytes, when the request asked for them (`binary`). */
  bytes?: Uint8Array;
  operation?: Operation;
  /** Which credential was used (`main`, `other`, a role, or `none`). */
  label: string;
  sentRequestId?: string;
  /** What is kept of the request and its answer for a reproduction (curl, HAR): the body a bounded prefix. */
  record: ExchangeRecord;
  cite: Cited;
}

/** The part of an exchange a failure cites. */
export interface Cited {
  requestId?: string;
  request?: string;
  operation?: string;
  exchange?: ExchangeRecord;
  /** A request that got no answer: a reproduction without an exchange. */
  sent?: SentRequest;
  /** The requests of the sequence that led to it, in order. */
  steps?: { step: string; cited: Cited }[];
}

export interface RequestSpec {
  method?: string;
  /** Path with query, e.g. `/v1/generations?limit=2`. */
  path: string;
  /** The credential: a key secret, `null` for none; default the main key. */
  key?: string | null;
  /** Label of the credential for the request count (default from the key). */
  label?: string;
  /** A raw Authorization header (overrides `key`). */
  authorization?: string;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A body sent as is. */
  raw?: string;
  /** The rule the request exercises; departures no rule owns are charged to it. */
  rule: string;
  /** `false`: send no X-Request-Id (default: a fresh one). A string: send that one. */
  requestId?: string | false;
  /** Read only the status and headers (result files). */
  headersOnly?: boolean;
  /** Do not wait and resend after a 429. */
  noRetry?: boolean;
  /** Spend the credential's window to its end: not waited for when it is down to `--reserve` (a key of the run's own, exceeding its window on purpose). */
  spendAll?: boolean;
  /** Not an API request (a CORS preflight): counted, not checked against the contract. */
  bare?: boolean;
  /** Never through the proxy (Prism answers a body that is not JSON itself). */
  direct?: boolean;
  /**
   * An absolute address outside the API (an upload ticket's storage `url`): sent there
   * as is, never through the proxy; `path` then only names it in the report. Use with
   * `bare` (such an answer is not an API answer).
   */
  url?: string;
  /** A binary body sent as is (an uploaded file). */
  bytes?: Uint8Array;
  /** Keep the answer's body as bytes (`Exchange.bytes`): a file to compare. */
  binary?: boolean;
  /**
   * Header lines sent besides the others, each a line of its own (two `Authorization`
   * headers): fetch joins a header given twice into one, so these requests go through
   * node:http, and never through a proxy (it may join them too).
   */
  lines?: [string, string][];
  /**
   * Send the path byte for byte (through node:http): fetch resolves dot segments
   * (`/v1/x/../whoami`) before sending, as a URL parser does.
   */
  verbatim?: boolean;
  /** An event stream: a 200 `text/event-stream` answer's body is left open for the stream to read. */
  stream?: boolean;
}

/** An answer as it came: its status, its headers, its body as text (and as bytes when asked for). */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  bytes?: Uint8Array;
  /** Bytes of the body seen (read, or announced by Content-Length when the body was not read). */
  size: number;
}

/**
 * An exchange from a request and its answer: the body parsed when it is JSON, the
 * operation of the contract it answered, the request id it is known by (the echo, else the
 * envelope's, else the one sent), and what is kept of it (the record, its body a prefix).
 */
export function exchangeOf(sent: SentRequest, answer: Answer, how: { path: string; label: string; sentRequestId?: string; startedAt: number; ms: number }): Exchange {
  const method = sent.method;
  let json: unknown;
  if ((answer.headers.get("content-type") ?? "").includes("json") && answer.text.length > 0) {
    try {
      json = JSON.parse(answer.text);
    } catch {
      json = undefined;
    }
  }
  const operation = matchOperation(method, how.path.split("?")[0]!)?.operation;
  const echoed = answer.headers.get("x-request-id") ?? undefined;
  const bodyId = (json as { error?: { request_id?: unknown } } | undefined)?.error?.request_id;
  const requestId = echoed ?? (typeof bodyId === "string" ? bodyId : undefined) ?? how.sentRequestId;
  const record: ExchangeRecord = { sent, status: answer.status, headers: [...answer.headers], body: keptBody(answer.text, answer.size), startedAt: new Date(how.startedAt).toISOString(), ms: how.ms };
  return {
    method,
    path: how.path,
    status: answer.status,
    headers: answer.headers,
    text: answer.text,
    json,
    ...(answer.bytes ? { bytes: answer.bytes } : {}),
    operation,
    label: how.label,
    sentRequestId: how.sentRequestId,
    record,
    cite: { requestId, request: `${method} ${how.path} -> ${answer.status}`, ...(operation ? { operation: operationLabel(operation) } : {}), exchange: record },
  };
}

/** The envelope's `error.code`, when the body has one. */
export function errorCodeOf(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/** How the report names an operation: `readWhoami (GET /v1/whoami)`. */
export function operationLabel(operation: Operation): string {
  return `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
}

/** What an answer said, for messages: `404 not_found`, or `200` without an error code. */
export function said(ex: { status: number; json?: unknown }): string {
  const code = errorCodeOf(ex.json);
  return `${ex.status}${code ? ` ${code}` : ""}`;
}

/** The answer is a success (2xx). */
export function succeeded(ex: { status: number }): boolean {
  return ex.status >= 200 && ex.status < 300;
}

/** The answer is on `/v1`. */
export function isV1(ex: { path: string }): boolean {
  return ex.path === "/v1" || ex.path.startsWith("/v1/") || ex.path.startsWith("/v1?");
}
