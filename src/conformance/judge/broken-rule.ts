// Which seed rule a departure from the contract breaks (`ruleBroken`). `checkAnswer` says
// where an answer departs (a header, the status, the media type, a path in the body); the
// contract location names the rule (the registry's `contract` column), so a server that
// breaks one thing fails one rule. Where a location maps to no single rule, the rule the
// request was exercising is blamed. A route the server lacks is a departure of its own
// (`isUnrouted`, EP-4).
import { errorCodes, statusOf, type Operation, type Violation } from "../../contract/index.ts";
import { errorCodeOf, operationLabel } from "../target/exchange.ts";

/** The rule a 2xx/3xx status outside the contract breaks, by operation. */
const SUCCESS_STATUS_RULE: Readonly<Record<string, string>> = {
  submitGeneration: "SUB-1",
  reportGeneration: "REP-1",
  createUpload: "UPL-6",
  completeUpload: "UPL-8",
  streamGenerationEvents: "EVT-3",
  listModels: "CAT-4",
  registerClient: "OAUTH-6",
  exchangeToken: "OAUTH-14",
  revokeToken: "OAUTH-17",
  authorize: "OAUTH-10",
  readBillingSubscription: "BILL-3",
  listLibraryFolders: "PAGE-6",
};

/** The rule a success body that departs from its schema breaks, by operation. */
const BODY_RULE: Readonly<Record<string, string>> = {
  readWhoami: "ACC-2",
  readAccount: "ACC-1",
  listModels: "CAT-1",
  searchKnowledge: "CAT-3",
  readKnowledgeArticle: "CAT-3",
  estimatePrice: "PRICE-1",
  listLibraryAssets: "LIB-1",
  listLibraryFolders: "LIB-2",
  createUpload: "UPL-1",
  completeUpload: "UPL-8",
  listCreditTransactions: "BILL-1",
  readBillingSubscription: "BILL-2",
  readSupportThread: "SUP-1",
  sendSupportMessage: "SUP-1",
  reportGeneration: "REP-1",
  readAuthorizationServerMetadata: "OAUTH-2",
  readProtectedResourceMetadata: "OAUTH-2",
  registerClient: "OAUTH-6",
  exchangeToken: "OAUTH-14",
  listGenerations: "GEN-1",
  readGeneration: "GEN-1",
  readGenerationStatuses: "GEN-1",
  submitGeneration: "GEN-1",
};

/** Operations whose 400 and 401 answer the OAuth error form (not the envelope): their rule. */
const OAUTH_FORM_RULE: Readonly<Record<string, string>> = {
  exchangeToken: "OAUTH-16",
  revokeToken: "OAUTH-17",
  registerClient: "OAUTH-6",
};

/** Fields of a success body named by a rule of their own, by operation. */
const FIELD_RULE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // No client secret is ever issued.
  registerClient: { client_secret: "OAUTH-3", client_secret_expires_at: "OAUTH-3" },
};

/** Collections whose `next_cursor` is always null: the rule that says so. */
const UNPAGED: Readonly<Record<string, string>> = {
  searchKnowledge: "CAT-5",
  listLibraryFolders: "PAGE-6",
  readGenerationStatuses: "BATCH-1",
  readSupportThread: "SUP-2",
  listModels: "W-4",
};

export const PAGED_OPS: ReadonlySet<string> = new Set(["listGenerations", "listCreditTransactions", "listLibraryAssets"]);
const PAGED = PAGED_OPS;
export const RECORD_OPS: ReadonlySet<string> = new Set(["listGenerations", "readGeneration", "readGenerationStatuses", "submitGeneration"]);

/** Fields of the generation record named by a rule of their own. */
const RECORD_FIELD_RULE: Readonly<Record<string, string>> = {
  id: "GEN-2",
  type: "GEN-3",
  status: "GEN-4",
  output_urls: "GEN-5",
  refunded: "GEN-6",
  error: "GEN-7",
};

const ENVELOPE_FIELD_RULE: Readonly<Record<string, string>> = {
  code: "ENV-1",
  message: "ENV-2",
  user_message: "ENV-3",
  request_id: "ENV-4",
  details: "ENV-5",
};

/** `body/data/0 must have required property 'status'` -> ["data","0","status"]. */
export function bodyPath(message: string): string[] | undefined {
  const m = /^body(\S*) (.*)$/s.exec(message);
  if (!m) return undefined;
  const path = m[1]!.split("/").filter(Boolean);
  const missing = /required property '([^']+)'/.exec(m[2]!);
  if (missing) path.push(missing[1]!);
  return path;
}

