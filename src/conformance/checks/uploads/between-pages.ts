// A file uploaded between two page reads of the library (`--allow-writes`: a small PNG,
// written through the proxy path): the asset list, paged across the upload, stays exact;
// and the file is in the library at once (the seed says it of the uploaded file, whichever
// way the ticket was written: the uploads check holds the direct PUT to it).
import { greyPng } from "../../kit/png.ts";
import { firstPage, nextPage } from "../../kit/pages.ts";
import { proxyPut, ticketHeader } from "../../kit/uploads.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const RULES = ["PAGE-4", "UPL-7"];

export const uploadBetweenPages: Check = {
  name: "across calls: a file uploaded between page reads of the library",
  rules: RULES,
  needs: { writes: true },
  provides: ["uploads"],
  async run(c) {
    const png = greyPng(64, 0x20);
    const ticket = await c.post("/v1/uploads", { kind: "image", content_type: "image/png", content_length: png.length }, "UPL-7");
    if (ticket.status !== 200 || typeof ticket.json?.proxy_path !== "string") {
      c.skip(RULES, `no upload ticket to write between page reads (${ticket.status} ${errorCodeOf(ticket.json) ?? ""})`);
      return;
    }
    const probe = await firstPage(c, "/v1/library/assets", "library assets", "PAGE-4");
    const head = await c.get("/v1/library/assets?limit=10", "UPL-7");
    const before = Array.isArray(head.json?.data) ? head.json.data.map((a: any) => String(a?.id)) : undefined;
    const done = await proxyPut(c, ticket.json, ticketHeader(ticket.json, "Content-Type") ?? "image/png", png, "UPL-7");
    if (!done || done.status < 200 || done.status >= 300) {
      c.skip(RULES, `the proxy completion of a ticket answered ${done?.status ?? "nothing (proxy_path not on this API)"}: nothing uploaded between the page reads`);
      return;
    }
    c.add("uploads", { reference: String(ticket.json.reference), via: "proxy", bytes: png });
    await inLibrary(c, before);
    if (probe) await nextPage(c, probe, "an upload", "PAGE-4");
  },
};

/** The file written through the proxy path is a new asset at the head of the library at once. */
async function inLibrary(c: CheckContext, before: string[] | undefined): Promise<void> {
  if (!before) return;
  const after = await c.get("/v1/library/assets?limit=10", "UPL-7");
  const fresh = Array.isArray(after.json?.data) ? after.json.data.filter((a: any) => !before.includes(String(a?.id))) : [];
  c.expect(fresh.length > 0, "UPL-7", "the file written through the proxy path is not in the library right after its completion (GET /v1/library/assets)", after);
}
