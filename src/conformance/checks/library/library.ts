// The library's writes (`--allow-writes`: they spend no credits): folders (create, the
// name conflict, rename and reorder, delete to the root), moving an uploaded asset in and
// out of a folder, another account's ids answering exactly like missing ones, and no
// credit moved. The suite works on folders of its own (uniquely named) and deletes them;
// the file it moves is the one the uploads check wrote.
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { randomToken } from "../../kit/ids.ts";
import { likeMissing } from "../../kit/answers.ts";
import { errorCodeOf, type Exchange, succeeded } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const RULES = ["LIB-3", "LIB-4", "LIB-5", "LIB-6", "LIB-7", "LIB-2", "PAGE-6"];

type Folder = Record<string, any>;

async function listFolders(c: CheckContext, rule: string, key?: string): Promise<{ ex: Exchange; list?: Folder[] }> {
  const ex = await c.get("/v1/library/folders", rule, key ? { key } : {});
  return { ex, list: ex.status === 200 && Array.isArray(ex.json?.data) ? ex.json.data : undefined };
}

async function findAsset(c: CheckContext, id: string, rule: string): Promise<{ ex: Exchange; asset?: Record<string, any> }> {
  const ex = await c.get("/v1/library/assets?limit=100", rule);
  const asset = Array.isArray(ex.json?.data) ? ex.json.data.find((a: any) => String(a.id) === id) : undefined;
  return { ex, asset };
}


function path(id: string): string {
  return `/v1/library/folders/${encodeURIComponent(id)}`;
}