export function ruleBroken(operation: Operation, status: number, violation: Violation, body: unknown, context: string): string {
  const msg = violation.message;
  const op = operation.operationId;

  if (/^status \d+ is not declared/.test(msg)) {
    const code = errorCodeOf(body);
    if (code && errorCodes.has(code) && statusOf(code) !== status) return "ERR-2";
    if (status < 400) return SUCCESS_STATUS_RULE[op] ?? context;
    return PAGED.has(op) ? "PAGE-5" : context;
  }

  const header = /^header ([^ :]+)/.exec(msg)?.[1]?.toLowerCase();
  if (header) {
    switch (header) {
      case "x-request-id":
        return "EP-2";
      case "cache-control":
        return op === "listModels" && (status === 200 || status === 304) ? "CAT-4" : "W-13";
      case "vary":
        return "W-13";
      case "etag":
        return "CAT-4";
      case "ratelimit":
      case "ratelimit-policy":
        return /is required$/.test(msg) ? "EP-3" : "LIM-2";
      case "retry-after":
        return "ERR-3";
      case "location":
        return op === "authorize" ? "OAUTH-10" : "SUB-1";
      case "www-authenticate":
        return "AUTH-8";
      default:
        return context;
    }
  }

  if (/^content type /.test(msg) || msg === "the body is not JSON") {
    if (op === "streamGenerationEvents" && status === 200) return "EVT-3";
    if (op === "downloadGenerationOutput" && status === 200) return "GEN-5";
    return "W-3";
  }
  if (msg === "the answer has a body but none is declared") return status === 304 ? "CAT-4" : context;

  const path = bodyPath(msg);
  if (!path) return context;
  if ((status === 400 || status === 401) && OAUTH_FORM_RULE[op]) return OAUTH_FORM_RULE[op];
  if (status >= 400) return envelopeRule(path);
  const field = path[0] !== undefined ? FIELD_RULE[op]?.[path[0]] : undefined;
  if (field) return field;
  // A collection without one of its two fields breaks the collection envelope itself.
  if (/^body required property|^body must have required property '(data|next_cursor)'/.test(msg) && (isCollection(op))) return "W-4";
  if (RECORD_OPS.has(op)) {
    // Records sit at the root (read, submit) or under data/<n> (list, batch).
    let rest = path;
    if (op === "listGenerations" || op === "readGenerationStatuses") {
      if (path.length === 0 || path[0] !== "data") return path[0] === "next_cursor" ? (op === "listGenerations" ? "PAGE-1" : "BATCH-1") : "W-4";
      if (path.length < 2) return "W-4";
      rest = path.slice(2);
    }
    const field = rest[0];
    if (field === "error" && rest[1] === "code") return "ERR-1";
    return (field && RECORD_FIELD_RULE[field]) ?? "GEN-1";
  }
  if (path[0] === "next_cursor") return PAGED.has(op) ? "PAGE-1" : (UNPAGED[op] ?? "W-4");
  if (path.length === 0 || (path[0] === "data" && path.length === 1)) {
    if (PAGED.has(op) || op in UNPAGED) return "W-4";
  }
  return BODY_RULE[op] ?? context;
}

/** The rule a departure at `path` of an error envelope breaks. */
export function envelopeRule(path: readonly string[]): string {
  if (path[0] !== "error") return "W-5";
  const field = path[1];
  if (field === "details" && path[3] === "reason") return "ERR-4";
  return (field && ENVELOPE_FIELD_RULE[field]) ?? "W-5";
}

/** The rule of an operation's OAuth error form (the token, revoke and register routes). */
export function oauthFormRule(operationId: string | undefined): string | undefined {
  return operationId === undefined ? undefined : OAUTH_FORM_RULE[operationId];
}

/** The rule whose schema a success body of this operation demonstrates. */
export function bodyRuleOf(operationId: string): string | undefined {
  return BODY_RULE[operationId];
}

export function isCollection(operationId: string): boolean {
  return PAGED.has(operationId) || operationId in UNPAGED;
}

/**
 * The server does not have the route: a 405, or a 404 where the contract names no object
 * to miss (the operation declares no 404).
 */
export function isUnrouted(operation: Operation, status: number): boolean {
  return status === 405 || (status === 404 && !(operation.op.responses as Record<string, unknown>)["404"]);
}

/** A route of the summary table the server does not serve (404 or 405 where no object is addressed). */
export function notRouted(operation: Operation, answer: { status: number; json: unknown; headers: Headers }): string {
  const code = errorCodeOf(answer.json);
  const what = code ?? (answer.headers.get("content-type") ?? "no content type").split(";")[0];
  return `${operationLabel(operation)} is not routed: ${answer.status} ${what}`;
}
