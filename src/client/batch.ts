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

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function readStatuses(hub: HubCore, ids: Iterable<string>, options: StatusesOptions = {}): Promise<GenerationRecord[]> {
  const unique = [...new Set(ids)];
  const records: GenerationRecord[] = [];
  for (const part of chunk(unique, BATCH_MAX_IDS)) {
    const { data } = await hub.POST("/v1/generations/status", { ...options, body: { ids: part } });
    records.push(...data.data);
  }
  return records;
}