export const library: Check = {
  name: "library: folders, moves, another account's ids",
  rules: RULES,
  needs: { writes: true, uses: ["uploads", "secondAccount"] },
  provides: ["gone"],
  // It moves the run's file into folders it deletes (a server that deletes the contents with a folder takes the file).
  alters: ["uploads"],
  async run(c) {
    const first = await listFolders(c, "PAGE-6");
    if (c.unavailable(first.ex, RULES)) return;
    if (!first.list) {
      c.fail("LIB-2", `GET /v1/library/folders answered ${first.ex.status} ${errorCodeOf(first.ex.json) ?? ""}`, first.ex);
      return;
    }
    const money = await moneyOf(c, "LIB-7");
    const token = randomToken();
    const nameA = `Conformance ${token} A`;
    const nameB = `Conformance ${token} B`;
    const created: string[] = [];
    try {
      const a = await createFolder(c, nameA);
      if (!a) return;
      created.push(String(a.id));
      const again = await c.post("/v1/library/folders", { name: nameA }, "LIB-3");
      c.refusal(again, "folder_name_taken", "LIB-3", "a second folder with the same name");
      c.skip(["LIB-3"], "folder_limit_reached not provoked: the maximum is not shown, reaching it would mean creating folders up to an unknown number");
      const b = await createFolder(c, nameB);
      if (!b) return;
      created.push(String(b.id));

      // Rename: the same conflict rule; then a free name, then a new position.
      const clash = await c.request({ method: "PATCH", path: path(b.id), json: { name: nameA }, rule: "LIB-4" });
      c.refusal(clash, "folder_name_taken", "LIB-4", "renaming a folder to another folder's name");
      const renamed = `${nameB} renamed`;
      const rename = await c.request({ method: "PATCH", path: path(b.id), json: { name: renamed }, rule: "LIB-4" });
      if (c.expect(succeeded(rename), "LIB-4", `renaming a folder answered ${rename.status} ${errorCodeOf(rename.json) ?? ""}`, rename)) {
        const { list, ex } = await listFolders(c, "LIB-4");
        const now = list?.find((f) => f.id === b.id);
        c.expect(now?.name === renamed, "LIB-4", `after the rename the folder is listed as ${JSON.stringify(now?.name)}, not ${JSON.stringify(renamed)}`, ex);
      }
      const { list: before } = await listFolders(c, "LIB-4");
      const target = before?.find((f) => f.id === a.id)?.position;
      if (Number.isInteger(target)) {
        const move = await c.request({ method: "PATCH", path: path(b.id), json: { position: target }, rule: "LIB-4" });
        if (c.expect(succeeded(move), "LIB-4", `moving a folder to position ${target} answered ${move.status} ${errorCodeOf(move.json) ?? ""}`, move)) {
          const { list, ex } = await listFolders(c, "LIB-4");
          const now = list?.find((f) => f.id === b.id);
          c.expect(now?.position === target, "LIB-4", `after asking for position ${target} the folder is at ${JSON.stringify(now?.position)}`, ex);
        }
      }

      const item = c.known("uploads").find((u) => u.assetId)?.assetId;
      if (!item) c.skip(["LIB-5", "LIB-6"], "no uploaded asset of this run to move (the uploads check wrote none)");
      else await items(c, item, String(a.id), String(b.id), created);

      await foreign(c, String(b.id), item);
    } finally {
      for (const id of created) {
        const ex = await c.request({ method: "DELETE", path: path(id), rule: "LIB-5" });
        // Already gone (another account's refused delete that was not refused): LIB-7 says so.
        if (ex.status !== 404) c.expect(succeeded(ex), "LIB-5", `deleting the suite's folder ${id} answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
        if (succeeded(ex) && !c.known("gone").some((g) => g.kind === "library/folders")) c.add("gone", { kind: "library/folders", id, rule: "LIB-5", why: "its delete" });
      }
      if (created.length > 0) {
        const { list, ex } = await listFolders(c, "LIB-5");
        const left = list?.filter((f) => created.includes(String(f.id))) ?? [];
        c.expect(left.length === 0, "LIB-5", `deleted folders are still listed: ${left.map((f) => f.id).join(", ")}`, ex);
        await nameFreed(c, nameA);
      }
    }
    sameMoney(c, "LIB-7", money, await moneyOf(c, "LIB-7"), "library writes");
  },
};

/**
 * `folder_name_taken` is for a name a folder has: once the folder that had it is deleted,
 * a new folder may take it (the new one is deleted again).
 */
async function nameFreed(c: CheckContext, name: string): Promise<void> {
  const { list } = await listFolders(c, "LIB-3");
  if (!list || list.some((f) => f.name === name)) return;
  const ex = await c.post("/v1/library/folders", { name }, "LIB-3");
  if (ex.status === 409 && errorCodeOf(ex.json) === "folder_limit_reached") return;
  if (!c.expect(succeeded(ex), "LIB-3", `a new folder named like a deleted one (${JSON.stringify(name)}) answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}: the name is no folder's any more`, ex)) return;
  const { list: now } = await listFolders(c, "LIB-3");
  for (const f of now?.filter((x) => x.name === name) ?? []) await c.request({ method: "DELETE", path: path(String(f.id)), rule: "LIB-3" });
}

/** Creates a folder and finds it in the list by its (unique) name. */
async function createFolder(c: CheckContext, name: string): Promise<Folder | undefined> {
  const ex = await c.post("/v1/library/folders", { name }, "LIB-3");
  if (ex.status === 409 && errorCodeOf(ex.json) === "folder_limit_reached") {
    c.skip(RULES, "the account holds the maximum number of folders (409 folder_limit_reached): no folder could be created to work on");
    c.pass("LIB-3", "folder_limit_reached answered at the account's maximum");
    return undefined;
  }
  if (!c.expect(succeeded(ex), "LIB-3", `creating a folder answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex)) return undefined;
  const { list, ex: read } = await listFolders(c, "LIB-3");
  const found = list?.filter((f) => f.name === name) ?? [];
  if (!c.expect(found.length === 1, "LIB-3", `the new folder ${JSON.stringify(name)} is listed ${found.length} times`, read)) return undefined;
  c.pass("PAGE-6", "a new folder is in the list at once (all folders, never paged)");
  return found[0];
}

/** Into a folder, to the root (`folder_id: null`), into a folder that is then deleted. */
async function items(c: CheckContext, item: string, folderA: string, folderB: string, created: string[]): Promise<void> {
  const moveTo = async (folder: string | null) => {
    const ex = await c.post("/v1/library/move", { item_ids: [item], folder_id: folder }, "LIB-6");
    if (!c.expect(succeeded(ex), "LIB-6", `moving an asset to ${folder ?? "the root"} answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex)) return false;
    const { asset, ex: read } = await findAsset(c, item, "LIB-6");
    return c.expect(asset !== undefined && (asset.folder_id ?? null) === folder, "LIB-6", `after moving it to ${folder ?? "the root"} the asset's folder_id is ${JSON.stringify(asset?.folder_id)}`, read);
  };
  if (!(await moveTo(folderB))) return;
  if (!(await moveTo(null))) return;
  if (!(await moveTo(folderA))) return;

  // Deleting the folder deletes only the folder: its contents return to the root.
  const del = await c.request({ method: "DELETE", path: path(folderA), rule: "LIB-5" });
  if (!c.expect(succeeded(del), "LIB-5", `deleting a folder answered ${del.status} ${errorCodeOf(del.json) ?? ""}`, del)) return;
  created.splice(created.indexOf(folderA), 1);
  // Every route that takes the folder's id, after the checks below (the move with this asset, so that only the folder's absence can refuse it).
  c.add("gone", { kind: "library/folders", id: folderA, rule: "LIB-5", why: "its delete", bodies: { moveLibraryItems: { item_ids: [item], folder_id: folderA } } });
  const { list, ex: read } = await listFolders(c, "LIB-5");
  c.expect(list !== undefined && !list.some((f) => f.id === folderA) && list.some((f) => f.id === folderB), "LIB-5", "after deleting one folder the list does not show exactly the other one of the suite's two", read);
  const { asset, ex } = await findAsset(c, item, "LIB-5");
  if (c.expect(asset !== undefined, "LIB-5", `the asset ${item} that was in the deleted folder is no longer in the library`, ex)) {
    c.expect((asset!.folder_id ?? null) === null, "LIB-5", `the asset of the deleted folder has folder_id ${JSON.stringify(asset!.folder_id)}, not the root (null)`, ex);
  }
  const file = await c.get(`/v1/library/assets/${encodeURIComponent(item)}/content`, "LIB-5", { headersOnly: true });
  c.expect(file.status === 200, "LIB-5", `the content of the asset of the deleted folder answered ${file.status}`, file);
}

/** Another account's folder and asset ids answer exactly like missing ones, and change nothing. */
async function foreign(c: CheckContext, folder: string, item: string | undefined): Promise<void> {
  const other = c.known("secondAccount")?.key;
  if (!other) {
    c.skip(["LIB-7"], "another account's ids not tried (no --other-api-key)");
    return;
  }
  const missing = `conformance-missing-${randomToken()}`;
  const pairs: [string, (id: string, key?: string) => Promise<Exchange>][] = [
    ["PATCH /v1/library/folders/{id}", (id, key) => c.request({ method: "PATCH", path: path(id), json: { name: `Conformance ${randomToken()}` }, rule: "LIB-7", ...(key ? { key } : {}) })],
    ["DELETE /v1/library/folders/{id}", (id, key) => c.request({ method: "DELETE", path: path(id), rule: "LIB-7", ...(key ? { key } : {}) })],
  ];
  if (item) {
    pairs.push(["GET /v1/library/assets/{id}/content", (id, key) => c.get(`/v1/library/assets/${encodeURIComponent(id)}/content`, "LIB-7", key ? { key } : {})]);
    pairs.push(["POST /v1/library/move (item_ids)", (id, key) => c.post("/v1/library/move", { item_ids: [id], folder_id: null }, "LIB-7", key ? { key } : {})]);
  }
  for (const [what, call] of pairs) {
    const isFolder = what.includes("folders");
    const id = isFolder ? folder : item!;
    const miss = await call(missing, other);
    const ex = await call(id, other);
    likeMissing(c, "LIB-7", ex, miss, [id, missing], what);
  }
  // This account moving its asset into the other account's folder: refused like a missing folder.
  const theirs = (await listFolders(c, "LIB-7", other)).list?.[0];
  if (item && !theirs) c.skip(["LIB-7"], "the second account has no folder: a move into another account's folder not tried");
  if (item && theirs) {
    const ex = await c.post("/v1/library/move", { item_ids: [item], folder_id: theirs.id }, "LIB-7");
    const miss = await c.post("/v1/library/move", { item_ids: [item], folder_id: missing }, "LIB-7");
    likeMissing(c, "LIB-7", ex, miss, [String(theirs.id), missing], "POST /v1/library/move (folder_id of another account)");
  }
  // Nothing changed: the folder is still there under its name, the asset where it was.
  const { list, ex } = await listFolders(c, "LIB-7");
  c.expect(list?.some((f) => f.id === folder) === true, "LIB-7", `the folder ${folder} is gone after another account's refused writes`, ex);
}
