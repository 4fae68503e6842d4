// The objects' lives along the contract's links, as RESTler and Schemathesis' stateful
// mode walk them: create from a valid generated body, follow every link the answers
// carry (the ids taken from the answers, a link's body template merged into a valid
// generated body), delete through the public routes, then hold every route that takes
// the id to the seed: an object that is gone answers 404 `not_found`, never 2xx.
//
// Deletes through public routes only: a folder (`DELETE /v1/library/folders/{id}`) and a
// generation revoked by a `moderation` report. The seed shows no public route that
// cancels or deletes a generation ("The path and method of the cancel/delete operation
// for a generation: not shown"), and no delete of a library asset.
import type { Json } from "../../../contract/index.ts";
import type { EventStream } from "../../target/stream.ts";
import { linksOf, follow, type Link } from "../../kit/links.ts";
import { goneEverywhere, lists } from "../../kit/gone.ts";
import { bodyWith, FOLDERS, GENERATIONS, validBodies } from "../../kit/objects.ts";
import { answered, type Sequence } from "../../kit/sequence.ts";
import { begin, knownWith, seedOf, selected, sequence, type Walk } from "../../kit/walk.ts";
import { randomToken } from "../../kit/ids.ts";
import { errorCodeOf, said, type Exchange, succeeded } from "../../target/exchange.ts";

export const GENERATION_RULES = ["GEN-2", "BATCH-1", "EVT-11", "REP-3"];
export const FOLDER_RULES = ["LIB-3", "LIB-4", "LIB-5"];
export const READ_RULES = ["GEN-2", "BATCH-1", "LIB-1", "LIB-6"];


/** Sends what a link makes of an answer (a valid generated body with its template merged in). */
async function along(seq: Sequence, w: Walk, link: Link, source: Exchange, item: number | undefined, body?: unknown, extra: { binary?: boolean; headersOnly?: boolean } = {}): Promise<Exchange | undefined> {
  const linked = follow(link, answered(source), item);
  if (linked.missing) {
    seq.fail(rule(link.operationId), `link ${link.name}: the answer gives no ${linked.missing} to follow it with`, source);
    return undefined;
  }
  const json = body ?? bodyWith(link.operationId, w.known, seedOf(w, link.name), linked.body);
  return seq.send(`${link.operationId} (link ${link.name})`, { method: linked.operation.method.toUpperCase(), path: linked.path, ...(json !== undefined ? { json } : {}), rule: rule(link.operationId), ...extra });
}

/** The rule a link's target is held to when it is followed. */
function rule(operationId: string): string {
  return { readGeneration: "GEN-2", readGenerationStatuses: "BATCH-1", readLibraryAssetContent: "LIB-1", moveLibraryItems: "LIB-6", changeLibraryFolder: "LIB-4", deleteLibraryFolder: "LIB-5", reportGeneration: "REP-3" }[operationId] ?? "GEN-2";
}

/** A read along a link answers 2xx with the linked object. */
function readsIt(seq: Sequence, link: Link, ex: Exchange | undefined, id: string): void {
  if (!ex) return;
  const binary = ex.operation?.operationId === "readLibraryAssetContent";
  seq.expect(succeeded(ex) && (binary || lists(ex, id)), rule(link.operationId), `link ${link.name} to ${id} answered ${said(ex)}${succeeded(ex) ? " without the object" : ""}`, ex);
}

/**
 * Every route that takes the id of a gone object, then its list (goneEverywhere), with
 * generated bodies: `accepted` holds bodies the server took for the object before (sent
 * again, so that only the object's absence can refuse them).
 */
async function gone(seq: Sequence, w: Walk, kind: string, id: string, ruleId: string, why: string, outputs: string[] = [], accepted = new Map<string, unknown>()): Promise<void> {
  await goneEverywhere(seq, kind, id, ruleId, why, {
    outputs,
    body: (op, template) => (accepted.get(op.operationId) as Json | undefined) ?? bodyWith(op.operationId, knownWith(w, { createdIds: [id], folderId: id }), seedOf(w, `${why} ${op.operationId}`), template),
  });
}

/** A generation: submit, the links of its 202, a `moderation` report (the link ReportGeneration), then gone. */
export async function generationLife(w: Walk): Promise<void> {
  const { c } = w;
  if (!selected(w, "submitGeneration")) return;
  const seq = begin(w, "generation: submit, its links, a moderation report, then gone", "submitGeneration", GENERATION_RULES, c.settings.spend, "needs --allow-spend (it submits a generation)");
  if (!seq) return;
  // The link FollowGenerations: the stream is opened first, the creation is its first event.
  const opened = await c.target.openStream({ rule: "EVT-11" }, {});
  seq.record("streamGenerationEvents (link FollowGenerations, opened before the submit)", opened.exchange);
  try {
    await generation(seq, w, opened);
  } finally {
    opened.stream?.close();
    seq.done();
  }
}

