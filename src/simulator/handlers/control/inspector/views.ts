// The request journal as the inspector and `control.requests()` read it: an entry's
// summary (the page's row), the whole exchange (the page's detail, with the curl line that
// sends it again), the refusal's reason in words with a link to the operation in the
// reference docs, and the filters of `GET /_sim/requests`. Everything here is rendered
// when read; the journal keeps it masked already (pipeline/journal.ts).
import { detailReasonMeanings, errorCodes } from "../../../../contract/tables.ts";
import { referenceOperations, REFERENCE_PAGE } from "../../../../docs/routes.ts";
import { ANSWERS_KEPT, type CredentialNote, type JournalEntry, type JournalMessage } from "../../../domain/journal.ts";
import { ISSUED_MASK } from "../../../domain/secrets.ts";
import { refuse, type Refusal } from "../../../domain/refusal.ts";
import { CONTROL_GUARD, SITE_GUARD } from "../../../pipeline/guard.ts";
import { ADAPTER_CHECKS, type AdapterCheck } from "../../../pipeline/journal.ts";
import { LADDER } from "../../../pipeline/ladder.ts";
import type { HubServices } from "../../../pipeline/services.ts";
import { isoTime } from "../../../state/util.ts";

/** Where the reference docs are served (the simulator's /docs/). */
export const DOCS_BASE = "/docs/";
/** The simulator guide's page on the docs site, and its sections a refusal outside the contract links to. */
const GUIDE = `${DOCS_BASE}guides/simulator.html`;
const CONTROL_SECTION = `${GUIDE}#control-interface-_sim`;
const SECURITY_SECTION = `${GUIDE}#security-of-the-control-interface`;
const FAULTS_SECTION = `${GUIDE}#faults`;
const SANDBOXES_SECTION = `${GUIDE}#which-hub-answers-a-request`;

let docsRoutes: Map<string, string> | undefined;

/** The operation's place in the reference docs (`/docs/reference.html#/<tag>/<operationId>`). */
export function operationDocs(operationId: string): string | null {
  docsRoutes ??= new Map(referenceOperations().map((o) => [o.operationId, `${DOCS_BASE}${REFERENCE_PAGE}${o.route}`]));
  return docsRoutes.get(operationId) ?? null;
}

/** Which part of the pipeline a rung or stage belongs to, by its name and the path. */
function whereOf(by: string, path: string): string {
  if (by in ADAPTER_CHECKS) return ADAPTER_CHECKS[by as AdapterCheck];
  if (by === "handler") return "the route's own checks";
  if (by === "fault") return "a fault injected on purpose (/_sim/faults, --faults)";
  const under = (prefix: string) => path === prefix.slice(0, -1) || path.startsWith(prefix);
  if (under("/_sim/") && CONTROL_GUARD.some((r) => r.name === by)) return `the control interface's guard, rung "${by}"`;
  if (under("/site/") && SITE_GUARD.some((r) => r.name === by)) return `the site forms' guard, rung "${by}"`;
  if (LADDER.some((r) => r.name === by)) return `the refusal ladder, rung "${by}"`;
  return by;
}

export interface ReasonView {
  /** The rung or stage that refused: a rung of the ladder or a guard, `handler`, `fault`, or a check of the server. */
  by: string | null;
  /** The whole reason in one sentence. */
  text: string;
  code_meaning: string | null;
  message: string | null;
  details: { field: string | null; reason: string; reason_meaning: string | null; message: string }[];
  /** The operation in the reference docs (or the simulator guide's section for routes outside the contract). */
  docs: string | null;
}

