// The contract at run time (src/contract): what the simulator, the client tests and the
// conformance suite rely on to refuse bad requests and to judge answers.
import { describe, expect, it } from "vitest";
import { chosenBranch, checkAnswer, dottedPath, matchOperation, operationById, toDetails, validateChosen, schemaValidator } from "../../src/contract/index.ts";

describe("request validation", () => {
  it("SUB-6 ENV-5: one detail per fault, with a dotted field and a reason from the table", () => {
    const details = validateChosen("SubmitRequest", {
      type: "video", model: "m", duration: 31, sound: "yes", video_url: 7, character_orientation: "diagonal", extra: 1,
      multi_prompt: [{ index: 1, prompt: "p", duration: 2 }, { index: 9, prompt: "p", duration: 2, more: true }],
    });
    expect(details).toEqual(expect.arrayContaining([
      expect.objectContaining({ field: "model", reason: "out_of_range" }),
      expect.objectContaining({ field: "duration", reason: "out_of_range" }),
      expect.objectContaining({ field: "sound", reason: "wrong_type" }),
      expect.objectContaining({ field: "video_url", reason: "wrong_type" }),
      expect.objectContaining({ field: "character_orientation", reason: "not_allowed" }),
      expect.objectContaining({ field: "extra", reason: "unknown_field" }),
      expect.objectContaining({ field: "multi_prompt.1.index", reason: "out_of_range" }),
      expect.objectContaining({ field: "multi_prompt.1.more", reason: "unknown_field" }),
    ]));
    expect(details).toHaveLength(8);
  });

  it("SUB-0: a body without `type`, with a non-string `type`, or not an object is refused plainly", () => {
    expect(validateChosen("SubmitRequest", { model: "mm" })).toEqual([{ field: "type", reason: "required", message: "type is required" }]);
    expect(validateChosen("SubmitRequest", { type: 3 })).toEqual([expect.objectContaining({ field: "type", reason: "wrong_type" })]);
    expect(validateChosen("SubmitRequest", [1])).toEqual([expect.objectContaining({ reason: "wrong_type" })]);
  });

  it("SUB-3D: unknown types go to the 3D variant, known ones to theirs", () => {
    expect(chosenBranch("SubmitRequest", { type: "video" })).toBe("VideoSubmit");
    expect(chosenBranch("SubmitRequest", { type: "text" })).toBe("TextSubmit");
    expect(chosenBranch("SubmitRequest", { type: "mesh-thing" })).toBe("Model3dSubmit");
    expect(validateChosen("SubmitRequest", { type: "mesh-thing", format: "PLY" })).toEqual([expect.objectContaining({ field: "format", reason: "not_allowed" })]);
  });

  it("OAUTH-12: alternatives collapse into one finding (client_id or an assertion)", () => {
    const details = validateChosen("TokenRequest", { grant_type: "authorization_code", code: "c", redirect_uri: "u", code_verifier: "v" });
    expect(details).toEqual([expect.objectContaining({ field: "client_id", reason: "required" })]);
    expect(details[0]!.message).toMatch(/client_id or client_assertion/);
  });

  it("bad formats and patterns answer bad_format", () => {
    const fn = schemaValidator("GenerationReportRequest");
    fn({ text: "t", client_msg_id: "nope" });
    expect(toDetails(fn.errors)).toEqual([expect.objectContaining({ field: "client_msg_id", reason: "bad_format" })]);
  });

  it("dotted paths unescape JSON pointer segments", () => {
    expect(dottedPath("/a~1b/0/c~0d")).toBe("a/b.0.c~d");
    expect(dottedPath("", "type")).toBe("type");
  });
});

describe("routing", () => {
  it("EP-4: a literal segment wins over a template; params are decoded", () => {
    expect(matchOperation("POST", "/v1/generations/status")?.operation.operationId).toBe("readGenerationStatuses");
    expect(matchOperation("GET", "/v1/generations/abc%20d")?.params).toEqual({ id: "abc d" });
    expect(matchOperation("GET", "/v1/generations/a/outputs/image/0")?.operation.operationId).toBe("downloadGenerationOutput");
    expect(matchOperation("DELETE", "/v1/generations/abc")).toBeUndefined();
    expect(matchOperation("GET", "/v1/nothing")).toBeUndefined();
    expect(matchOperation("GET", "/v1/generations/%E0%A4%A")).toBeUndefined();
  });
});

describe("answer checks", () => {
  const list = operationById("listGenerations");
  const goodHeaders = {
    "content-type": "application/json; charset=utf-8", "x-request-id": "r", "cache-control": "private, no-store",
    vary: "Authorization, Cookie, Origin", ratelimit: '"default";r=5;t=30', "ratelimit-policy": '"default";q=60;w=60',
  };
  const page = JSON.stringify({ data: [{ id: "g", type: "video", status: "DONE", output_urls: [] }], next_cursor: null });

  it("a valid answer has no violation", () => {
    expect(checkAnswer(list, { status: 200, headers: goodHeaders, body: page })).toEqual([]);
  });

  it("an undeclared status, a missing header, a wrong header, a wrong media type or body are each reported", () => {
    expect(checkAnswer(list, { status: 201, headers: goodHeaders, body: page })[0]!.message).toMatch(/not declared/);
    const { ratelimit: _drop, ...noRateLimit } = goodHeaders;
    expect(checkAnswer(list, { status: 200, headers: noRateLimit, body: page }).map((v) => v.message)).toEqual(["header RateLimit is required"]);
    expect(checkAnswer(list, { status: 200, headers: { ...goodHeaders, "cache-control": "public" }, body: page })[0]!.message).toMatch(/Cache-Control/);
    expect(checkAnswer(list, { status: 200, headers: { ...goodHeaders, "content-type": "text/plain" }, body: page })[0]!.message).toMatch(/content type/);
    expect(checkAnswer(list, { status: 200, headers: goodHeaders, body: "{" })[0]!.message).toMatch(/not JSON/);
    expect(checkAnswer(list, { status: 200, headers: goodHeaders, body: JSON.stringify({ data: [] }) })[0]!.message).toMatch(/next_cursor/);
  });

  it("error answers are checked against the envelope, and a wrong code is one finding", () => {
    const body = JSON.stringify({ error: { code: "no_such_code", message: "m", user_message: "m", request_id: "r" } });
    const found = checkAnswer(list, { status: 400, headers: goodHeaders, body });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/code/);
  });

  it("a body where none is declared is reported (304 has none)", () => {
    const models = operationById("listModels");
    const headers = { ...goodHeaders, "cache-control": "private, max-age=0, must-revalidate", etag: 'W/"x"' };
    expect(checkAnswer(models, { status: 304, headers, body: "" })).toEqual([]);
    expect(checkAnswer(models, { status: 304, headers, body: "{}" })[0]!.message).toMatch(/none is declared/);
  });
});

describe("alternatives given by $ref", () => {
  it("PAGE-1: an empty next_cursor is one finding, not one per alternative", () => {
    const list = operationById("listGenerations");
    const headers = {
      "content-type": "application/json", "x-request-id": "r", "cache-control": "private, no-store",
      vary: "Authorization, Cookie, Origin", ratelimit: '"default";r=5;t=30', "ratelimit-policy": '"default";q=60;w=60',
    };
    const found = checkAnswer(list, { status: 200, headers, body: JSON.stringify({ data: [], next_cursor: "" }) });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/next_cursor/);
  });
});
