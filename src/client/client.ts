// The client: openapi-fetch over the transport (retry.ts), plus the calls every caller
// of this API needs. `api` is the bare openapi-fetch client (answers `{ data, error,
// response }`); `GET`/`POST`/... answer a `HubResult` and throw `HubApiError` and friends.
import createClient, { type Client, type MaybeOptionalInit } from "openapi-fetch";
import type { GenerationRecord, Model3dSubmit, SubmitRequest, paths } from "../../generated/types.ts";
import { errorFromAnswer, HubError } from "./errors.ts";
import { randomId } from "./ids.ts";
import { parseRateLimit, type RateLimit } from "./ratelimit.ts";
import { createTransport, type CallOptions, type Credentials, type FetchLike, type RetryOptions } from "./retry.ts";
import { isKnownSubmitType } from "./submit-types.ts";

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";

/** Paths of the contract that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** Per-call options: openapi-fetch's init plus the transport's `maxRetries` and `timeout`. */
export type InitArg<I> = RequiredKeys<I> extends never ? [init?: I & Omit<CallOptions, "hubBare">] : [init: I & Omit<CallOptions, "hubBare">];

type Operation<P extends keyof paths, M extends HttpMethod> = paths[P][M];
type OkStatus = 200 | 201 | 202 | 203 | 204 | 206 | "2XX";
type JsonOf<R> = R extends { content: infer C } ? ("application/json" extends keyof C ? C["application/json"] : C extends Record<string, infer V> ? V : undefined) : undefined;
/**
 * The success body of an operation as the contract's named types give it (the JSON of its
 * 2xx answers); `undefined` is added where the operation can answer 304.
 */
export type SuccessData<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & OkStatus]: JsonOf<R[S]> }[keyof R & OkStatus] | (304 extends keyof R ? undefined : never)
  : never;

export type HubMethod<M extends HttpMethod> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitArg<I>
) => Promise<HubResult<SuccessData<Operation<P, M>>>>;

/** A success answer: the body, the server's request id and the rate-limit state. */
export class HubResult<T> {
  declare readonly data: T;
  declare readonly response: Response;
  constructor(data: T, response: Response) {
    this.data = data;
    this.response = response;
  }
  /** HTTP status (202 for a submit, 304 for an unchanged catalog, ...). */
  get status(): number {
    return this.response.status;
  }
  /** The server's request id (`X-Request-Id` of the answer, which every `/v1` answer carries; it repeats the one sent). */
  get requestId(): string {
    return this.response.headers.get("x-request-id") ?? "";
  }
  /** `RateLimit` / `RateLimit-Policy`, parsed on read (nothing is parsed unless asked); undefined when absent. */
  get rateLimit(): RateLimit | undefined {
    return parseRateLimit(this.response.headers);
  }
}

/** Gives the bearer credential of an OAuth client (or any token source) per request. */
export type TokenProvider = Credentials;

export interface HubClientOptions extends RetryOptions {
  /** Base address, e.g. `https://hub.example` (API routes start with `/v1`). */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer <key>` (it wins over `token`). */
  apiKey?: string;
  /** A token provider (for example `TokenStore.provider()` of the OAuth entry point), asked on every attempt and every stream reconnect. */
  token?: TokenProvider;
  /** The fetch to use; by default `globalThis.fetch`, looked up on every call. */
  fetch?: FetchLike;
  /** Headers sent on every request (for example `Accept-Language: ru`). */
  headers?: Record<string, string>;
  /** Request credentials mode, for the site's own pages using the session cookie. */
  credentials?: RequestCredentials;
  /** Generates `X-Request-Id` values (default: a random UUID per attempt). */
  requestId?: () => string;
}

export interface SubmitOptions extends Omit<CallOptions, "hubBare"> {
  /** The key of this logical submit; generated once per call when omitted and kept on every retry. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface HubCore {
  /** The bare openapi-fetch client over the same transport: answers `{ data, error, response }`, never throws for HTTP errors. */
  readonly api: Client<paths>;
  readonly baseUrl: string;
  /** The transport with retries and credentials (for routes outside the typed paths, such as an upload's `proxy_path`). */
  readonly fetch: FetchLike;
  readonly GET: HubMethod<"get">;
  readonly POST: HubMethod<"post">;
  readonly PUT: HubMethod<"put">;
  readonly PATCH: HubMethod<"patch">;
  readonly DELETE: HubMethod<"delete">;
  /** Submits a generation with one `Idempotency-Key` for all its attempts. */
  submit(body: SubmitRequest, options?: SubmitOptions): Promise<HubResult<GenerationRecord> & { idempotencyKey: string }>;
}

export function createHubCore(options: HubClientOptions): HubCore {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const apiKey = options.apiKey;
  const credentials: Credentials | undefined = apiKey !== undefined ? () => apiKey : options.token;
  const transport = createTransport({ ...options, origin: new URL(baseUrl).origin, credentials });
  const api = createClient<paths>({
    baseUrl,
    fetch: transport,
    headers: options.headers,
    credentials: options.credentials,
  });
  type Answer = Promise<{ data?: unknown; error?: unknown; response: Response }>;
  /** `api[name]` in the throwing form: a HubResult, or a HubApiError for an error answer. */
  const method = (name: "GET" | "POST" | "PUT" | "PATCH" | "DELETE") => {
    const call = api[name] as (url: string, init?: object) => Answer;
    return (async (url: string, init?: object) => {
      const { data, error, response } = await call(url, init);
      if (!response.ok && response.status !== 304) throw errorFromAnswer(response, error);
      return new HubResult(data, response);
    }) as never;
  };

  const core: HubCore = {
    api,
    baseUrl,
    fetch: transport,
    GET: method("GET"),
    POST: method("POST"),
    PUT: method("PUT"),
    PATCH: method("PATCH"),
    DELETE: method("DELETE"),
    async submit(body, submitOptions = {}) {
      const { idempotencyKey = randomId(), ...call } = submitOptions;
      const result = await core.POST("/v1/generations", { ...call, body, params: { header: { "Idempotency-Key": idempotencyKey } } });
      return Object.assign(result as HubResult<GenerationRecord>, { idempotencyKey });
    },
  };
  return core;
}

/**
 * Marks the `type` of a 3D submit. The seed does not show its value, so the types carry
 * a placeholder literal; this helper gives the real value that type. Known variants'
 * values (`video`, `image`, `upscale`, `text`) are refused: they are not 3D.
 */
export function model3dType(value: string): Model3dSubmit["type"] {
  if (isKnownSubmitType(value)) throw new HubError(`"${value}" is a known submit type, not the 3D variant's`);
  return value as Model3dSubmit["type"];
}