/** Why the answer is not a success, in words; null for a success. */
export function reasonOf(e: JournalEntry): ReasonView | null {
  if (e.status === 0) {
    return { by: "fault", text: `No answer: the connection was dropped by ${e.fault ? `the fault ${e.fault}` : "a fault"}.`, code_meaning: null, message: null, details: [], docs: FAULTS_SECTION };
  }
  if (e.status < 400) return null;
  const code = e.code;
  const meaning = code ? errorCodes.get(code)?.meaning ?? null : null;
  const refusal = e.refusal;
  const message = refusal?.message ?? null;
  const details = (refusal?.details ?? []).map((d) => ({ field: d.field ?? null, reason: d.reason, reason_meaning: detailReasonMeanings.get(d.reason) || null, message: d.message }));
  const where = refusal ? whereOf(refusal.by, e.url.split("?")[0]!) : "the route";
  const parts = [`${e.status}${code ? ` ${code}` : ""}, refused by ${where}${e.operation && refusal?.by === "handler" ? ` (${e.operation})` : ""}.`];
  if (meaning) parts.push(meaning);
  if (message && message !== meaning) parts.push(message);
  for (const d of details) parts.push(`${d.field ?? "(request)"}: ${d.reason}${d.reason_meaning ? ` (${d.reason_meaning.replace(/\.$/, "")})` : ""}, ${d.message}.`);
  if (e.fault && refusal?.by !== "fault") parts.push(`A fault acted on it too: ${e.fault}.`);
  const docs = refusal?.by === "sandbox" ? SANDBOXES_SECTION : e.operation ? operationDocs(e.operation) : e.url.startsWith("/_sim") ? (refusal && refusal.by !== "handler" ? SECURITY_SECTION : CONTROL_SECTION) : refusal && refusal.by in ADAPTER_CHECKS ? SECURITY_SECTION : null;
  return { by: refusal?.by ?? null, text: parts.join(" "), code_meaning: meaning, message, details, docs };
}

interface CredentialView {
  channel: CredentialNote["channel"];
  id: string | null;
  account_id: string | null;
  /** What the simulator knows the credential as: a key's purpose, an OAuth client's name, a site session. */
  label: string | null;
  note: string | null;
}

/** Names of credentials by id, read from the state once per answer. */
export class CredentialNames {
  #keys: Map<string, string> | undefined;
  constructor(private readonly hub: HubServices) {}

  view(c: CredentialNote | null): CredentialView | null {
    if (!c) return null;
    return { channel: c.channel, id: c.id, account_id: c.accountId, label: c.id === null ? null : this.label(c), note: c.note };
  }

  label(c: CredentialNote): string | null {
    const state = this.hub.state;
    switch (c.channel) {
      case "api_key":
        this.#keys ??= new Map([...state.keys.values()].map((k) => [k.id, k.purpose ?? ""]));
        return this.#keys.get(c.id!) || null;
      case "oauth": {
        const grant = state.oauth.grants.get(c.id!);
        const client = grant && state.oauth.clients.get(grant.client_id);
        return grant ? `OAuth grant of ${client?.client_name ?? grant.client_id}` : null;
      }
      case "session":
        return "site session";
      default:
        return null;
    }
  }

