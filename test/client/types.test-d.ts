// Type tests of the client (expectTypeOf and @ts-expect-error). They are checked by the
// compiler, never run: `tsc -p tsconfig.json` (test/typecheck.test.ts, in `npm test`) and
// test/client/typecheck.test.ts compile this file and fail on any error, including an
// `@ts-expect-error` that no longer has an error under it.
import { expectTypeOf } from "vitest";
import {
  createHubClient,
  HubApiError,
  isModel3dSubmit,
  isSubmitOfType,
  model3dType,
  type KnownSubmitType,
  type ErrorCode,
  type GenerationPage,
  type GenerationRecord,
  type HubEvent,
  type HubResult,
  type ImageSubmit,
  type ModelList,
  type Model3dSubmit,
  type SubmitRequest,
  type TextSubmit,
  type UpscaleSubmit,
  type VideoSubmit,
} from "../../src/client/index.ts";
import type { AssetRecord, CreditTransaction, ErrorDetail, GenerationStatusChanged, StreamReset } from "../../generated/types.ts";

declare const hub: ReturnType<typeof createHubClient>;

// --- Narrowing: a switch on a submit body's `type` narrows every variant. -------------
export function narrowing(body: SubmitRequest) {
  switch (body.type) {
    case "video":
      expectTypeOf(body).toEqualTypeOf<VideoSubmit>();
      expectTypeOf(body.duration).toEqualTypeOf<number | undefined>();
      break;
    case "image":
      expectTypeOf(body).toEqualTypeOf<ImageSubmit>();
      // `seed` is a string for images (an integer for video).
      expectTypeOf(body.seed).toEqualTypeOf<string | undefined>();
      break;
    case "upscale":
      expectTypeOf(body).toEqualTypeOf<UpscaleSubmit>();
      break;
    case "text":
      expectTypeOf(body).toEqualTypeOf<TextSubmit>();
      break;
    default:
      expectTypeOf(body).toEqualTypeOf<Model3dSubmit>();
  }
}

// --- Guards: narrowing on `type` for any generator's submit union. ---------------------
// Other generators type the 3D variant's `type` as `string` (its value is not shown), so
// `===` cannot narrow their union; the guards pick the member by its literal.
type OtherVideo = { type: "video"; duration?: number };
type Other3d = { type: string; format?: string };
type OtherText = { type: "text"; [key: string]: unknown };
type OtherSubmit = OtherVideo | Other3d | OtherText;
export function guards(body: OtherSubmit, ours: SubmitRequest) {
  if (body.type === "video") {
    // @ts-expect-error the 3D variant stays in: its `type` may be any string
    void body.duration;
  }
  if (isSubmitOfType(body, "video")) expectTypeOf(body).toEqualTypeOf<OtherVideo>();
  else if (isSubmitOfType(body, "text")) expectTypeOf(body).toEqualTypeOf<OtherText>();
  else expectTypeOf(body).toEqualTypeOf<Other3d>();
  if (isModel3dSubmit(body)) expectTypeOf(body).toEqualTypeOf<Other3d>();
  if (isSubmitOfType(ours, "upscale")) expectTypeOf(ours).toEqualTypeOf<UpscaleSubmit>();
  if (isModel3dSubmit(ours)) expectTypeOf(ours).toEqualTypeOf<Model3dSubmit>();
  // @ts-expect-error only a known type narrows (the 3D value is not shown)
  isSubmitOfType(body, "mesh");
}
// swagger-typescript-api types the 3D variant's `type` as `any`: it is still not "video".
type AnyType3d = { type: any; format?: string };
export function guardsWithAny(body: OtherVideo | AnyType3d | OtherText) {
  if (isSubmitOfType(body, "video")) expectTypeOf(body).toEqualTypeOf<OtherVideo>();
  if (isSubmitOfType(body, "text")) expectTypeOf(body).toEqualTypeOf<OtherText>();
  if (isModel3dSubmit(body)) expectTypeOf(body).toEqualTypeOf<AnyType3d>();
}
expectTypeOf<KnownSubmitType>().toEqualTypeOf<Exclude<SubmitRequest["type"], Model3dSubmit["type"]>>();

// Defaults do not make request fields required: a video needs only `type` and `model`.
export const minimalVideo: VideoSubmit = { type: "video", model: "m" };
// @ts-expect-error `model` is required for video
export const noModel: VideoSubmit = { type: "video" };
// @ts-expect-error unknown fields are refused (closed request bodies)
export const extraField: VideoSubmit = { type: "video", model: "m", colour: "red" };
// The 3D variant's type is marked with the helper.
export const threeD: SubmitRequest = { type: model3dType("model3d"), format: "GLB" };
expectTypeOf(model3dType).returns.toEqualTypeOf<Model3dSubmit["type"]>();

