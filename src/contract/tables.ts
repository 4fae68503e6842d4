// The seed's tables as the contract encodes them: error codes with their status and
// meaning, detail reasons, scopes, and the numbers the event stream runs on.
import { deref, operationById, schema, type JsonObject } from "./document.ts";

export interface ErrorCodeRow {
  code: string;
  status: number;
  meaning: string;
}

export const errorCodes: ReadonlyMap<string, ErrorCodeRow> = new Map(
  (schema("ErrorCode").anyOf as JsonObject[]).map((row) => [
    String(row.const),
    { code: String(row.const), status: Number(row["x-http-status"]), meaning: String(row.description) },
  ]),
);

export function statusOf(code: string): number {
  const row = errorCodes.get(code);
  if (!row) throw new Error(`Unknown error code ${code}`);
  return row.status;
}

export const detailReasons: readonly string[] = (schema("DetailReason").anyOf as JsonObject[]).map((r) => String(r.const));

/** What each detail reason means, as the contract describes it (the seed's "Reasons in details"). */
export const detailReasonMeanings: ReadonlyMap<string, string> = new Map(
  (schema("DetailReason").anyOf as JsonObject[]).map((r) => [String(r.const), String(r.description ?? "")]),
);

export const scopes: readonly string[] = (schema("Scope").enum as string[]).slice();

export const generationStatuses = (schema("GenerationStatus").anyOf as JsonObject[]).map((r) => ({
  status: String(r.const),
  inProgress: r["x-in-progress"] === true,
}));

/** Statuses where work continues; DONE and FAILED are not among them. */
export const inProgressStatuses: ReadonlySet<string> = new Set(
  generationStatuses.filter((s) => s.inProgress).map((s) => s.status),
);

/** The numbers of the event stream (heartbeat, retention, streams per key). */
export function streamLimits(): { heartbeatSeconds: number; retentionDays: number; maxStreamsPerKey: number } {
  const media = deref((operationById("streamGenerationEvents").op.responses as JsonObject)["200"])
    .content as JsonObject;
  const sse = media["text/event-stream"] as JsonObject;
  return {
    heartbeatSeconds: Number(sse["x-sse-heartbeat-seconds"]),
    retentionDays: Number(sse["x-sse-retention-days"]),
    maxStreamsPerKey: Number(sse["x-sse-max-streams-per-key"]),
  };
}

/** `maximum` of a property of a schema component (a bound that lives in the contract). */
export function bound(schemaName: string, property: string, keyword: "maximum" | "minimum" | "maxItems" | "maxLength" | "default"): number {
  const s = deref(schema(schemaName));
  const prop = deref((s.properties as JsonObject)[property]);
  const value = prop[keyword];
  if (typeof value !== "number") throw new Error(`${schemaName}.${property} has no ${keyword}`);
  return value;
}
