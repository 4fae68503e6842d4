// The contract numbers the client carries as constants (src/client/limits.ts) are the
// contract's: each is compared with where the contract holds it.
import { describe, expect, it } from "vitest";
import { BATCH_MAX_IDS, DEAD_CONNECTION_MS, HEARTBEAT_SECONDS } from "../../src/client/index.ts";
import { IN_PROGRESS_STATUSES, KNOWN_SUBMIT_TYPES } from "../../src/client/limits.ts";
import { bound, deref, generationStatuses, inProgressStatuses, schema, singleValue, streamLimits, type JsonObject } from "../../src/contract/index.ts";

describe("client constants match the contract", () => {
  it("BATCH-1 LIM-7: the batch limit is GenerationStatusRequest.ids maxItems", () => {
    expect(BATCH_MAX_IDS).toBe(bound("GenerationStatusRequest", "ids", "maxItems"));
  });

  it("EVT-8 LIM-7: the heartbeat is the stream's x-sse-heartbeat-seconds; a dead connection is three missed heartbeats", () => {
    expect(HEARTBEAT_SECONDS).toBe(streamLimits().heartbeatSeconds);
    expect(DEAD_CONNECTION_MS).toBe(3 * streamLimits().heartbeatSeconds * 1000);
  });

  it("ST-5 GEN-4: the in-progress statuses are those marked x-in-progress; DONE and FAILED are final", () => {
    expect([...IN_PROGRESS_STATUSES].sort()).toEqual([...inProgressStatuses].sort());
    expect(generationStatuses.map((s) => s.status).filter((s) => !IN_PROGRESS_STATUSES.has(s)).sort()).toEqual(["DONE", "FAILED"]);
  });

  it("SUB-3D: the known submit types are the variants' constants, which the 3D variant's type excludes", () => {
    const variants = ((schema("SubmitRequest").oneOf as JsonObject[]) ?? []).map((b) => deref(b));
    const consts = variants.map((v) => singleValue((v.properties as JsonObject).type)).filter((c): c is string => typeof c === "string");
    expect([...KNOWN_SUBMIT_TYPES].sort()).toEqual(consts.sort());
    const threeD = deref(schema("Model3dSubmit"));
    const not = (deref((threeD.properties as JsonObject).type as JsonObject).not as JsonObject).enum as string[];
    expect([...not].sort()).toEqual([...KNOWN_SUBMIT_TYPES].sort());
  });
});