async function generation(seq: Sequence, w: Walk, opened: { stream?: EventStream; exchange: Exchange }): Promise<void> {
  const { c } = w;
  const stream = opened.stream;
  const seed = seedOf(w, "generation");
  // The cheapest body the server priced first (the walk spends as little as it can), then generated valid bodies.
  const cheapest = c.known("priced")?.[0];
  const candidates = [...(cheapest ? [cheapest.body] : []), ...validBodies("submitGeneration", w.known, seed, 4)].slice(0, 6);
  let created: Exchange | undefined;
  for (const [i, body] of candidates.entries()) {
    const ex = await c.request({ method: "POST", path: "/v1/generations", json: body, headers: { "idempotency-key": `conformance-walk-${w.seed}-${i}-${randomToken()}` }, rule: "SUB-1" });
    if (succeeded(ex) && typeof ex.json?.id === "string") {
      created = ex;
      break;
    }
  }
  if (!created) {
    seq.skip(GENERATION_RULES, `no submit was accepted (${candidates.length} valid bodies tried)`);
    return;
  }
  seq.record("submitGeneration", created);
  const id = String(created.json.id);
  let status = String(created.json.status);
  let outputs: string[] = [];
  let report: Link | undefined;
  const followed = new Set<string>();
  for (const link of linksOf("submitGeneration", created.status)) {
    if (followed.has(link.operationId)) continue;
    followed.add(link.operationId);
    switch (link.operationId) {
      case "streamGenerationEvents": {
        if (!stream) {
          seq.note("EVT-11", `link ${link.name} not followed: the event stream did not open`);
          break;
        }
        const seen = await stream.until((s) => s.frames.some((f) => f.data?.id === id), 3_000);
        seq.expect(seen, "EVT-11", `link ${link.name}: no event for the creation of ${id} came on the stream within 3 s`, opened.exchange);
        break;
      }
      case "readGeneration": {
        const ex = await along(seq, w, link, created, undefined);
        readsIt(seq, link, ex, id);
        if (ex && succeeded(ex)) {
          status = String(ex.json?.status);
          outputs = (Array.isArray(ex.json?.output_urls) ? ex.json.output_urls : []).map((u: unknown) => c.target.pathOf(String(u))).filter((p: string | undefined): p is string => Boolean(p));
        }
        break;
      }
      case "readGenerationStatuses":
        readsIt(seq, link, await along(seq, w, link, created, undefined), id);
        break;
      case "reportGeneration":
        report = link; // followed last: the report revokes it
        break;
      default:
        seq.note("GEN-2", `link ${link.name} (${link.operationId}) not followed: its body is not shown in the seed`);
    }
  }
  if (!report) return;
  if (status === "MODERATION_PENDING") {
    seq.skip(["REP-3"], `${id} is held for review: a moderation report does not revoke it (the seed's exception)`);
    return;
  }
  const body = bodyWith("reportGeneration", knownWith(w, { createdIds: [id] }), seed, { reason: "moderation" });
  const revoked = await along(seq, w, report, created, undefined, body);
  if (!revoked || !seq.expect(revoked.status === 201, "REP-3", `a moderation report (link ${report.name}) answered ${said(revoked)}, not 201`, revoked)) return;
  await gone(seq, w, GENERATIONS, id, "REP-3", "the moderation report", outputs);
}

/** A folder: create, the links of the folder list for it, delete, then gone. */
export async function folderLife(w: Walk): Promise<void> {
  const { c } = w;
  if (!selected(w, "createLibraryFolder")) return;
  const seq = begin(w, "folder: create, its links, delete, then gone", "createLibraryFolder", FOLDER_RULES, c.settings.writes, "needs --allow-writes (it creates and deletes a folder)");
  if (!seq) return;
  let id: string | undefined;
  let deleted = false;
  try {
    const seed = seedOf(w, "folder");
    // A generated name, with a token of the run (a name is unique per account).
    const generated = validBodies("createLibraryFolder", w.known, seed, 2).find((b) => typeof (b as { name?: unknown })?.name === "string") as { name: string } | undefined;
    const name = `${generated?.name ?? "conformance-gen"} ${randomToken()}`;
    const made = await seq.send("createLibraryFolder", { method: "POST", path: "/v1/library/folders", json: { ...generated, name }, rule: "LIB-3" });
    if (made.status === 409 && errorCodeOf(made.json) === "folder_limit_reached") {
      seq.skip(FOLDER_RULES, "the account holds the maximum number of folders");
      return;
    }
    if (!seq.expect(succeeded(made), "LIB-3", `creating a folder answered ${said(made)}`, made)) return;
    // The create reply is not shown: the folder is found in the list, and the list's links followed for it.
    const list = await seq.send("listLibraryFolders", { method: "GET", path: "/v1/library/folders", rule: "LIB-3" });
    const item = Array.isArray(list.json?.data) ? list.json.data.findIndex((f: any) => f?.name === name) : -1;
    if (!seq.expect(item >= 0, "LIB-3", `the new folder ${JSON.stringify(name)} is not in the folder list`, list)) return;
    id = String(list.json.data[item].id);
    const accepted = new Map<string, unknown>();
    for (const link of linksOf("listLibraryFolders", list.status)) {
      if (link.operationId === "changeLibraryFolder") {
        const renamed = `${name} renamed`;
        const ex = await along(seq, w, link, list, item, { name: renamed });
        if (!ex || !seq.expect(succeeded(ex), "LIB-4", `link ${link.name} (a new name) answered ${said(ex)}`, ex)) continue;
        accepted.set(link.operationId, { name: `${renamed} again` });
        const again = await seq.send("listLibraryFolders", { method: "GET", path: "/v1/library/folders", rule: "LIB-4" });
        const now = Array.isArray(again.json?.data) ? again.json.data.find((f: any) => f?.id === id) : undefined;
        seq.expect(now?.name === renamed, "LIB-4", `after link ${link.name} the folder is listed as ${JSON.stringify(now?.name)}, not ${JSON.stringify(renamed)}`, again);
      } else if (link.operationId === "deleteLibraryFolder") {
        const ex = await along(seq, w, link, list, item);
        if (!ex || !seq.expect(succeeded(ex), "LIB-5", `link ${link.name} answered ${said(ex)}`, ex)) continue;
        deleted = true;
        const after = await seq.send("listLibraryFolders", { method: "GET", path: "/v1/library/folders", rule: "LIB-5" });
        seq.expect(!lists(after, id), "LIB-5", `the deleted folder ${id} is still listed`, after);
        await gone(seq, w, FOLDERS, id, "LIB-5", "its delete", [], accepted);
      }
    }
  } finally {
    if (id && !deleted) await c.request({ method: "DELETE", path: `/v1/library/folders/${encodeURIComponent(id)}`, rule: "LIB-5" });
    seq.done();
  }
}

