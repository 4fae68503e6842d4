// A ticket's `expires_at` is "Expiry of the signature only, not of the file" (UPL-1):
// once it has passed, a PUT to a ticket's `url` is no longer taken, and the file the run
// wrote through a ticket before is still in the library, its content served. The time is
// the server's: the lifetime of a fresh ticket (its `expires_at` against the server's
// time), asked first; it passes on a clock the caller moves, or within --max-wait, else
// the rule is n/a (the fresh ticket stays unwritten). The file is read before and after:
// only what the time changed is judged.
import { greyPng } from "../../kit/png.ts";
import { assetHead, exactly, sameBytes, storagePut } from "../../kit/uploads.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

/** Past the later `expires_at`: the `Date` header's precision is a second. */
const MARGIN_SECONDS = 2;

export const signatureExpiry: Check = {
  name: "upload ticket: the signature expires, the file stays",
  rules: ["UPL-1"],
  when: "after time passes",
  needs: { writes: true, uses: ["uploads"] },
  async run(c) {
    const written = c.known("uploads").find((u) => u.via === "direct" && u.assetId !== undefined && u.signatureExpiresAt !== undefined);
    if (!written) {
      c.skip(["UPL-1"], "that expires_at is the signature's expiry, not the file's: no file of the run was written through a ticket with an expires_at");
      return;
    }
    const png = greyPng(64, 0x20);
    const asked = await c.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: png.length }, "UPL-1");
    const ticket = asked.status === 200 && typeof asked.json?.url === "string" ? (asked.json as Record<string, any>) : undefined;
    const now = ticket ? await c.serverTime(asked) : undefined;
    const expires = Date.parse(String(ticket?.expires_at));
    const fileTicketExpires = Date.parse(written.signatureExpiresAt!);
    if (!ticket || now === undefined || Number.isNaN(expires) || Number.isNaN(fileTicketExpires)) {
      c.skip(["UPL-1"], `the signature's lifetime is unknown: a ticket answered ${asked.status} ${errorCodeOf(asked.json) ?? ""}${ticket ? ` with expires_at ${JSON.stringify(ticket.expires_at)}${now === undefined ? ", and the server's time is unknown (no Date header)" : ""}` : ""}`);
      return;
    }
    const lifetime = Math.max(0, Math.round((expires - now) / 1000));
    const what = `the upload signature's ${lifetime} s (a ticket's expires_at)`;
    const seconds = (Math.max(expires, fileTicketExpires) - now) / 1000 + MARGIN_SECONDS;
    // A file whose own life (its asset's expires_at) ends first says nothing of the signature's.
    const asset = (await assetHead(c, "UPL-1"))?.find((a) => a.id === written.assetId);
    const fileEnds = Date.parse(String(asset?.expires_at));
    if (!Number.isNaN(fileEnds) && fileEnds <= now + seconds * 1000) {
      c.skip(["UPL-1"], `the uploaded file's own life (its expires_at ${asset!.expires_at}) ends before the signature's: the two cannot be told apart`);
      return;
    }
    // What time changes is judged: a file already gone (a folder delete that took it, say) is another rule's.
    const route = `/v1/library/assets/${encodeURIComponent(written.assetId!)}/content`;
    const served = await c.get(route, "UPL-1", { binary: true, direct: true });
    if (served.status !== 200 || !sameBytes(served.bytes, written.bytes)) {
      c.skip(["UPL-1"], `that expires_at is the signature's expiry, not the file's: the file written through a ticket was not served before its signature expired (GET ${route} answered ${served.status})`);
      return;
    }
    if (!(await c.passTime(seconds, ["UPL-1"], what))) return;

    const put = await storagePut(c, ticket, exactly(ticket), png, "UPL-1");
    c.expect(put.status < 200 || put.status >= 300, "UPL-1", `a PUT with exactly the ticket's headers after its expires_at (${ticket.expires_at}) answered ${put.status}: expires_at is when the signature stops`, put);
    const content = await c.get(route, "UPL-1", { binary: true, direct: true });
    c.expect(
      content.status === 200 && sameBytes(content.bytes, written.bytes),
      "UPL-1",
      `the file written through a ticket is gone once the ticket's signature expired (${written.signatureExpiresAt}): GET ${route} answered ${content.status}${content.status === 200 ? ` with ${content.bytes?.length ?? 0} bytes, not the ${written.bytes.length} written` : ` ${errorCodeOf(content.json) ?? ""}`}; expires_at is the signature's expiry, not the file's`,
      content,
    );
  },
};
