// The contract's tables are the seed's tables: error codes, detail reasons, scopes,
// statuses, failure reasons, upload content types, and the summary table of routes.
import { describe, expect, it } from "vitest";
import { deref, detailReasons, errorCodes, generationStatuses, operations, schema, scopes, type JsonObject } from "../../src/contract/index.ts";
import { contract } from "../support/contract.ts";
import { backticked, section, seedText, tableAfter } from "../support/seed.ts";

describe("ERR-2: the error-code table", () => {
  const rows = tableAfter(section("Error codes"), "| Code |");
  it("has every code of the seed and no other", () => {
    expect([...errorCodes.keys()].sort()).toEqual(rows.map((r) => r[0]!.replace(/`/g, "")).sort());
  });
  it.each(rows.map((r) => [r[0]!.replace(/`/g, ""), Number(r[1]), r.slice(2).join("|")] as const))(
    "%s: status %i and the seed's meaning",
    (code, status, meaning) => {
      expect(errorCodes.get(code)).toEqual({ code, status, meaning });
    },
  );
});

describe("ERR-4: the reason table", () => {
  const text = section("Reasons in details");
  const rows = tableAfter(text, "| reason |").flatMap(([names, meaning]) =>
    names!.split(",").map((n) => [n.trim(), meaning!] as const),
  );
  const unshown = backticked(text.match(/The reasons (.*) also occur; their meanings are not shown\./)![1]!);
  const entries = schema("DetailReason").anyOf as JsonObject[];

  it("has every reason of the table and the seventeen whose meaning is not shown, and no other", () => {
    expect(unshown).toHaveLength(17);
    expect([...detailReasons].sort()).toEqual([...rows.map((r) => r[0]), ...unshown].sort());
  });
  it.each(rows)("%s: the seed's meaning", (reason, meaning) => {
    expect(entries.find((e) => e.const === reason)?.description).toBe(meaning);
  });
  it.each(unshown)("%s: recorded as a gap", (reason) => {
    expect(entries.find((e) => e.const === reason)?.["x-not-shown"]).toBe("their meanings are not shown");
  });
});

describe("AUTH-5: the scope vocabulary", () => {
  const vocabulary = backticked(section("Scope vocabulary").split("\n").find((l) => l.startsWith("`"))!);
  it("Scope lists the twelve scopes of the seed", () => {
    expect(vocabulary).toHaveLength(12);
    expect([...scopes]).toEqual(vocabulary);
  });
  it("the OAuth flow offers exactly the same scopes", () => {
    const flow = deref<JsonObject>((contract.components as JsonObject).securitySchemes as JsonObject);
    const oauth2 = deref<JsonObject>(flow.oauth2);
    const offered = Object.keys(((oauth2.flows as JsonObject).authorizationCode as JsonObject).scopes as JsonObject);
    expect(offered).toEqual(vocabulary);
  });
});

describe("enumerations of the seed", () => {
  it("GEN-4: the generation statuses", () => {
    const seedStatuses = backticked(section("States and transitions").split("\n").find((l) => l.startsWith("Generation `status` values"))!).slice(1);
    expect(generationStatuses.map((s) => s.status)).toEqual(seedStatuses);
  });
  it("ST-5: QUEUED, PENDING, RUNNING and MODERATION_PENDING are in progress; DONE and FAILED are not", () => {
    const line = section("States and transitions").split("\n").find((l) => l.includes("mean work continues"))!;
    const inProgress = backticked(line);
    expect(generationStatuses.filter((s) => s.inProgress).map((s) => s.status)).toEqual(inProgress);
  });
  it("GEN-7: the failure reasons", () => {
    const row = tableAfter(section("Generation record"), "| Field |").find((r) => r[0] === "error.reason")!;
    expect(schema("FailureReason").enum).toEqual(backticked(row[2]!));
  });
  it("UPL-4: the upload content types", () => {
    const row = tableAfter(section("POST /v1/uploads"), "| Rule |").find((r) => r[0] === "Allowed content types")!;
    expect(schema("UploadContentType").enum).toEqual(backticked(row[1]!));
  });
  it("EVT-2: the reset reasons", () => {
    const row = tableAfter(section("Stream reset (SSE `data` of `reset`)"), "| Field |").find((r) => r[0] === "reason")!;
    const reset = deref<JsonObject>(schema("StreamReset"));
    expect(((reset.properties as JsonObject).reason as JsonObject).enum).toEqual(backticked(row[2]!));
  });
});

describe("EP-4: the summary table", () => {
  const rows = tableAfter(section("Summary table"), "| Method |").flatMap(([method, paths, scope]) =>
    backticked(paths!).map((path) => ({ method: method!.toLowerCase(), path, scope: scope! })),
  );
  const find = (method: string, path: string) => operations().find((o) => o.method === method && o.path === path);

  it("lists 38 operations, and the contract has exactly those", () => {
    expect(rows).toHaveLength(38);
    expect(operations()).toHaveLength(38);
    for (const row of rows) expect(find(row.method, row.path), `${row.method} ${row.path}`).toBeDefined();
  });

  it.each(rows.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))("%s: needs what the table says", (_name, row) => {
    const op = find(row.method, row.path)!;
    const security = (op.op.security as JsonObject[]) ?? [];
    const requirement = (scheme: string) => security.find((s) => scheme in s)?.[scheme] as string[] | undefined;
    if (/^[a-z]+:[a-z]+$/.test(row.scope)) {
      // A named scope: keys and OAuth tokens need exactly it; the site session may call it.
      expect(requirement("api_key")).toEqual([row.scope]);
      expect(requirement("oauth2")).toEqual([row.scope]);
      expect(op.schemes.sort()).toEqual(["api_key", "oauth2", "session_cookie"]);
    } else if (row.scope === "see gaps below") {
      expect(requirement("api_key")).toEqual([]);
      expect(requirement("oauth2")).toEqual([]);
      expect(String(op.op["x-not-shown"])).toContain("Required scope of");
    } else if (row.scope === "credential of the owner") {
      expect(op.schemes.sort()).toEqual(["api_key", "oauth2"]);
      expect(requirement("api_key")).toEqual([]);
    } else if (row.scope === "session cookie only") {
      expect(op.schemes).toEqual(["session_cookie"]);
    } else {
      expect(row.scope).toBe("none");
      expect(op.op.security).toEqual([]);
    }
  });
});

it("VER-1: the interface version is 1.0.0", () => {
  expect(seedText).toContain("The interface version is 1.0.0");
  expect((contract.info as JsonObject).version).toBe("1.0.0");
});
