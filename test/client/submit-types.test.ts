// The submit guards at run time (their narrowing is held by types.test-d.ts): a body is the
// known variant its `type` names, and the 3D variant is any other `type`.
import { describe, expect, it } from "vitest";
import { isKnownSubmitType, isModel3dSubmit, isSubmitOfType } from "../../src/client/index.ts";

describe("submit guards", () => {
  it("SUB-3D: isSubmitOfType picks the known variant by its type; isModel3dSubmit is any other type", () => {
    const bodies = [{ type: "video" }, { type: "image" }, { type: "upscale" }, { type: "text" }, { type: "mesh-3d" }];
    expect(bodies.filter((b) => isSubmitOfType(b, "video"))).toEqual([{ type: "video" }]);
    expect(bodies.filter((b) => isSubmitOfType(b, "text"))).toEqual([{ type: "text" }]);
    expect(bodies.filter((b) => isModel3dSubmit(b))).toEqual([{ type: "mesh-3d" }]);
    expect(bodies.map((b) => isKnownSubmitType(b.type))).toEqual([true, true, true, true, false]);
  });
});
