// Uploads (`--allow-writes`: tickets and written files cost nothing): the ticket's
// checks before any signature (kind, content type, exact length, the 40 MiB ceiling
// with its byte number in the text), 200 with the ticket, the direct PUT to storage with
// exactly the ticket's headers (403 on a mismatch, 412 on a second PUT), the proxy path
// (a mismatch refused, 409 `duplicate_key_conflict` on a second completion), one write
// per ticket whichever way, and the file counted in the library at once. The ceiling and
// the content types are read from the contract.
import { bound, matchOperation, schema } from "../../../contract/index.ts";
import { bodyShown } from "../../kit/describe.ts";
import { greyPng } from "../../kit/png.ts";
import { type Ticket, ticketHeader, assetHead, storagePut, replaced, without, exactly, proxyPut, sameBytes } from "../../kit/uploads.ts";
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";
import { type Upload } from "../../facts/learnt.ts";

export const UPLOAD_CEILING = bound("UploadRequest", "content_length", "maximum");
export const UPLOAD_TYPES: readonly string[] = (schema("UploadContentType").enum as string[]).slice();
const IMAGE_TYPES = UPLOAD_TYPES.filter((t) => t.startsWith("image/"));
/** Image types outside the seed's table. */
const OUTSIDE = ["image/gif", "image/svg+xml"].filter((t) => !UPLOAD_TYPES.includes(t));
/** Kinds other than `image`, with a type of theirs from the table. */
const UNSIGNED: [string, string][] = [["video", "video/mp4"], ["audio", "audio/mpeg"]];

const RULES = ["UPL-1", "UPL-2", "UPL-3", "UPL-4", "UPL-5", "UPL-6", "UPL-7", "UPL-8", "ST-7", "LIB-1"];

function ticketOf(ex: Exchange): Ticket | undefined {
  return ex.status >= 200 && ex.status < 300 && typeof ex.json?.url === "string" && ex.json?.headers && typeof ex.json.headers === "object" ? ex.json : undefined;
}

async function askTicket(c: CheckContext, contentType: string, length: number, rule: string): Promise<{ ex: Exchange; t?: Ticket }> {
  const ex = await c.post("/v1/uploads", { kind: "image", content_type: contentType, content_length: length }, rule);
  const t = ticketOf(ex);
  if (!t) c.fail(rule, `a ticket for ${contentType} of ${length} bytes answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}, not a ticket`, ex);
  else c.expect(ex.status === 200, "UPL-6", `a ticket answered ${ex.status}; the reply is 200 (not 201)`, ex);
  if (t) {
    c.expect(ticketHeader(t, "Content-Length") === String(length), "UPL-2", `the ticket for ${length} bytes signs Content-Length ${JSON.stringify(ticketHeader(t, "Content-Length"))}, not the exact length`, ex);
    c.expect(ticketHeader(t, "Content-Type") === contentType, "UPL-1", `the ticket for ${contentType} carries Content-Type ${JSON.stringify(ticketHeader(t, "Content-Type"))} in headers`, ex);
    c.expect(ticketHeader(t, "If-None-Match") === "*", "UPL-1", `the ticket's headers carry If-None-Match ${JSON.stringify(ticketHeader(t, "If-None-Match"))}, not *`, ex);
    const path = c.target.pathOf(String(t.proxy_path));
    const op = path ? matchOperation("PUT", path.split("?")[0]!)?.operation.operationId : undefined;
    c.expect(op === "completeUpload", "UPL-1", `proxy_path ${JSON.stringify(t.proxy_path)} is not a path of PUT /v1/uploads/content on this API`, ex);
    let absolute = false;
    try {
      absolute = /^https?:$/.test(new URL(String(t.url)).protocol);
    } catch {
      absolute = false;
    }
    c.expect(absolute, "UPL-1", `url ${JSON.stringify(t.url)} is not an http(s) address to PUT to`, ex);
  }
  return { ex, t };
}

function otherImageType(type: string): string {
  return IMAGE_TYPES.find((t) => t !== type) ?? "image/jpeg";
}

