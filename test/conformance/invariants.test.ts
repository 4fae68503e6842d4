// The invariants over the whole trace (src/conformance/judge/invariants/): each catches a
// broken server of its own (the whole default run against it fails exactly its rule, with
// the invariant's finding; where no probe meets the bug, with its findings only), and each judges a
// trace handed to it from outside a run (as the passive mode feeds it).
// Over 30 s on a loaded machine (42.7 s in the CI rehearsal of 2026-11-28 with ten runs;
// 57 s with twelve at a load average of 3; 40 to 62 s since three test workers share the
// two cores): twelve whole default runs, one per invariant's
// broken server and one clean run where the account ceiling binds, each with a simulator
// of its own (concurrent).
import { describe, expect, it } from "vitest";
import { INVARIANTS } from "../../src/conformance/judge/invariants/index.ts";
import { exchangeOf, type Exchange } from "../../src/conformance/target/exchange.ts";
import { ACCOUNT_CEILING_BINDS, INVARIANT_DOUBLES } from "./support/doubles-invariants.ts";
import { startProxy } from "./support/proxy.ts";
import { explain, failing, runFull, startSim } from "./support/run.ts";

function answer(method: string, path: string, json: unknown, label = "main", headers: Record<string, string> = {}): Exchange {
  const text = JSON.stringify(json);
  return exchangeOf({ method, url: `http://127.0.0.1${path}`, headers }, { status: 200, headers: new Headers({ "content-type": "application/json" }), text, size: text.length }, { path, label, startedAt: Date.now(), ms: 1 });
}

/** A GET answered 200 to a request sent with `headers` at `at` (ms since the epoch), taking `ms`, with the RateLimit pair `window`. */
function windowAnswer(headers: Record<string, string>, at: number, window?: string, ms = 5, path = "/v1/me", json: unknown = {}): Exchange {
  const ex = answer("GET", path, json, "main", headers);
  ex.record.startedAt = new Date(at).toISOString();
  ex.record.ms = ms;
  if (window) ex.headers.set("ratelimit", window);
  return ex;
}

function invariant(name: string) {
  const found = INVARIANTS.find((i) => i.name === name);
  if (!found) throw new Error(`no invariant ${name}`);
  return found;
}

