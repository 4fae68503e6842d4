// "Did you mean": the known word closest to a mistyped flag or command, or none.
import { describe, expect, it } from "vitest";
import { closest, editDistance } from "../../src/common/did-you-mean.ts";

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