export const uploads: Check = {
  name: "uploads: tickets, the direct PUT, the proxy path",
  rules: RULES,
  needs: { writes: true },
  provides: ["uploads"],
  async run(c) {
    // Kinds other than image are not signed.
    for (const [kind, type] of UNSIGNED) {
      const ex = await c.post("/v1/uploads", { kind, content_type: type, content_length: 1024 }, "UPL-3");
      if (c.unavailable(ex, RULES)) return;
      c.refusal(ex, "upload_unavailable", "UPL-3", `a ticket of kind ${kind}`);
    }
    // Checked before any signature: a missing or mistyped length, a type outside the table.
    const missing = await c.post("/v1/uploads", { kind: "image", content_type: "image/png" }, "UPL-2");
    c.target.deliberate(missing);
    if (c.refusal(missing, "invalid_request", "UPL-2", "a ticket without content_length")) {
      const d = missing.json?.error?.details;
      c.expect(Array.isArray(d) && d.some((x: any) => x.field === "content_length"), "UPL-2", `details do not name content_length: ${JSON.stringify(d)}`, missing);
    }
    const typed = await c.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: "1024" }, "UPL-2");
    c.target.deliberate(typed);
    c.refusal(typed, "invalid_request", "UPL-2", "a ticket whose content_length is a string");
    for (const type of OUTSIDE) {
      const ex = await c.post("/v1/uploads", { kind: "image", content_type: type, content_length: 1024 }, "UPL-4");
      c.target.deliberate(ex);
      if (c.refusal(ex, "invalid_request", "UPL-4", `a ticket for ${type} (not in the seed's table)`)) {
        const d = ex.json?.error?.details;
        c.expect(Array.isArray(d) && d.some((x: any) => x.field === "content_type"), "UPL-4", `details do not name content_type: ${JSON.stringify(d)}`, ex);
      }
    }
    // The ceiling: its exact byte number in the refusal; the ceiling itself is signed.
    const over = await c.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: UPLOAD_CEILING + 1 }, "UPL-5");
    c.target.deliberate(over);
    if (c.refusal(over, "invalid_request", "UPL-5", `a ticket for ${UPLOAD_CEILING + 1} bytes`)) {
      const e = over.json?.error ?? {};
      const texts = [e.message, e.user_message, ...(Array.isArray(e.details) ? e.details.map((d: any) => d?.message) : [])].map(String);
      c.expect(texts.some((t) => t.includes(String(UPLOAD_CEILING))), "UPL-5", `the refusal text does not repeat the ceiling's byte number ${UPLOAD_CEILING}: ${JSON.stringify(e.message)}`, over);
    }

    const head = await assetHead(c, "UPL-6");
    const atCeiling = await askTicket(c, "image/png", UPLOAD_CEILING, "UPL-5");
    if (atCeiling.t) c.pass("UPL-5", `a ticket for exactly ${UPLOAD_CEILING} bytes is signed`);
    for (const type of IMAGE_TYPES.filter((t) => t !== "image/png")) {
      const { t } = await askTicket(c, type, 2048, "UPL-4");
      if (t) c.pass("UPL-4");
    }
    c.note("UPL-4", `image tickets asked for ${IMAGE_TYPES.join(", ")}; the table's video and audio types belong to kinds that are not signed`);

    // Two different files (a reference names one file): one per way of writing a ticket.
    const png = greyPng(64, 0x80);
    const other = greyPng(64, 0x40);
    const direct = await askTicket(c, "image/png", png.length, "UPL-7");
    const proxied = await askTicket(c, "image/png", other.length, "UPL-8");
    if (direct.t && proxied.t) c.pass("UPL-4");
    const afterTickets = await assetHead(c, "UPL-6");
    if (head && afterTickets) {
      const appeared = afterTickets.filter((a) => !head.some((b) => b.id === a.id));
      c.expect(appeared.length === 0, "UPL-6", `${appeared.length} asset(s) appeared in the library before any PUT (the object does not exist until the PUT is done)`);
    }

    if (direct.t) await directPath(c, direct.t, png, afterTickets);
    else c.skip(["UPL-7", "ST-7", "LIB-1"], "no ticket for the direct PUT");
    if (proxied.t) await proxyPath(c, proxied.t, other);
    else c.skip(["UPL-8", "ST-7"], "no ticket for the proxy path");
  },
};

