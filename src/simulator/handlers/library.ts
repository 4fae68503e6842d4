// Library routes: assets (list, content, title) and folders (list, create, change,
// delete), and the move. None spends credits; another account's ids answer 404 exactly
// like missing ones (the messages never name the id).
//
// Simulator conventions (the seed does not show these bodies):
//   PATCH asset      any JSON object; a string `title` in it becomes the title; 200 with the asset record
//   POST folder      201 with the folder record
//   PATCH folder     200 with the folder record
//   DELETE folder    200 { id, deleted: true, moved_to_root: <number of items now at the root> }
//   POST move        200 { folder_id, item_ids, moved: <number of items whose folder changed> }
import { schemaValidator, toDetails } from "../../contract/validator.ts";
import { baseHeaders, isRefusal, json, readJson, type Ctx, type Handler } from "../pipeline/context.ts";
import { refuse, type Refusal } from "../domain/refusal.ts";
import { assetRecord, assetsOf, folderLimit, folderRecord, foldersOf, isShown, itemCounts, ownAsset } from "../domain/library.ts";
import { FOLDER_NAME_MAX, sameName, type Folder } from "../state/library.ts";
import { newestFirst } from "../pipeline/listing.ts";

const noAsset = () => refuse("not_found", { message: "No such library asset." });
const noFolder = () => refuse("not_found", { message: "No such library folder." });

function validated(ctx: Ctx, schemaName: string): Record<string, unknown> | Refusal {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const validate = schemaValidator(schemaName);
  if (!validate(parsed.value)) return refuse("invalid_request", { details: toDetails(validate.errors) });
  return parsed.value as Record<string, unknown>;
}

function nameRefusal(name: string): Refusal | undefined {
  const length = name.trim().length;
  if (length === 0 || length > FOLDER_NAME_MAX) {
    return refuse("invalid_request", { details: [{ field: "name", reason: "out_of_range", message: `name must have 1 to ${FOLDER_NAME_MAX} characters besides surrounding spaces` }] });
  }
  return undefined;
}

function taken(folders: readonly Folder[], name: string, except?: Folder): Refusal | undefined {
  return folders.some((f) => f !== except && sameName(f.name, name))
    ? refuse("folder_name_taken", { message: "A folder with this name already exists." })
    : undefined;
}

const listLibraryAssets: Handler = (ctx) => {
  const hub = ctx.hub;
  const page = newestFirst(ctx, assetsOf(hub, ctx.account!.id), (a) => isShown(hub, a));
  if (isRefusal(page)) return page;
  return json(ctx, 200, { data: page.items.map((a) => assetRecord(a, ctx.baseUrl)), next_cursor: page.next_cursor });
};

const readLibraryAssetContent: Handler = (ctx) => {
  const asset = ownAsset(ctx.hub, ctx.account!.id, ctx.params.id!);
  if (!asset) return noAsset();
  const ext = asset.content_type.split("/")[1]!.replace("jpeg", "jpg");
  return {
    kind: "body",
    status: 200,
    headers: { ...baseHeaders(ctx), "content-type": asset.content_type, "content-disposition": `inline; filename="${asset.id}.${ext}"` },
    body: asset.bytes,
  };
};

// The same convention as the generation's title change.
const changeLibraryAssetTitle: Handler = (ctx) => {
  const parsed = readJson(ctx);
  if (isRefusal(parsed)) return parsed;
  const body = parsed.value;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return refuse("invalid_request", { details: [{ reason: "wrong_type", message: "the body must be a JSON object" }] });
  }
  const asset = ownAsset(ctx.hub, ctx.account!.id, ctx.params.id!);
  if (!asset) return noAsset();
  const title = (body as Record<string, unknown>).title;
  if (typeof title === "string") asset.title = title;
  return json(ctx, 200, assetRecord(asset, ctx.baseUrl));
};

