// Batch status reads: any number of ids, split into calls of at most 50 (the contract
// refuses more with `invalid_limit` and never trims). Ids are de-duplicated, calls run
// one after another (each spends one request of the shared window), records come back
// in call order.
import type { GenerationRecord } from "../../generated/types.ts";
import type { HubCore } from "./client.ts";
import { BATCH_MAX_IDS } from "./limits.ts";

export interface StatusesOptions {
  signal?: AbortSignal;
  maxRetries?: number;
  timeout?: number;
}

export async function readStatuses(hub: HubCore, ids: Iterable<string>, options: StatusesOptions = {}): Promise<GenerationRecord[]> {
  const unique = [...new Set(ids)];
  const records: GenerationRecord[] = [];
  for (let i = 0; i < unique.length; i += BATCH_MAX_IDS) {
    const { data } = await hub.POST("/v1/generations/status", { ...options, body: { ids: unique.slice(i, i + BATCH_MAX_IDS) } });
    records.push(...data.data);
  }
  return records;
}
