// The typed client of the Generation Hub public API. OAuth lives in its own entry point
// (`@generation-hub/api/oauth`), so callers who do not need it do not bundle it.
import type { MaybeOptionalInit } from "openapi-fetch";
import type { GenerationRecord, paths } from "../../generated/types.ts";
import { readStatuses, type StatusesOptions } from "./batch.ts";
import { createHubCore, type HubClientOptions, type HubCore, type HubResult, type InitArg } from "./client.ts";
import { EventStream, type EventsOptions } from "./events.ts";
import { paginate, type CollectionData, type CollectionPath, type ItemOf, type Paginator } from "./pagination.ts";
import { upload, type UploadBody, type UploadOptions, type UploadResult } from "./uploads.ts";
import { waitForGeneration, type WaitOptions } from "./wait.ts";

export interface HubClient extends HubCore {
  /** Items (iterate) or pages (`.pages()`) of a `{ data, next_cursor }` collection. */
  paginate<P extends CollectionPath, I extends MaybeOptionalInit<paths[P], "get">>(
    path: P,
    ...init: InitArg<I>
  ): Paginator<ItemOf<P>, HubResult<CollectionData<P>>>;
  /** Batch status read of any number of ids, in calls of at most 50. */
  statuses(ids: Iterable<string>, options?: StatusesOptions): Promise<GenerationRecord[]>;
  /** The status-change stream, resumed across reconnects. */
  events(options?: EventsOptions): EventStream;
  /** Resolves with the record once the generation is final (DONE or FAILED). */
  waitForGeneration(id: string, options?: WaitOptions): Promise<GenerationRecord>;
  /** Ticket, then one PUT; resolves with the `reference`. */
  upload(body: UploadBody, options: UploadOptions): Promise<UploadResult>;
}

export function createHubClient(options: HubClientOptions): HubClient {
  const core = createHubCore(options);
  return Object.assign(core, {
    paginate: ((path: CollectionPath, init?: object) => (paginate as (h: HubCore, p: string, i?: object) => unknown)(core, path, init)) as never,
    statuses: (ids: Iterable<string>, o?: StatusesOptions) => readStatuses(core, ids, o),
    events: (o?: EventsOptions) => new EventStream(core, o),
    waitForGeneration: (id: string, o?: WaitOptions) => waitForGeneration(core, id, o),
    upload: (body: UploadBody, o: UploadOptions) => upload(core, body, o),
  }) as HubClient;
}

export { createHubCore, HubResult, model3dType } from "./client.ts";
export { isKnownSubmitType, isModel3dSubmit, isSubmitOfType, type KnownSubmitType, type Model3dSubmitOf, type SubmitOfType } from "./submit-types.ts";
export type { HubClientOptions, HubCore, HubMethod, PathsWith, SubmitOptions, SuccessData, TokenProvider, InitArg } from "./client.ts";
export { HubAbortError, HubApiError, HubConnectionError, HubError, HubHttpError, HubStreamTerminatedError, HubTimeoutError } from "./errors.ts";
export { parseRateLimit, type RateLimit } from "./ratelimit.ts";
export { attemptsOf, createTransport, defaultReplaySafe, type CallOptions, type Credentials, type FetchLike, type RetryOptions, type TransportOptions } from "./retry.ts";
export { paginate, paginateWith, Paginator, type Collection, type CollectionData, type CollectionPath, type ItemOf } from "./pagination.ts";
export { readStatuses, type StatusesOptions } from "./batch.ts";
export { EventStream, streamEvents, type EventsOptions, type HubEvent, type ResetEvent, type StatusChangedEvent } from "./events.ts";
export { isFinal, waitForGeneration, type WaitOptions } from "./wait.ts";
export { upload, type UploadBody, type UploadOptions, type UploadResult } from "./uploads.ts";
export { BATCH_MAX_IDS, DEAD_CONNECTION_MS, HEARTBEAT_SECONDS } from "./limits.ts";
export type * from "../../generated/types.ts";
