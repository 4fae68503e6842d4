// A ticket's `expires_at` is "Expiry of the signature only, not of the file" (UPL-1):
// once it has passed, a PUT to a ticket's `url` is no longer taken, and a file written
// through a ticket before (one of the check's own) is still in the library, its content served. The time is
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
  needs: { writes: true },
  async run(c) {
    // Its own file, written now through a ticket, and a second ticket left unwritten: a
    // file of an earlier check may have outlived its ticket already while the run moved
    // the clock, and what happened to it since is not this rule's to tell.
    const png = greyPng(64, 0x20);
    const ticketFor = async () => {
      const asked = await c.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: png.length }, "UPL-1");
      return { asked, ticket: asked.status === 200 && typeof asked.json?.url === "string" ? (asked.json as Record<string, any>) : undefined };
    };
    const before = await assetHead(c, "UPL-1");
    const forFile = await ticketFor();
    const { asked, ticket } = await ticketFor();
    const now = ticket ? await c.serverTime(asked) : undefined;
    const expires = Date.parse(String(ticket?.expires_at));
    const fileTicketExpires = Date.parse(String(forFile.ticket?.expires_at));
    if (!forFile.ticket || !ticket || now === undefined || Number.isNaN(expires) || Number.isNaN(fileTicketExpires)) {
      c.skip(["UPL-1"], `the signature's lifetime is unknown: a ticket answered ${asked.status} ${errorCodeOf(asked.json) ?? ""}${ticket ? ` with expires_at ${JSON.stringify(ticket.expires_at)}${now === undefined ? ", and the server's time is unknown (no Date header)" : ""}` : ""}`);
      return;
    }
    const lifetime = Math.max(0, Math.round((expires - now) / 1000));
    const what = `the upload signature's ${lifetime} s (a ticket's expires_at)`;
    const seconds = (Math.max(expires, fileTicketExpires) - now) / 1000 + MARGIN_SECONDS;
    if (!c.timeAllows(seconds, ["UPL-1"], what)) return;
    const written = await storagePut(c, forFile.ticket, exactly(forFile.ticket), png, "UPL-1");
    const after = written.status >= 200 && written.status < 300 ? await assetHead(c, "UPL-1") : undefined;
    const asset = before && after ? after.find((a) => !before.some((b) => b.id === a.id)) : undefined;
    if (!asset) {
      c.skip(["UPL-1"], `that expires_at is the signature's expiry, not the file's: the file written for it is not to be found (the PUT answered ${written.status}${after ? ", no new asset in the library" : ""})`);
      return;
    }
    // A file whose own life (its asset's expires_at) ends first says nothing of the signature's.
    const fileEnds = Date.parse(String(asset.expires_at));
    if (!Number.isNaN(fileEnds) && fileEnds <= now + seconds * 1000) {
      c.skip(["UPL-1"], `the uploaded file's own life (its expires_at ${asset.expires_at}) ends before the signature's: the two cannot be told apart`);
      return;
    }
    // What time changes is judged: the file is read before, and must be served then.
    const route = `/v1/library/assets/${encodeURIComponent(String(asset.id))}/content`;
    const served = await c.get(route, "UPL-1", { binary: true, direct: true });
    if (served.status !== 200 || !sameBytes(served.bytes, png)) {
      c.skip(["UPL-1"], `that expires_at is the signature's expiry, not the file's: the file just written through a ticket was not served (GET ${route} answered ${served.status})`);
      return;
    }
    if (!(await c.passTime(seconds, ["UPL-1"], what))) return;

    const put = await storagePut(c, ticket, exactly(ticket), png, "UPL-1");
    c.expect(put.status < 200 || put.status >= 300, "UPL-1", `a PUT with exactly the ticket's headers after its expires_at (${ticket.expires_at}) answered ${put.status}: expires_at is when the signature stops`, put);
    const content = await c.get(route, "UPL-1", { binary: true, direct: true });
    c.expect(
      content.status === 200 && sameBytes(content.bytes, png),
      "UPL-1",
      `the file written through a ticket is gone once the ticket's signature expired (${forFile.ticket.expires_at}): GET ${route} answered ${content.status}${content.status === 200 ? ` with ${content.bytes?.length ?? 0} bytes, not the ${png.length} written` : ` ${errorCodeOf(content.json) ?? ""}`}; expires_at is the signature's expiry, not the file's`,
      content,
    );
  },
};
