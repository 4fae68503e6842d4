// "Did you mean": the known word closest to a mistyped flag or command, or none; the
// nearest few for a rule id or an operationId.
import { describe, expect, it } from "vitest";
import { closest, editDistance, nearest } from "../../src/common/did-you-mean.ts";

const FLAGS = ["port", "host", "scenario", "clock-speed", "cors", "retain-generations", "retain-events", "retain-ledger-rows", "help"];

describe("closest", () => {
  it("counts inserts, deletes, replacements and a swap of neighbours as one edit each", () => {
    expect(editDistance("port", "port")).toBe(0);
    expect(editDistance("prot", "port")).toBe(1);
    expect(editDistance("scenaro", "scenario")).toBe(1);
    expect(editDistance("clock", "clock-speed")).toBe(6);
  });

  it("names the known word a typo meant, or the one word it begins", () => {
    expect(closest("prot", FLAGS)).toBe("port");
    expect(closest("senario", FLAGS)).toBe("scenario");
    expect(closest("clock-sped", FLAGS)).toBe("clock-speed");
    expect(closest("clock", FLAGS)).toBe("clock-speed");
    expect(closest("mok", ["mock", "conformance"])).toBe("mock");
  });

  it("guesses nothing when nothing is close, or when the start fits several words", () => {
    expect(closest("frobnicate", FLAGS)).toBeUndefined();
    expect(closest("retain", FLAGS)).toBeUndefined();
    expect(closest("x", FLAGS)).toBeUndefined();
  });
});

describe("nearest", () => {
  it("names up to three known words at the least distance, case aside, and none when even the nearest is far", () => {
    expect(nearest("NOPE-1", ["PAGE-1", "UPL-1", "SUP-1", "EVT-9", "OAUTH-10"])).toEqual(["PAGE-1", "UPL-1", "SUP-1"]);
    expect(nearest("evt-9", ["EVT-9", "EVT-10"])).toEqual(["EVT-9"]);
    expect(nearest("listModel", ["listModels", "readWhoami"])).toEqual(["listModels"]);
    expect(nearest("XYZZY", ["PAGE", "SUB", "EVT"])).toEqual([]);
  });
});