const listLibraryFolders: Handler = (ctx) => {
  const folders = foldersOf(ctx.hub, ctx.account!.id);
  const counts = itemCounts(ctx.hub, ctx.account!.id);
  return json(ctx, 200, { data: folders.map((f, i) => folderRecord(ctx.hub, f, i, counts)), next_cursor: null });
};

const createLibraryFolder: Handler = (ctx) => {
  const body = validated(ctx, "FolderCreateRequest");
  if (isRefusal(body)) return body;
  const name = body.name as string;
  const bad = nameRefusal(name);
  if (bad) return bad;
  const hub = ctx.hub;
  const folders = foldersOf(hub, ctx.account!.id);
  const max = folderLimit(hub);
  if (folders.length >= max) return refuse("folder_limit_reached", { message: `This account already holds ${max} folders, the most it may hold.` });
  const conflict = taken(folders, name);
  if (conflict) return conflict;
  const now = hub.clock.now();
  const folder: Folder = { id: hub.ids.next("fld_", now), account_id: ctx.account!.id, name, created_at: now };
  folders.push(folder);
  return json(ctx, 201, folderRecord(hub, folder, folders.length - 1));
};

const changeLibraryFolder: Handler = (ctx) => {
  const body = validated(ctx, "FolderUpdateRequest");
  if (isRefusal(body)) return body;
  const folders = foldersOf(ctx.hub, ctx.account!.id);
  const folder = folders.find((f) => f.id === ctx.params.id);
  if (!folder) return noFolder();
  if (typeof body.name === "string") {
    const bad = nameRefusal(body.name) ?? taken(folders, body.name, folder);
    if (bad) return bad;
  }
  if (typeof body.position === "number" && (body.position < 0 || body.position >= folders.length)) {
    return refuse("invalid_request", { details: [{ field: "position", reason: "out_of_range", message: `position must be between 0 and ${folders.length - 1}` }] });
  }
  if (typeof body.name === "string") folder.name = body.name;
  if (typeof body.position === "number") {
    folders.splice(folders.indexOf(folder), 1);
    folders.splice(body.position, 0, folder);
  }
  return json(ctx, 200, folderRecord(ctx.hub, folder, folders.indexOf(folder)));
};

// Deletes the folder only: what it held returns to the root.
const deleteLibraryFolder: Handler = (ctx) => {
  const folders = foldersOf(ctx.hub, ctx.account!.id);
  const at = folders.findIndex((f) => f.id === ctx.params.id);
  if (at < 0) return noFolder();
  const [folder] = folders.splice(at, 1);
  let moved = 0;
  for (const a of assetsOf(ctx.hub, ctx.account!.id) ?? []) {
    if (a.folder_id === folder!.id && ctx.hub.state.library.assets.get(a.id) === a) {
      a.folder_id = null;
      moved++;
    }
  }
  return json(ctx, 200, { id: folder!.id, deleted: true, moved_to_root: moved });
};

// All or nothing: an unknown item or folder answers 404 and nothing moves.
const moveLibraryItems: Handler = (ctx) => {
  const body = validated(ctx, "LibraryMoveRequest");
  if (isRefusal(body)) return body;
  const accountId = ctx.account!.id;
  const folderId = body.folder_id as string | null;
  if (folderId !== null && !foldersOf(ctx.hub, accountId).some((f) => f.id === folderId)) return noFolder();
  const ids = [...new Set(body.item_ids as string[])];
  const assets = [];
  for (const id of ids) {
    const asset = ownAsset(ctx.hub, accountId, id);
    if (!asset) return noAsset();
    assets.push(asset);
  }
  let moved = 0;
  for (const a of assets) {
    if (a.folder_id !== folderId) moved++;
    a.folder_id = folderId;
  }
  return json(ctx, 200, { folder_id: folderId, item_ids: ids, moved });
};

export const libraryHandlers = {
  listLibraryAssets,
  readLibraryAssetContent,
  changeLibraryAssetTitle,
  listLibraryFolders,
  createLibraryFolder,
  changeLibraryFolder,
  deleteLibraryFolder,
  moveLibraryItems,
};