/** The reads the lists link to: the newest generation and its batch read, the library asset's content (and its move, with writes). */
export async function readLinks(w: Walk): Promise<void> {
  if (!selected(w, "listGenerations") && !selected(w, "listLibraryAssets")) return;
  const seq = sequence(w, "lists: the links of their items", selected(w, "listGenerations") ? "listGenerations" : "listLibraryAssets");
  w.runs.push(seq.run);
  try {
    if (selected(w, "listGenerations")) {
      const page = await seq.send("listGenerations", { method: "GET", path: "/v1/generations?limit=1", rule: "GEN-2" });
      const id = page.json?.data?.[0]?.id;
      if (typeof id !== "string") seq.skip(["GEN-2"], "the account holds no generation to follow a link to");
      for (const link of typeof id === "string" ? linksOf("listGenerations", page.status) : []) {
        const read = await along(seq, w, link, page, 0);
        readsIt(seq, link, read, id);
        // The read's own links that read (the batch read); the writes are walked by the generation's sequence.
        for (const next of read && succeeded(read) ? linksOf(link.operationId, read.status) : []) {
          if (next.operationId === "readGenerationStatuses") readsIt(seq, next, await along(seq, w, next, read!, undefined), id);
        }
      }
    }
    if (selected(w, "listLibraryAssets")) await assetLinks(seq, w);
  } finally {
    seq.done();
  }
}

async function assetLinks(seq: Sequence, w: Walk): Promise<void> {
  const { c } = w;
  const page = await seq.send("listLibraryAssets", { method: "GET", path: "/v1/library/assets?limit=100", rule: "LIB-1" });
  const data: any[] = Array.isArray(page.json?.data) ? page.json.data : [];
  // The run's own upload (it may be moved), else the newest asset (only read).
  const mine = c.known("uploads").map((u) => u.assetId).filter((x): x is string => Boolean(x));
  let item = data.findIndex((a) => mine.includes(String(a?.id)));
  const own = item >= 0;
  if (!own) item = data.length > 0 ? 0 : -1;
  if (item < 0) {
    seq.skip(["LIB-1", "LIB-6"], "the library holds no asset to follow a link to");
    return;
  }
  const id = String(data[item].id);
  for (const link of linksOf("listLibraryAssets", page.status)) {
    if (link.operationId === "readLibraryAssetContent") readsIt(seq, link, await along(seq, w, link, page, item, undefined, { binary: true, headersOnly: true }), id);
    else if (link.operationId === "moveLibraryItems") {
      if (!c.settings.writes || !own) {
        seq.note("LIB-6", `link ${link.name} not followed: it moves only a file this run uploaded${c.settings.writes ? "" : " (and needs --allow-writes)"}`);
        continue;
      }
      const ex = await along(seq, w, link, page, item);
      if (!ex || !seq.expect(succeeded(ex), "LIB-6", `link ${link.name} answered ${said(ex)}`, ex)) continue;
      const after = await seq.send("listLibraryAssets", { method: "GET", path: "/v1/library/assets?limit=100", rule: "LIB-6" });
      const now = Array.isArray(after.json?.data) ? after.json.data.find((a: any) => a?.id === id) : undefined;
      seq.expect((now?.folder_id ?? null) === null, "LIB-6", `after link ${link.name} the asset's folder_id is ${JSON.stringify(now?.folder_id)}, not the root (null)`, after);
    } else seq.note("LIB-1", `link ${link.name} (${link.operationId}) not followed: its body is not shown in the seed`);
  }
}
