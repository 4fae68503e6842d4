// The few contract numbers the client runs on. They are written here rather than read
// from the bundle at run time, so the client stays small and browser-safe (importing
// generated/openapi.json would ship the whole contract; the heartbeat lives only there).
// Each value names where the contract holds it, and test/client/limits.test.ts compares
// every one with the contract through src/contract, so a change there fails the tests.

/**
 * Most ids one batch status read accepts.
 * Contract: `schemas/generations/GenerationStatusRequest.json` `properties.ids.maxItems`
 * (seed: "Batch status read | up to 50 ids per call").
 */
export const BATCH_MAX_IDS = 50;

/**
 * Seconds between heartbeat comments of the event stream.
 * Contract: `GET /v1/events` 200 `text/event-stream` `x-sse-heartbeat-seconds`
 * (seed: "Heartbeat every 15 seconds").
 */
export const HEARTBEAT_SECONDS = 15;

/** Silence that marks a dead stream: three missed heartbeats (45 s). */
export const DEAD_CONNECTION_MS = 3 * HEARTBEAT_SECONDS * 1000;

/**
 * Statuses where work continues. A status outside this set is final for the client
 * (`DONE`, or `FAILED`, which a late provider result can still turn into `DONE`).
 * Contract: `schemas/generations/GenerationStatus.json`, the values with `x-in-progress`.
 */
export const IN_PROGRESS_STATUSES: ReadonlySet<string> = new Set(["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING"]);

/**
 * Submit `type` values of the known variants; the 3D variant takes any other string.
 * Contract: the one value of `type` in `schemas/submit/{Video,Image,Upscale,Text}Submit.json`
 * and the `not.enum` of `schemas/submit/Model3dSubmit.json`.
 */
export const KNOWN_SUBMIT_TYPES = ["video", "image", "upscale", "text"] as const;