describe("the invariants over the whole trace", () => {
  it("each has a name of its own, cites seed rules and has a broken server it catches", () => {
    expect(INVARIANTS.length).toBeGreaterThan(0);
    expect(new Set(INVARIANTS.map((i) => i.name)).size).toBe(INVARIANTS.length);
    for (const i of INVARIANTS) {
      expect(i.rules.length, i.name).toBeGreaterThan(0);
      expect(INVARIANT_DOUBLES.some((d) => d.invariant === i.name), i.name).toBe(true);
    }
  });

  it("EP-2: one X-Request-Id on two requests is a finding unless the same id was sent with both (a retry)", () => {
    const how = { rule: "EP-2", bare: false, elapsedSeconds: 0 };
    const w = invariant("a request id names one request").watch();
    const echoed = (sent: Record<string, string>, id: string) => {
      const ex = answer("GET", "/v1/whoami", {}, "main", sent);
      ex.headers.set("x-request-id", id);
      return ex;
    };
    w.exchange(echoed({ "X-Request-Id": "a" }, "a"), how);
    w.exchange(echoed({ "X-Request-Id": "a" }, "a"), how);
    w.exchange(echoed({}, "g1"), how);
    expect(w.findings()).toEqual([{ rule: "EP-2", held: true }]);
    w.exchange(echoed({}, "g1"), how);
    expect(w.findings().map((f) => (f.held ? "held" : f.message))).toEqual([expect.stringMatching(/same X-Request-Id g1 \(none sent with the first, none sent with this one\)/)]);
    // What it remembered of the first answer is its request id and line, not its record (a body of up to 64 Ki characters, for 100,000 ids).
    const first = w.findings()[0]!.cite!.steps![0]!.cited;
    expect(first.request).toBeDefined();
    expect(first.exchange).toBeUndefined();
  });

  it("ST-5: a generation read DONE then RUNNING elsewhere is a finding, FAILED then DONE (a late result) is not", () => {
    const how = { rule: "ST-5", bare: false, elapsedSeconds: 0 };
    const w = invariant("DONE is final, wherever a generation is read").watch();
    w.exchange(answer("GET", "/v1/generations/gen_a", { id: "gen_a", status: "FAILED" }), how);
    w.exchange(answer("GET", "/v1/generations/gen_a", { id: "gen_a", status: "DONE" }), how);
    expect(w.findings()).toEqual([{ rule: "ST-5", held: true }]);
    w.exchange(answer("GET", "/v1/generations?limit=5", { data: [{ id: "gen_a", status: "RUNNING" }], next_cursor: null }), how);
    const found = w.findings();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule: "ST-5", held: false, message: expect.stringMatching(/gen_a was read DONE, then RUNNING/) });
    expect(found[0]!.cite?.steps?.map((s) => s.step)).toEqual(["read DONE", "read RUNNING"]);
  });

  it("EVT-9: a frame id sent twice in a stream, or again after resuming past it, is a finding; the frames after it are not", () => {
    const w = invariant("no event stream repeats a frame, across resumes").watch();
    const frame = (id: string) => ({ event: "generation.status_changed", id, data: { id: "gen_a", status: "RUNNING" }, raw: "" });
    const live = answer("GET", "/v1/events", {});
    for (const id of ["c1", "c2", "c3"]) w.frame!(frame(id), live);
    const resumed = answer("GET", "/v1/events", {}, "main", { "Last-Event-ID": "c2" });
    w.frame!(frame("c3"), resumed);
    expect(w.findings()).toEqual([{ rule: "EVT-9", held: true }]);
    w.frame!(frame("c1"), resumed);
    w.frame!(frame("c3"), live);
    expect(w.findings().map((f) => (f.held ? "held" : f.message))).toEqual([expect.stringMatching(/came before that id/), "the stream sent the frame id c3 twice"]);
  });

  it("W-8 GEN-9 EVT-4: a generation shown to two accounts (by their whoami) is a finding; to two credentials of one account, or to one that never asked whoami, it is not", () => {
    const how = { rule: "W-8", bare: false, elapsedSeconds: 0 };
    const w = invariant("a generation shows only to its own account").watch();
    const page = (label: string) => answer("GET", "/v1/generations?limit=5", { data: [{ id: "gen_a", type: "video", status: "RUNNING" }], next_cursor: null }, label);
    w.exchange(answer("GET", "/v1/whoami", { user_id: "acc_a" }, "main"), how);
    w.exchange(answer("GET", "/v1/whoami", { user_id: "acc_a" }, "second key"), how);
    w.exchange(page("main"), how);
    w.exchange(page("second key"), how);
    w.exchange(page("never asked"), how);
    expect(w.findings()).toEqual([{ rule: "W-8", held: true }]);
    // The other account's stream: its whoami comes after the frame (judged at the end).
    const stream = answer("GET", "/v1/events", {}, "other");
    w.frame!({ event: "generation.status_changed", id: "c1", data: { id: "gen_a", type: "video", status: "DONE" }, raw: "" }, stream);
    w.exchange(answer("GET", "/v1/whoami", { user_id: "acc_b" }, "other"), how);
    const found = w.findings();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule: "EVT-4", held: false, message: expect.stringMatching(/gen_a was shown to account acc_a .* and to account acc_b \(GET \/v1\/events -> 200\)/) });
    expect(found[0]!.cite?.steps?.map((s) => s.step)).toEqual(["shown to acc_a", "shown to acc_b"]);
  });

  it("GEN-1 EVT-1: a generation read with another type elsewhere, or in a frame, is a finding", () => {
    const how = { rule: "GEN-1", bare: false, elapsedSeconds: 0 };
    const w = invariant("a generation keeps its type wherever it is read").watch();
    w.exchange(answer("POST", "/v1/generations", { id: "gen_a", type: "image", status: "QUEUED" }), how);
    w.exchange(answer("GET", "/v1/generations/gen_a", { id: "gen_a", type: "image", status: "DONE" }), how);
    expect(w.findings()).toEqual([{ rule: "GEN-1", held: true }]);
    w.frame!({ event: "generation.status_changed", id: "c1", data: { id: "gen_a", type: "video", status: "DONE" }, raw: "" }, answer("GET", "/v1/events", {}));
    expect(w.findings().map((f) => [f.rule, f.held ? "held" : f.message])).toEqual([["EVT-1", expect.stringMatching(/gen_a was read as type image \(POST \/v1\/generations -> 200\), then as video \(a frame \(id c1\) of GET \/v1\/events -> 200\)/)]]);
  });

  it("GEN-1: a generation read with other fields elsewhere at the same status is a finding; at another status, with refunded come since, or in a title change's reply it is not", () => {
    const how = { rule: "GEN-1", bare: false, elapsedSeconds: 0 };
    const w = invariant("a generation's record has one shape wherever it is read").watch();
    const queued = { id: "gen_a", type: "image", status: "QUEUED", model: "m", output_urls: [] };
    w.exchange(answer("POST", "/v1/generations", queued), how);
    w.exchange(answer("GET", "/v1/generations?limit=20", { data: [queued], next_cursor: null }), how);
    w.exchange(answer("GET", "/v1/generations/gen_a", { id: "gen_a", type: "image", status: "FAILED", model: "m", output_urls: [], error: { reason: "timeout" } }), how);
    w.exchange(answer("POST", "/v1/generations/status", { data: [{ id: "gen_a", type: "image", status: "FAILED", model: "m", output_urls: [], error: { reason: "timeout" }, refunded: true }], next_cursor: null }), how);
    w.exchange(answer("PATCH", "/v1/generations/gen_a", { id: "gen_a", status: "FAILED", title: "t" }), how);
    expect(w.findings()).toEqual([{ rule: "GEN-1", held: true }]);
    w.exchange(answer("POST", "/v1/generations/status", { data: [{ id: "gen_a", type: "image", status: "QUEUED", output_urls: [] }], next_cursor: null }), how);
    expect(w.findings().map((f) => (f.held ? "held" : f.message))).toEqual(["generation gen_a (QUEUED) was read with the fields [id, model, output_urls, status, type] (POST /v1/generations -> 200), then with [id, output_urls, status, type] (POST /v1/generations/status): one record, the same shape wherever it is read"]);
  });

  it("PRICE-1: a debit above the estimate of the same body (the prompt aside, the same credential) is a finding; a body never estimated is not judged", () => {
    const how = { rule: "PRICE-1", bare: false, elapsedSeconds: 0 };
    const w = invariant("no charge exceeds the estimate of its body").watch();
    const sent = (method: string, path: string, body: unknown, json: unknown, label = "main") => {
      const ex = answer(method, path, json, label);
      ex.record.sent.body = JSON.stringify(body);
      return ex;
    };
    const ledger = (rows: unknown[]) => answer("GET", "/v1/billing/transactions?limit=5", { data: rows, next_cursor: null });
    w.exchange(sent("POST", "/v1/pricing/estimate", { type: "video", model: "m", prompt: "a", duration: 5 }, { price_cc: 500 }), how);
    w.exchange(sent("POST", "/v1/generations", { duration: 5, model: "m", type: "video", prompt: "b" }, { id: "gen_a", status: "QUEUED" }), how);
    w.exchange(sent("POST", "/v1/generations", { type: "video", model: "m", prompt: "c", duration: 10 }, { id: "gen_b", status: "QUEUED" }), how);
    w.exchange(sent("POST", "/v1/generations", { type: "video", model: "m", prompt: "d", duration: 5 }, { id: "gen_c", status: "QUEUED" }, "another key"), how);
    // Nested fields are part of the body: another duration inside multi_prompt is another body.
    w.exchange(sent("POST", "/v1/pricing/estimate", { type: "video", model: "m", multi_prompt: [{ index: 1, prompt: "a", duration: 2 }] }, { price_cc: 200 }), how);
    w.exchange(sent("POST", "/v1/generations", { type: "video", model: "m", multi_prompt: [{ index: 1, prompt: "a", duration: 9 }] }, { id: "gen_m", status: "QUEUED" }), how);
    w.exchange(ledger([{ amount_cc: -500, generation_id: "gen_a" }, { amount_cc: -900, generation_id: "gen_b" }, { amount_cc: -900, generation_id: "gen_c" }, { amount_cc: -900, generation_id: "gen_m" }]), how);
    expect(w.findings()).toEqual([{ rule: "PRICE-1", held: true }]);
    w.exchange(sent("POST", "/v1/generations", { type: "video", model: "m", prompt: "e", duration: 5 }, { id: "gen_d", status: "QUEUED" }), how);
    w.exchange(ledger([{ amount_cc: 100, generation_id: "gen_d" }, { amount_cc: -300, generation_id: "gen_d" }, { amount_cc: -201, generation_id: "gen_d" }]), how);
    expect(w.findings().map((f) => (f.held ? "held" : f.message))).toEqual(["generation gen_d was charged 501 cc (its debit rows in the ledger); the estimate of its body said 500 cc, a ceiling"]);
  });

  it("SUB-2 SUB-3 SUP-3: a replay key sent again by one credential answers the first record with the same body, and is not taken with another", () => {
    const how = { rule: "SUB-2", bare: false, elapsedSeconds: 0 };
    const w = invariant("a replay answers the first record").watch();
    const submit = (key: string, body: object, id: string, label = "main") => {
      const ex = answer("POST", "/v1/generations", { id, status: "QUEUED" }, label, { "idempotency-key": key });
      ex.record.sent.body = JSON.stringify(body);
      return ex;
    };
    w.exchange(submit("k1", { type: "image", prompt: "a" }, "gen_1"), how);
    // The same body whatever the order of its fields: the first record again.
    w.exchange(submit("k1", { prompt: "a", type: "image" }, "gen_1"), how);
    // Another credential's key is its own (another account's, maybe).
    w.exchange(submit("k1", { type: "image", prompt: "b" }, "gen_2", "other"), how);
    expect(w.findings()).toEqual([{ rule: "SUB-2", held: true }]);
    w.exchange(submit("k1", { type: "image", prompt: "a" }, "gen_3"), how);
    w.exchange(submit("k1", { type: "image", prompt: "c" }, "gen_4"), how);
    expect(w.findings().map((f) => (f.held ? f.rule : `${f.rule} ${f.message}`))).toEqual([
      expect.stringMatching(/^SUB-2 a submit's Idempotency-Key sent again with the same body answered gen_3, not gen_1/),
      expect.stringMatching(/^SUB-3 a submit's Idempotency-Key sent again with another body was taken \(200\)/),
    ]);
    // A reset of the simulator forgets the keys: the same key then makes a new record.
    w.exchange({ ...answer("POST", "/_sim/reset", {}), status: 204 }, { ...how, bare: true });
    const before = w.findings().length;
    w.exchange(submit("k1", { type: "image", prompt: "a" }, "gen_5"), how);
    w.exchange(submit("k1", { type: "image", prompt: "a" }, "gen_5"), how);
    expect(w.findings()).toHaveLength(before);
  });

  it("PAGE-2 PAGE-4: the page a next_cursor gives holds none of the page that gave it; the same page again is the cursor ignored", () => {
    const how = { rule: "PAGE-4", bare: false, elapsedSeconds: 0 };
    const w = invariant("pages do not overlap, and a cursor is read").watch();
    const page = (query: string, ids: string[], next: string | null) => answer("GET", `/v1/generations${query}`, { data: ids.map((id) => ({ id })), next_cursor: next });
    w.exchange(page("?limit=2", ["g5", "g4"], "c1"), how);
    w.exchange(page("?limit=2&cursor=c1", ["g3", "g2"], "c2"), how);
    // Another filter's page with that cursor is another list.
    w.exchange(page("?limit=2&type=image&cursor=c2", ["g2"], null), how);
    expect(w.findings()).toEqual([
      { rule: "PAGE-2", held: true },
      { rule: "PAGE-4", held: true },
    ]);
    w.exchange(page("?limit=2&cursor=c2", ["g2", "g1"], null), how);
    w.exchange(page("?cursor=c1&limit=2", ["g5", "g4"], "c1"), how);
    expect(w.findings().map((f) => (f.held ? f.rule : `${f.rule} ${f.message}`))).toEqual([
      expect.stringMatching(/^PAGE-4 the page its next_cursor gave repeats 1 record\(s\) of the page that gave it \(g2\)/),
      expect.stringMatching(/^PAGE-2 the page its next_cursor gave is the page that gave it \(2 records, from g5\)/),
    ]);
  });

  it("LIM-1: a key's default window going down by more than the key's requests between two answers is a finding; a reset, another policy, an OAuth token or a key that never asked whoami is not judged", () => {
    const w = invariant("a key's window is spent by its own requests").watch();
    let now = Date.parse("2026-11-28T12:00:00Z");
    /** An answer to `token` sent at `at` (ms after the start), taking `ms`, with its window. */
    const read = (token: string, at: number, window?: string, ms = 5, path = "/v1/me", json: unknown = {}, scheme = "Bearer") => windowAnswer({ Authorization: `${scheme} ${token}` }, now + at, window, ms, path, json);
    const how = { rule: "LIM-1", bare: false, elapsedSeconds: 0 };
    w.exchange(read("key_a", 0, undefined, 5, "/v1/whoami", { channel: "api_key" }), how);
    w.exchange(read("key_b", 1, undefined, 5, "/v1/whoami", { channel: "api_key" }), how);
    w.exchange(read("tok_o", 2, undefined, 5, "/v1/whoami", { channel: "oauth" }), how);
    // key_a: 100, a refusal without the pair (it may have been counted), then 98: held.
    w.exchange(read("key_a", 10, '"default";r=100;t=50'), how);
    w.exchange(read("key_a", 20), how);
    w.exchange(read("key_a", 30, '"default";r=98;t=50'), how);
    // A request in flight across the pair, answered after it: counted with it.
    w.exchange(read("key_a", 40, '"default";r=97;t=49'), how);
    w.exchange(read("key_a", 50, '"default";r=95;t=49', 5), how);
    w.exchange(read("key_a", 45, undefined, 20), how);
    // Another policy, a reset (the remainder higher), an OAuth token, a key that never asked: not judged.
    w.exchange(read("key_a", 60, '"account";r=10;t=49'), how);
    w.exchange(read("key_a", 70, '"default";r=300;t=60'), how);
    w.exchange(read("tok_o", 80, '"default";r=100;t=50'), how);
    w.exchange(read("tok_o", 90, '"default";r=90;t=50'), how);
    w.exchange(read("key_c", 80, '"default";r=100;t=50'), how);
    w.exchange(read("key_c", 90, '"default";r=90;t=50'), how);
    // More time passed than the window had left: a reset between.
    w.exchange(read("key_b", 100, '"default";r=100;t=1'), how);
    w.exchange(read("key_b", 1_200, '"default";r=50;t=5'), how);
    expect(w.findings()).toEqual([{ rule: "LIM-1", held: true }]);
    // key_b (Bearer or bearer: one key) goes down by 3 with one request of its own between.
    now += 10_000;
    w.exchange(read("key_b", 0, '"default";r=40;t=50'), how);
    w.exchange(read("key_b", 10), how);
    w.exchange(read("key_b", 20, '"default";r=37;t=49', 5, "/v1/me", {}, "bearer"), how);
    const found = w.findings();
    expect(found.map((f) => (f.held ? "held" : f.message))).toEqual([expect.stringMatching(/^the key's default window went down by 3 between two of its answers \(r=40, then r=37 0\.0 s later, the same window\), but only 2 request\(s\) of that key may have been counted/)]);
    expect(found[0]!.cite?.steps?.map((s) => s.step)).toEqual(["r=40", "r=37"]);
    // Neither the token nor its digest is in the finding.
    expect(JSON.stringify(found)).not.toMatch(/key_b/);
  });

  it("LIM-1: the account window going up within one window across its credentials, or down by more than all of their requests, is a finding; another account's keys, a session's answers, a new window, a credential that never asked whoami and a reset of the target are not judged", () => {
    const w = invariant("the account's window is one ceiling over all its keys").watch();
    const at = Date.parse("2026-11-28T12:00:00Z");
    const key = (token: string, ms: number, window?: string, path?: string, json?: unknown) => windowAnswer({ Authorization: `Bearer ${token}` }, at + ms, window, 5, path, json);
    const whoami = (token: string, ms: number, account: string) => key(token, ms, undefined, "/v1/whoami", { user_id: account, channel: token.startsWith("tok") ? "oauth" : "api_key" });
    const how = { rule: "LIM-1", bare: false, elapsedSeconds: 0 };
    for (const [token, account] of [["key_a", "acc_a"], ["key_b", "acc_a"], ["tok_o", "acc_a"], ["key_x", "acc_x"]] as const) w.exchange(whoami(token, 0, account), how);
    w.exchange(windowAnswer({ Cookie: "sid=s1" }, at, undefined, 5, "/v1/whoami", { user_id: "acc_a", channel: "session" }), how);
    /** Answers in order: the credential (`session`: the cookie), when it was sent (ms), its pair, the seconds the clock had moved. */
    const send = (steps: [string, number, string?, number?][]) => {
      for (const [who, ms, window, moved = 0] of steps) w.exchange(who === "session" ? windowAnswer({ Cookie: "sid=s1" }, at + ms, window) : key(who, ms, window), { ...how, elapsedSeconds: moved });
    };
    send([
      // key_a 100, key_b 98: down by 2 with two requests, the session's among them (its answer naming account is not read: its one window may be a counter of its own).
      ["key_a", 10, '"account";r=100;t=50'],
      ["session", 20, '"account";r=500;t=60'],
      ["key_b", 30, '"account";r=98;t=50'],
      // Another account's request does not count; the token's own does: down by 1.
      ["key_x", 40, '"account";r=10;t=50'],
      ["tok_o", 50, '"account";r=97;t=49'],
      // A credential that never asked whoami: its answers not read, its request may have counted.
      ["key_n", 60, '"account";r=900;t=60'],
      ["key_a", 70, '"account";r=95;t=49'],
      // A new window (its reset further away), then more time passed (the clock moved) than was left: not compared.
      ["key_b", 80, '"account";r=300;t=60'],
      ["key_a", 90, '"account";r=310;t=1', 59],
    ]);
    expect(w.findings()).toEqual([{ rule: "LIM-1", held: true }]);
    // A fresh key of the account sees a fuller window (up by 100), then key_a's next answer is 98 lower with one request of the account (and one of another account's key).
    w.exchange(whoami("key_c", 2_000, "acc_a"), how);
    send([
      ["key_a", 2_010, '"account";r=150;t=40', 59],
      ["key_c", 2_020, '"account";r=250;t=40', 59],
      ["key_x", 2_025, undefined, 59],
      ["key_a", 2_030, '"account";r=152;t=40', 59],
    ]);
    const found = w.findings();
    expect(found.map((f) => (f.held ? "held" : f.message))).toEqual([
      expect.stringMatching(/^the account window of acc_a went up within one window, from r=150 \(t=40\) to r=250 \(t=40\) 0\.0 s later/),
      expect.stringMatching(/^the account window of acc_a went down by 98 between two of its answers \(r=250, then r=152 0\.0 s later, the same window\), but only 1 request\(s\) of the account's credentials/),
    ]);
    expect(found[0]!.cite?.steps?.map((s) => s.step)).toEqual(["r=150", "r=250"]);
    // Neither a token nor its digest is in the findings.
    expect(JSON.stringify(found)).not.toMatch(/key_[a-z]|sid=/);
    // A reset of the target starts its windows anew: a fuller window after it is not compared with one before.
    w.exchange({ ...answer("POST", "/_sim/reset", {}), status: 204 }, { ...how, bare: true });
    w.exchange(whoami("key_c", 3_000, "acc_a"), how);
    send([["key_c", 3_010, '"account";r=599;t=40', 59]]);
    expect(w.findings()).toHaveLength(2);
  });

  it("LIM-1: the account window's watch keeps the latest 1,000 requests: a pair is judged before one of its requests is forgotten, and a pair whose requests were forgotten is not judged", () => {
    const w = invariant("the account's window is one ceiling over all its keys").watch();
    const at = Date.parse("2026-11-28T12:00:00Z");
    const how = { rule: "LIM-1", bare: false, elapsedSeconds: 0 };
    const key = (token: string, ms: number, window?: string, path?: string, json?: unknown) => windowAnswer({ Authorization: `Bearer ${token}` }, at + ms, window, 1, path, json);
    w.exchange(key("key_a", 0, undefined, "/v1/whoami", { user_id: "acc_a" }), how);
    w.exchange(key("key_x", 0, undefined, "/v1/whoami", { user_id: "acc_x" }), how);
    const others = (from: number) => {
      for (let i = 0; i < 1_000; i++) w.exchange(key("key_x", from + i * 2), how);
    };
    // Down by 50 with one request, then another account's 1,000: judged as the pair's first request is forgotten.
    w.exchange(key("key_a", 10, '"account";r=100;t=50'), how);
    w.exchange(key("key_a", 20, '"account";r=50;t=50'), how);
    others(30);
    expect(w.findings().map((f) => (f.held ? "held" : f.message))).toEqual([expect.stringMatching(/^the account window of acc_a went down by 50 .*but only 1 request\(s\)/)]);
    // A pair whose first answer's request is forgotten by its second: not judged.
    w.exchange(key("key_a", 3_000, '"account";r=40;t=45'), how);
    others(3_010);
    w.exchange(key("key_a", 5_100, '"account";r=10;t=44'), how);
    expect(w.findings()).toHaveLength(1);
  });

  it("LIM-1: the default run against the simulator whose account ceiling binds (twice a key's window) fails nothing, and judges the account window", { timeout: 90_000 }, async () => {
    const sim = await startSim(ACCOUNT_CEILING_BINDS);
    const w = invariant("the account's window is one ceiling over all its keys").watch();
    const report = await runFull(sim, sim.url, {}, { trace: w }).finally(() => sim.close());
    expect(report.errors, explain(report)).toEqual([]);
    expect(failing(report), explain(report)).toEqual([]);
    expect(w.findings()).toEqual([{ rule: "LIM-1", held: true }]);
  });

  for (const d of INVARIANT_DOUBLES) {
    // Concurrent: each has a simulator of its own, and the file stays quick.
    it.concurrent(`${d.rule}: the default run fails a server that ${d.title}, by the invariant "${d.invariant}"`, { timeout: 90_000 }, async () => {
      // The whole default run: the bug shows only across answers that several checks make.
      const sim = await startSim(d.simulator);
      const proxy = await startProxy(sim.url, d.make(sim));
      const report = await runFull(sim, proxy.url).finally(async () => {
        await proxy.close();
        await sim.close();
      });
      expect(report.errors, explain(report)).toEqual([]);
      expect(failing(report), explain(report)).toEqual([d.rule]);
      const row = report.rows.find((r) => r.id === d.rule)!;
      expect(row.failures.length).toBeGreaterThan(0);
      // The invariant's own wording is among them; where no probe meets the bug, it is all of them.
      expect(row.failures.some((f) => d.says.test(f.message)), explain(report)).toBe(true);
      if (d.probesMiss) for (const f of row.failures) expect(f.message, explain(report)).toMatch(d.says);
    });
  }
});
