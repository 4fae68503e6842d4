// Reading generations: the batch status read and its limit, the record's one shape,
// ids that read back, result files only for their owner, and another account's
// objects answering exactly like objects that do not exist.
import { bound } from "../../../contract/index.ts";
import { fakeIds } from "../../kit/ids.ts";
import { likeMissing } from "../../kit/answers.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

export const BATCH_MAX = bound("GenerationStatusRequest", "ids", "maxItems");

export const batch: Check = {
  name: "batch status read",
  rules: ["BATCH-1", "GEN-1", "W-8"],
  needs: { uses: ["ownGenerations", "secondAccount"] },
  async run(c) {
    const ownRecords = c.known("ownGenerations") ?? [];
    const own = ownRecords.slice(0, BATCH_MAX).map((r) => String(r.id));
    const foreign = (c.known("secondAccount")?.generations ?? []).slice(0, 1).map((r) => String(r.id));
    const ids = [...own, ...foreign];
    ids.push(...fakeIds(BATCH_MAX - ids.length));
    const full = await c.post("/v1/generations/status", { ids: ids.slice(0, BATCH_MAX) }, "BATCH-1");
    if (full.status !== 200 || !Array.isArray(full.json?.data)) {
      c.fail("BATCH-1", `${BATCH_MAX} ids answered ${full.status} ${errorCodeOf(full.json) ?? ""}`, full);
    } else {
      const got: Record<string, any>[] = full.json.data;
      const returned = got.map((r) => String(r.id));
      const stray = returned.filter((id) => !ids.includes(id));
      c.expect(stray.length === 0, "BATCH-1", `records that were not asked for: ${stray.slice(0, 3).join(", ")}`, full);
      const ownAsked = own.filter((id) => ids.slice(0, BATCH_MAX).includes(id));
      const absent = ownAsked.filter((id) => !returned.includes(id));
      c.expect(absent.length === 0, "BATCH-1", `own generations missing from the reply: ${absent.slice(0, 3).join(", ")}`, full);
      c.expect(full.json.next_cursor === null, "BATCH-1", `next_cursor is ${JSON.stringify(full.json.next_cursor)}, always null for the batch read`, full);
      if (foreign.length > 0) {
        c.expect(!returned.includes(foreign[0]!), "W-8", `the batch read returned another account's generation ${foreign[0]}`, full);
      } else c.skip(["W-8"], "no generation of a second account to probe (--other-api-key with at least one generation)");
    }
    const over = await c.post("/v1/generations/status", { ids: fakeIds(BATCH_MAX + 1) }, "BATCH-1");
    c.target.deliberate(over);
    if (over.status === 200) c.fail("BATCH-1", `${BATCH_MAX + 1} ids answered 200: trimmed instead of refused`, over);
    else if (c.refusal(over, "invalid_limit", "BATCH-1", `${BATCH_MAX + 1} ids`)) {
      const d = over.json?.error?.details?.[0];
      c.expect(d?.field === "ids" && d?.reason === "out_of_range", "BATCH-1", `details[0] is ${JSON.stringify(d)}; expected field ids, reason out_of_range`, over);
    }
  },
};

export const readGenerations: Check = {
  name: "reading generations and their result files",
  rules: ["GEN-1", "GEN-2", "GEN-5", "GEN-7", "GEN-9", "ERR-1"],
  needs: { uses: ["ownGenerations", "secondAccount"] },
  async run(c) {
    const own = c.known("ownGenerations") ?? [];
    const second = c.known("secondAccount");
    if (own.length === 0) c.skip(["GEN-1", "GEN-2", "GEN-5", "GEN-7", "ERR-1"], "the account holds no generation to read (and --allow-spend was not given to create one)");
    for (const rec of own.slice(0, 3)) {
      const ex = await c.get(`/v1/generations/${encodeURIComponent(String(rec.id))}`, "GEN-2");
      // Its shape beside the list's is the record-shape invariant's (GEN-1).
      c.expect(ex.status === 200 && ex.json?.id === rec.id, "GEN-2", `the id ${rec.id} from the list does not read back: ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
    }
    const failed = own.find((r) => r.status === "FAILED");
    if (failed) {
      c.expect(typeof failed.error?.reason === "string", "GEN-7", `FAILED generation ${failed.id} has no error.reason`);
      c.expect(failed.error?.code === undefined, "ERR-1", `FAILED generation ${failed.id} carries error.code beside error.reason`);
    } else c.skip(["GEN-7", "ERR-1"], "no FAILED generation in the account to look at");

    // Another account's id answers like an id that does not exist.
    const missingId = fakeIds(1)[0]!;
    const missing = await c.get(`/v1/generations/${missingId}`, "GEN-9");
    c.refusal(missing, "not_found", "GEN-9", "an id that does not exist");
    const foreign = second?.generations[0];
    if (foreign) {
      const ex = await c.get(`/v1/generations/${encodeURIComponent(String(foreign.id))}`, "GEN-9");
      likeMissing(c, "GEN-9", ex, missing, [String(foreign.id), missingId], `GET /v1/generations/{id}`);
    } else c.skip(["GEN-9"], "no generation of a second account to probe (--other-api-key with at least one generation)");

    // Result files: links on this API, served to the owner only.
    const done = own.find((r) => r.status === "DONE" && Array.isArray(r.output_urls) && r.output_urls.length > 0);
    if (!done) {
      c.skip(["GEN-5"], "no DONE generation with output_urls in the account");
      return;
    }
    const link = String(done.output_urls[0]);
    const path = c.target.pathOf(link);
    const shape = path && new RegExp(`^/v1/generations/${escape(String(done.id))}/outputs/[^/?]+/[0-9]+$`).test(path.split("?")[0]!);
    if (!c.expect(Boolean(shape), "GEN-5", `output link ${link} does not point at GET /v1/generations/${done.id}/outputs/{kind}/{index} on this API`)) return;
    const mine = await c.get(path!, "GEN-5", { headersOnly: true });
    c.expect(mine.status === 200, "GEN-5", `the owner's download of ${link} answered ${mine.status} ${errorCodeOf(mine.json) ?? ""}`, mine);
    const anon = await c.get(path!, "GEN-5", { key: null });
    c.target.deliberate(anon);
    c.expect(anon.status === 401, "GEN-5", `${link} without Authorization answered ${anon.status}, not 401`, anon);
    if (second) {
      const stranger = await c.get(path!, "GEN-5", { key: second.key, headersOnly: true });
      c.expect(stranger.status === 404 && errorCodeOf(stranger.json) === "not_found", "GEN-5", `another account's key downloading ${link} answered ${stranger.status} ${errorCodeOf(stranger.json) ?? ""}, not 404 not_found`, stranger);
    } else c.skip(["GEN-5"], "another account's download not tried (no --other-api-key)");
  },
};

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