// --- Required headers: the raw calls need `Idempotency-Key`; submit() provides it. ----
export async function headers() {
  // @ts-expect-error Idempotency-Key is a required header of POST /v1/generations
  await hub.api.POST("/v1/generations", { body: minimalVideo });
  // @ts-expect-error the same for the throwing call
  await hub.POST("/v1/generations", { body: minimalVideo });
  await hub.POST("/v1/generations", { body: minimalVideo, params: { header: { "Idempotency-Key": "k" } } });
  const submitted = await hub.submit(minimalVideo);
  expectTypeOf(submitted.data).toEqualTypeOf<GenerationRecord>();
  expectTypeOf(submitted.idempotencyKey).toBeString();
  expectTypeOf(submitted.requestId).toBeString();
  // @ts-expect-error path parameters are required
  await hub.GET("/v1/generations/{id}");
  // @ts-expect-error a path without a GET does not type-check
  await hub.GET("/v1/generations/status", {});
}

// --- Results and errors --------------------------------------------------------------
export async function results() {
  const one = await hub.GET("/v1/generations/{id}", { params: { path: { id: "g" } } });
  expectTypeOf(one).toEqualTypeOf<HubResult<GenerationRecord>>();
  expectTypeOf(one.data.status).toEqualTypeOf<"QUEUED" | "PENDING" | "RUNNING" | "MODERATION_PENDING" | "DONE" | "FAILED">();
  // A FAILED generation is a record: its reason is typed, not an error code.
  // The failure is an open record too: fields the seed does not list may come.
  expectTypeOf(one.data.error).toEqualTypeOf<({ reason: "provider_error" | "moderation_block" | "timeout" | "no_content" | "invalid_input" | "unknown"; code?: never } & { [key: string]: unknown }) | undefined>();
  // The catalog can answer 304: its data may be undefined.
  const models = await hub.GET("/v1/models");
  expectTypeOf(models.data).toEqualTypeOf<ModelList | undefined>();
  // The bare client answers { data, error, response } and never throws for HTTP errors.
  const raw = await hub.api.GET("/v1/generations/{id}", { params: { path: { id: "g" } } });
  if (raw.error) expectTypeOf(raw.error.error.code).toEqualTypeOf<ErrorCode>();
}

export function errors(e: unknown) {
  if (e instanceof HubApiError) {
    expectTypeOf(e.code).toEqualTypeOf<ErrorCode>();
    expectTypeOf(e.status).toBeNumber();
    expectTypeOf(e.user_message).toBeString();
    expectTypeOf(e.request_id).toEqualTypeOf<string | undefined>();
    expectTypeOf(e.details).toEqualTypeOf<ErrorDetail[] | undefined>();
    if (e.code === "rate_limited" && e.reason === "concurrency") return "wait for a task";
    // @ts-expect-error not a code of the contract
    if (e.code === "rate_limit") return "typo";
  }
  return undefined;
}

// --- Paging --------------------------------------------------------------------------
export async function paging() {
  for await (const g of hub.paginate("/v1/generations", { params: { query: { limit: 50 } } })) expectTypeOf(g).toEqualTypeOf<GenerationRecord>();
  for await (const page of hub.paginate("/v1/generations").pages()) expectTypeOf(page).toEqualTypeOf<HubResult<GenerationPage>>();
  for await (const t of hub.paginate("/v1/billing/transactions")) expectTypeOf(t).toEqualTypeOf<CreditTransaction>();
  for await (const a of hub.paginate("/v1/library/assets")) expectTypeOf(a).toEqualTypeOf<AssetRecord>();
  // @ts-expect-error /v1/me is not a collection
  hub.paginate("/v1/me");
  // @ts-expect-error limit is a number
  hub.paginate("/v1/generations", { params: { query: { limit: "50" } } });
}

// --- Events --------------------------------------------------------------------------
export async function events() {
  for await (const e of hub.events({ types: ["video"] })) {
    expectTypeOf(e).toEqualTypeOf<HubEvent>();
    if (e.event === "reset") {
      expectTypeOf(e.data).toEqualTypeOf<StreamReset>();
      expectTypeOf(e.records).toEqualTypeOf<GenerationRecord[]>();
    } else {
      expectTypeOf(e.data).toEqualTypeOf<GenerationStatusChanged>();
    }
  }
  expectTypeOf(await hub.waitForGeneration("g")).toEqualTypeOf<GenerationRecord>();
  expectTypeOf((await hub.upload(new Blob([]), { contentType: "image/png" })).reference).toBeString();
  // @ts-expect-error not an allowed upload content type
  await hub.upload(new Blob([]), { contentType: "image/gif" });
}