async function directPath(c: CheckContext, t: Ticket, png: Uint8Array, before: Record<string, any>[] | undefined): Promise<void> {
  const type = ticketHeader(t, "Content-Type") ?? "image/png";
  // A mismatch is refused by storage (and leaves the ticket unwritten).
  const wrongType = await storagePut(c, t, replaced(t, "Content-Type", otherImageType(type)), png, "UPL-7");
  c.expect(wrongType.status === 403, "UPL-7", `a PUT with another Content-Type than the ticket's answered ${wrongType.status}, not 403`, wrongType);
  if (ticketHeader(t, "If-None-Match") !== undefined) {
    const noCondition = await storagePut(c, t, without(t, "If-None-Match"), png, "UPL-7");
    c.expect(noCondition.status === 403, "UPL-7", `a PUT without the ticket's If-None-Match answered ${noCondition.status}, not 403`, noCondition);
  }
  const put = await storagePut(c, t, exactly(t), png, "UPL-7");
  if (!c.expect(put.status >= 200 && put.status < 300, "UPL-7", `the PUT with exactly the ticket's headers answered ${put.status} with ${bodyShown(put.text, 120)}`, put)) {
    c.skip(["ST-7", "LIB-1"], "the direct PUT did not succeed");
    return;
  }
  const upload: Upload = { reference: String(t.reference), via: "direct", bytes: png, ...(typeof t.expires_at === "string" ? { signatureExpiresAt: t.expires_at } : {}) };
  c.add("uploads", upload);

  // Counted in the library at once: a new asset at the head of the list.
  const after = await assetHead(c, "UPL-7");
  if (before && after) {
    const fresh = after.filter((a) => !before.some((b) => b.id === a.id));
    if (c.expect(fresh.length > 0, "UPL-7", "the written file is not in the library right after the PUT (GET /v1/library/assets)")) {
      const asset = fresh[0]!;
      upload.assetId = String(asset.id);
      await content(c, asset, png);
    }
  } else c.skip(["LIB-1"], "the asset list could not be read");

  const again = await storagePut(c, t, exactly(t), png, "UPL-7");
  c.expect(again.status === 412, "UPL-7", `a second PUT to the same url answered ${again.status}, not 412`, again);
  const viaProxy = await proxyPut(c, t, type, png, "ST-7");
  if (viaProxy) c.refusal(viaProxy, "duplicate_key_conflict", "ST-7", "completing through the proxy a ticket already written by the direct PUT");
}

/** The asset's content link points at its content route and serves the bytes written. */
async function content(c: CheckContext, asset: Record<string, any>, bytes: Uint8Array): Promise<void> {
  const link = Array.isArray(asset.output_urls) ? String(asset.output_urls[0] ?? "") : "";
  const path = link ? c.target.pathOf(link) : undefined;
  const route = `/v1/library/assets/${encodeURIComponent(String(asset.id))}/content`;
  if (!c.expect(path?.split("?")[0] === route || path?.split("?")[0] === `/v1/library/assets/${asset.id}/content`, "LIB-1", `the asset's content link ${JSON.stringify(link)} does not point at GET ${route} on this API`)) return;
  c.skip(["LIB-1"], "the asset's title change not tried: the title field's name and the request body are not shown");
  const ex = await c.get(path!, "LIB-1", { binary: true, direct: true });
  c.expect(ex.status === 200 && sameBytes(ex.bytes, bytes), "LIB-1", `the content of the uploaded asset answered ${ex.status} with ${ex.bytes?.length ?? 0} bytes, not the ${bytes.length} bytes written`, ex);
}

async function proxyPath(c: CheckContext, t: Ticket, png: Uint8Array): Promise<void> {
  const type = ticketHeader(t, "Content-Type") ?? "image/png";
  const wrongType = await proxyPut(c, t, otherImageType(type), png, "UPL-8");
  if (!wrongType) {
    c.skip(["UPL-8", "ST-7"], `proxy_path ${JSON.stringify(t.proxy_path)} is not on this API`);
    return;
  }
  c.refusal(wrongType, "invalid_request", "UPL-8", "a proxy completion with another Content-Type than the ticket's");
  const short = await proxyPut(c, t, type, png.subarray(0, png.length - 1), "UPL-8");
  c.refusal(short!, "invalid_request", "UPL-8", "a proxy completion one byte shorter than the ticket's length");
  const done = await proxyPut(c, t, type, png, "UPL-8");
  if (!c.expect(done!.status >= 200 && done!.status < 300, "UPL-8", `the proxy completion answered ${done!.status} ${errorCodeOf(done!.json) ?? ""}`, done)) {
    c.skip(["ST-7"], "the proxy completion did not succeed");
    return;
  }
  c.expect(done!.json?.reference === t.reference && done!.json?.bytes_stored === png.length, "UPL-8", `the completion answered ${JSON.stringify(done!.json)}; expected reference ${t.reference} and bytes_stored ${png.length}`, done);
  c.add("uploads", { reference: String(t.reference), via: "proxy", bytes: png });
  const again = await proxyPut(c, t, type, png, "UPL-8");
  c.refusal(again!, "duplicate_key_conflict", "UPL-8", "a second completion of the same ticket through the proxy");
  const direct = await storagePut(c, t, exactly(t), png, "ST-7");
  c.expect(direct.status === 412, "ST-7", `a direct PUT to a ticket already completed through the proxy answered ${direct.status}, not 412`, direct);
}