  /** Whether the credential answers to `wanted`: its id, its account, or a part of its label. */
  matches(c: CredentialNote | null, wanted: string): boolean {
    if (!c) return wanted === "none";
    const w = wanted.toLowerCase();
    return c.id === wanted || c.accountId === wanted || (c.note ?? "").toLowerCase().includes(w) || (this.label(c) ?? "").toLowerCase().includes(w);
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** An entry as a row: what the page lists and `control.requests()` answers. */
export function summaryOf(e: JournalEntry, names: CredentialNames) {
  const s = e.stream;
  return {
    seq: e.seq,
    request_id: e.requestId,
    time: isoTime(e.at),
    clock_time: isoTime(e.clockAt),
    method: e.method,
    path: e.url,
    route: e.route,
    operation: e.operation,
    status: e.status,
    error_code: e.code,
    credential: names.view(e.credential),
    duration_ms: round(e.durationMs),
    reason: reasonOf(e),
    fault: e.fault,
    stream: s && { open: s.open, frames: s.frames, heartbeats: s.heartbeats, end: s.end, ended_at: s.endedAt === null ? null : isoTime(s.endedAt) },
  };
}

/** A row of the request journal (`GET /_sim/requests`, `control.requests()`). */
export type RequestSummary = ReturnType<typeof summaryOf>;


/** An answer the journal no longer keeps. */
const AGED_ANSWER = { headers: null, body: null, body_note: `no longer kept: the journal keeps the answers of its ${ANSWERS_KEPT} most recent requests`, size: null, truncated: false };

function messageView(m: JournalMessage) {
  const text = m.body;
  return {
    headers: m.headers,
    body: text,
    /** What the body is when it is not shown: none, or bytes of another type. */
    body_note: text !== null ? (m.truncated ? `the first ${text.length} of ${m.size}` : null) : m.size > 0 ? `${m.size} bytes of ${m.headers["content-type"] ?? "an unnamed type"}, not shown` : null,
    size: m.size,
    truncated: m.truncated,
  };
}

/** The whole exchange: the row, both sides masked, the frames kept of a stream, and a curl line that sends it again. */
export function exchangeOf(e: JournalEntry, names: CredentialNames) {
  return {
    ...summaryOf(e, names),
    request: messageView(e.request),
    response: e.response ? messageView(e.response) : AGED_ANSWER,
    frames: e.stream ? e.stream.recent.map((f) => ({ time: isoTime(f.at), text: f.text })) : null,
    curl: curlOf(e),
  };
}

/** One whole exchange of the request journal (`GET /_sim/requests/{seq}`, `control.exchange(seq)`). */
export type RequestExchange = ReturnType<typeof exchangeOf>;

// Headers a curl line leaves to curl (or that only a browser sends).
const LEFT_TO_CURL = new Set(["host", "content-length", "connection", "accept-encoding", "user-agent", "x-request-id", "referer", "cache-control", "pragma", "priority", "dnt", "upgrade-insecure-requests", "keep-alive", "transfer-encoding"]);

/** `text` as one shell word in single quotes. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The header name as usually written (`content-type` as `Content-Type`). */
function headerName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * A curl line that sends the request again. A credential is a shell variable, never its
 * value: `$HUB_KEY` (an API key), `$HUB_TOKEN` (an OAuth access token), `$HUB_COOKIE` (the
 * session's Cookie header), `$HUB_SECRET_<n>` for one in the path or body; the line's
 * comments say which is which. Other masked values show as `…`: put the value there.
 */
export function curlOf(e: JournalEntry): string {
  const notes: string[] = [];
  const secrets: string[] = [];
  /** A masked credential in a quoted word becomes a variable spliced into it. */
  const word = (text: string) =>
    quoted(text).replace(ISSUED_MASK, (_, name: string) => {
      let n = secrets.indexOf(name) + 1;
      if (n === 0) {
        secrets.push(name);
        n = secrets.length;
        notes.push(`# HUB_SECRET_${n}: the secret of ${name}`);
      }
      return `'"$HUB_SECRET_${n}"'`;
    });
  const parts = ["curl"];
  if (e.stream) parts.push("-N");
  if (e.method !== "GET") parts.push("-X", e.method);
  parts.push(word(e.baseUrl + e.url));
  for (const [name, value] of Object.entries(e.request.headers)) {
    if (LEFT_TO_CURL.has(name) || name.startsWith("sec-")) continue;
    if (name === "accept" && value === "*/*") continue;
    if (name === "authorization") {
      const variable = e.credential?.channel === "oauth" ? "HUB_TOKEN" : "HUB_KEY";
      const scheme = value.split(/\s/)[0] ?? "Bearer";
      notes.push(`# ${variable}: ${e.credential?.id ? `the secret of ${e.credential.channel === "oauth" ? `a token of grant ${e.credential.id}` : `key ${e.credential.id}`} (GET /_sim/keys lists keys)` : "the credential the request carried"}`);
      parts.push("-H", `"Authorization: ${scheme} $${variable}"`);
      continue;
    }
    if (name === "cookie") {
      notes.push(`# HUB_COOKIE: the Cookie header of ${e.credential?.channel === "session" && e.credential.id ? `session ${e.credential.id}` : "the request"} (POST /_sim/sessions starts one)`);
      parts.push("-H", `"Cookie: $HUB_COOKIE"`);
      continue;
    }
    parts.push("-H", word(`${headerName(name)}: ${value}`));
  }
  const body = e.request.body;
  if (body !== null) parts.push("--data-raw", word(body));
  else if (e.request.size > 0) {
    parts.push("--data-binary", "@file");
    notes.push(`# file: the ${e.request.size} bytes the request sent (${e.request.headers["content-type"] ?? "no type"})`);
  }
  if (e.request.truncated) notes.push(`# the body is cut at the journal's limit: only its first part is here`);
  return [...notes, parts.join(" ")].join("\n");
}

export interface RequestFilter {
  /** Status classes (`2xx`, `4xx`) or statuses (`404`); `0` for no answer. */
  status: ((status: number) => boolean)[];
  /** The route (`submitGeneration`, `POST /_sim/clock/advance`) or a path prefix (`/v1/library`). */
  route: string | undefined;
  /** A credential's id, its account, or a part of its label; `none` for requests without one. */
  credential: string | undefined;
  /** Text anywhere in the row, the request or the answer. */
  text: string | undefined;
  requestId: string | undefined;
  /** Only entries after this journal number. */
  after: number;
  limit: number;
}

export const DEFAULT_LIMIT = 100;
/** The most rows one answer lists (a journal may keep more). */
export const MAX_LIMIT = 10_000;

/** The filter a query asks for, or the refusal naming the parameter at fault. */
export function filterOf(query: URLSearchParams): RequestFilter | Refusal {
  const invalid = (field: string, message: string, reason = "invalid") => refuse("invalid_request", { details: [{ field, reason, message }] });
  const status: RequestFilter["status"] = [];
  for (const s of (query.get("status") ?? "").split(",").map((x) => x.trim().toLowerCase()).filter(Boolean)) {
    const cls = /^([1-5])xx$/.exec(s);
    if (cls) status.push((n) => Math.floor(n / 100) === Number(cls[1]));
    else if (/^\d{1,3}$/.test(s)) status.push((n) => n === Number(s));
    else return invalid("status", `status is a class (2xx, 4xx, ...) or a status (404), comma-separated; not ${JSON.stringify(s.slice(0, 50))}`, "bad_format");
  }
  const number = (name: string, fallback: number, min: number, max: number): number | Refusal => {
    const raw = query.get(name);
    if (raw === null || raw === "") return fallback;
    const n = Number(raw);
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : invalid(name, `${name} is a whole number from ${min} to ${max}`, "out_of_range");
  };
  const limit = number("limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
  if (typeof limit !== "number") return limit;
  const after = number("after", 0, 0, Number.MAX_SAFE_INTEGER);
  if (typeof after !== "number") return after;
  const given = (name: string) => query.get(name)?.trim() || undefined;
  return { status, route: given("route"), credential: given("credential"), text: given("q")?.toLowerCase(), requestId: given("request_id"), after, limit };
}

/** Whether the entry passes the filter. */
export function passes(e: JournalEntry, f: RequestFilter, names: CredentialNames): boolean {
  if (f.status.length > 0 && !f.status.some((ok) => ok(e.status))) return false;
  if (f.route !== undefined && e.route !== f.route && e.operation !== f.route && !(f.route.startsWith("/") && e.url.startsWith(f.route))) return false;
  if (f.requestId !== undefined && e.requestId !== f.requestId) return false;
  if (f.credential !== undefined && !names.matches(e.credential, f.credential)) return false;
  if (f.text !== undefined) {
    const row = [e.method, e.url, e.route, String(e.status), e.code ?? "", e.requestId, e.credential?.id ?? "", e.credential?.note ?? "", reasonOf(e)?.text ?? "", e.request.body ?? "", e.response?.body ?? ""];
    if (!row.some((part) => part.toLowerCase().includes(f.text!))) return false;
  }
  return true;
}
