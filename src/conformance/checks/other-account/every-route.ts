// Another account's ids answer exactly like missing ones on every route that takes an id
// (`--other-api-key`): the second account's key asks for this account's objects, and for
// ids nobody has, by the same request otherwise; status, code, body shape and message
// (the ids put aside) must be the same, and a batch read must leave the object out. The
// second key is pointed at this account's objects, so a server that leaks changes only
// objects of this run: writes touch only what the run made (its generations, its
// uploaded file, a folder the sweep creates and deletes).
import { judgeForeign } from "../../kit/answers.ts";
import { ASSETS, bodyWith, FOLDERS, GENERATIONS, idRoutes, type IdRoute } from "../../kit/objects.ts";
import type { Sequence } from "../../kit/sequence.ts";
import { begin, knownWith, propertyWalk, replayOf, seedOf, selected, type Walk } from "../../kit/walk.ts";
import { KNOWN_FACTS } from "../../kit/known.ts";
import { randomToken, fakeIds } from "../../kit/ids.ts";
import { operationLabel } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

/** The rule an answer that gives another account's object away breaks, by operation (the seed's own for the route, else W-8). */
const FOREIGN_RULE: Readonly<Record<string, string>> = {
  readGeneration: "GEN-9",
  reportGeneration: "REP-7",
  downloadGenerationOutput: "GEN-5",
  readLibraryAssetContent: "LIB-7",
  changeLibraryAssetTitle: "LIB-7",
  changeLibraryFolder: "LIB-7",
  deleteLibraryFolder: "LIB-7",
  moveLibraryItems: "LIB-7",
};

export const FOREIGN_RULES = ["W-8", ...new Set(Object.values(FOREIGN_RULE))];

const isRead = (r: IdRoute) => r.operation.method === "get" || r.operation.operationId === "readGenerationStatuses";

export async function foreignSweep(w: Walk): Promise<void> {
  const { c } = w;
  if (![GENERATIONS, ASSETS, FOLDERS].some((kind) => idRoutes(kind).some((r) => selected(w, r.operation.operationId)))) return;
  const other = c.known("secondAccount")?.key;
  const seq = begin(w, "another account: every route that takes an id", "readGeneration", FOREIGN_RULES, Boolean(other), "needs a second account's key (--other-api-key)");
  if (!seq) return;
  let folder: string | undefined;
  try {
    // This account's objects: any for reads, only the run's own for writes.
    const own = c.known("ownGenerations") ?? [];
    const read = own.find((g) => typeof g.id === "string")?.id as string | undefined;
    const made = c.known("created").find((g) => typeof g.id === "string" && g.id !== undefined)?.id as string | undefined;
    const done = own.find((g) => Array.isArray(g.output_urls) && g.output_urls.length > 0);
    const output = done ? c.target.pathOf(String(done.output_urls[0])) : undefined;
    const uploaded = c.known("uploads").find((u) => u.assetId)?.assetId;
    const assets = await c.get("/v1/library/assets?limit=1", "LIB-7");
    const anyAsset = uploaded ?? (assets.json?.data?.[0]?.id as string | undefined);
    if (c.settings.writes && idRoutes(FOLDERS).some((r) => selected(w, r.operation.operationId))) folder = await ownFolder(seq);
    const objects: [string, string | undefined, string | undefined][] = [
      [GENERATIONS, read, made],
      [ASSETS, anyAsset, uploaded],
      [FOLDERS, undefined, folder],
    ];
    for (const [kind, readId, writeId] of objects) {
      // Deletes last: a delete that leaks would take the object from the routes after it.
      const routes = idRoutes(kind).filter((r) => selected(w, r.operation.operationId)).sort((a, b) => Number(a.operation.method === "delete") - Number(b.operation.method === "delete"));
      for (const r of routes) {
        const ruleId = FOREIGN_RULE[r.operation.operationId] ?? "W-8";
        const route = seq.branch(replayOf(w, r.operation.operationId));
        const what = `${operationLabel(r.operation)} (${r.via})`;
        const id = isRead(r) ? readId : c.settings.writes ? writeId : undefined;
        if (!id) {
          seq.skip([ruleId], `${what} not tried: ${isRead(r) ? "the account has no such object" : c.settings.writes ? "the run made no such object" : "needs --allow-writes"}`);
          continue;
        }
        if (!r.template) {
          if (!output || !done) seq.skip([ruleId], `${what} not tried: no DONE generation with output_urls in the account`);
          else await compare(route, ruleId, what, String(done.id), (x) => ({ method: "GET", path: output.replace(String(done.id), encodeURIComponent(x)) }));
          continue;
        }
        const template = r.template;
        await compare(route, ruleId, what, id, (x) => {
          const t = template(x);
          const op = r.operation;
          // The object addressed, where a valid body's plan needs one (a folder's change).
          const known = knownWith(w, { createdIds: [x], ...(kind === FOLDERS ? { folderId: x } : {}) });
          const body = op.op.requestBody ? (bodyWith(op.operationId, known, seedOf(w, `foreign ${op.operationId}`), t.body) ?? {}) : undefined;
          return { method: op.method.toUpperCase(), path: t.path, ...(body !== undefined ? { json: body } : {}) };
        });
      }
    }
  } finally {
    if (folder) await c.request({ method: "DELETE", path: `/v1/library/folders/${encodeURIComponent(folder)}`, rule: "LIB-7" });
    seq.done();
  }

  /** The same request with the second key, for an id nobody has and for this account's `id`. */
  async function compare(s: Sequence, ruleId: string, what: string, id: string, make: (id: string) => { method: string; path: string; json?: unknown }): Promise<void> {
    const missing = fakeIds(1)[0]!;
    const a = await s.send(`${what}, an id nobody has, with the second account's key`, { ...make(missing), key: other!, rule: ruleId });
    const b = await s.send(`${what}, this account's ${id}, with the second account's key`, { ...make(id), key: other!, rule: ruleId });
    judgeForeign(s, ruleId, b, a, [id, missing], what);
  }
}

/** A folder of the sweep's own (the create reply is not shown: found by name), deleted at the end. */
async function ownFolder(seq: Sequence): Promise<string | undefined> {
  const name = `conformance-gen other-account ${randomToken()}`;
  const made = await seq.send("createLibraryFolder (this account's folder to probe)", { method: "POST", path: "/v1/library/folders", json: { name }, rule: "LIB-7" });
  if (made.status >= 300) return undefined;
  const list = await seq.c.get("/v1/library/folders", "LIB-7");
  const found = Array.isArray(list.json?.data) ? list.json.data.find((f: any) => f?.name === name) : undefined;
  return typeof found?.id === "string" ? found.id : undefined;
}

export const anotherAccountEveryRoute: Check = {
  name: "another account's ids on every route that takes one",
  rules: FOREIGN_RULES,
  needs: { uses: ["secondAccount", ...KNOWN_FACTS] },
  run: (c) => foreignSweep(propertyWalk(c, FOREIGN_RULES)),
};
