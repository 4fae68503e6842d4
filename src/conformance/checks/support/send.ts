// Sending to support (`--allow-writes`; it spends no credits): the text returned exactly
// as written, the idempotent replay by `client_msg_id` (the message already sent, and
// only one in the thread), 409 `support_replay_mismatch` for another text or number of
// images, and up to 3 upload references in `images` (the files this run uploaded).
import { randomUUID } from "node:crypto";
import { bound } from "../../../contract/index.ts";
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { randomToken } from "../../kit/ids.ts";
import { errorCodeOf, succeeded } from "../../target/exchange.ts";
import { type Check } from "../../facts/check.ts";

const MAX_IMAGES = bound("SupportMessageRequest", "images", "maxItems");
const RULES = ["SUP-1", "SUP-3"];


export const supportSend: Check = {
  name: "sending to support",
  rules: RULES,
  needs: { writes: true, uses: ["uploads"] },
  async run(c) {
    const refs = [...new Set(c.known("uploads").map((u) => u.reference))];
    if (refs.length === 0) c.skip(["SUP-3"], "images not sent: this run uploaded no file (its reference is what `images` takes)");
    const money = await moneyOf(c, "SUP-3");
    // Spaces at both ends, a line break, quotes, markup and non-ASCII letters: returned exactly.
    const text = `  Conformance check ${randomToken()}: please ignore.\n"Quoted" <b>not markup</b> — Grüße, привет ✓  `;
    const id = randomUUID();
    const images = refs.slice(0, 1);
    const send = (body: Record<string, unknown>, rule: string) => c.post("/v1/support/messages", body, rule);

    const first = await send({ text, images, client_msg_id: id }, "SUP-3");
    if (c.unavailable(first, RULES)) return;
    if (!c.expect(succeeded(first), "SUP-3", `sending a message answered ${first.status} ${errorCodeOf(first.json) ?? ""}`, first)) return;
    const m = first.json ?? {};
    c.expect(m.text === text, "SUP-1", `the message came back as ${JSON.stringify(m.text)}, not exactly as written`, first);
    c.expect(m.from === "user", "SUP-1", `a message the account sent is from ${JSON.stringify(m.from)}, not user`, first);
    if (m.client_msg_id !== undefined) c.expect(m.client_msg_id === id, "SUP-1", `the message carries client_msg_id ${m.client_msg_id}, not the one sent (${id})`, first);
    if (Array.isArray(m.images)) c.expect(m.images.length === images.length, "SUP-1", `the message carries ${m.images.length} image(s); ${images.length} were sent`, first);

    // A replay answers the message already sent; the thread holds it once.
    const replay = await send({ text, images, client_msg_id: id }, "SUP-3");
    if (c.expect(succeeded(replay), "SUP-3", `a replay with the same client_msg_id answered ${replay.status} ${errorCodeOf(replay.json) ?? ""}`, replay)) {
      const r = replay.json ?? {};
      const same = r.text === m.text && (m.id === undefined || r.id === m.id) && (m.client_msg_id === undefined || r.client_msg_id === m.client_msg_id) && (m.created_at === undefined || r.created_at === m.created_at);
      c.expect(same, "SUP-3", `a replay answered another message (${JSON.stringify({ id: r.id, created_at: r.created_at })} vs ${JSON.stringify({ id: m.id, created_at: m.created_at })}), not the one already sent`, replay);
    }
    const thread = await c.get("/v1/support/messages", "SUP-3");
    if (thread.status === 200 && Array.isArray(thread.json?.data)) {
      const mine = thread.json.data.filter((x: any) => x.client_msg_id === id || x.text === text);
      c.expect(mine.length === 1, "SUP-3", `the thread holds the message ${mine.length} times after a send and its replay`, thread);
      if (mine[0]) c.expect(mine[0].text === text, "SUP-1", `the thread shows the message as ${JSON.stringify(mine[0].text)}, not exactly as written`, thread);
    }

    // The same id for another message: another text, another number of images.
    const otherText = await send({ text: `${text} (changed)`, images, client_msg_id: id }, "SUP-3");
    c.refusal(otherText, "support_replay_mismatch", "SUP-3", "the same client_msg_id with another text");
    if (images.length > 0) {
      const otherCount = await send({ text, images: [], client_msg_id: id }, "SUP-3");
      c.refusal(otherCount, "support_replay_mismatch", "SUP-3", "the same client_msg_id with another number of images");
    }

    // Up to 3 images: more is refused; exactly 3 (the run's references, repeated if fewer) is taken.
    const four = await send({ text: `Conformance check ${randomToken()}: four images.`, images: Array.from({ length: MAX_IMAGES + 1 }, (_, i) => refs[i % Math.max(1, refs.length)] ?? `conformance-no-such-reference-${i}`), client_msg_id: randomUUID() }, "SUP-3");
    c.target.deliberate(four);
    if (c.refusal(four, "invalid_request", "SUP-3", `a message with ${MAX_IMAGES + 1} images`)) {
      const d = four.json?.error?.details;
      c.expect(Array.isArray(d) && d.some((x: any) => x.field === "images" && x.reason === "out_of_range"), "SUP-3", `details do not name images out_of_range: ${JSON.stringify(d)}`, four);
    }
    if (refs.length > 0) {
      const three = Array.from({ length: MAX_IMAGES }, (_, i) => refs[i % refs.length]!);
      const ex = await send({ text: `Conformance check ${randomToken()}: ${MAX_IMAGES} images, please ignore.`, images: three, client_msg_id: randomUUID() }, "SUP-3");
      const duplicate = ex.status === 400 && Array.isArray(ex.json?.error?.details) && ex.json.error.details.some((x: any) => x.reason === "duplicate");
      if (duplicate) c.skip(["SUP-3"], `${MAX_IMAGES} images not sent: the server refuses a repeated reference and this run has ${refs.length} distinct one(s)`);
      else c.expect(succeeded(ex), "SUP-3", `a message with ${MAX_IMAGES} upload references answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
    }

    c.skip(["SUP-2"], "that reading marks the thread read is not observable: the seed names no read marker");
    sameMoney(c, "SUP-3", money, await moneyOf(c, "SUP-3"), "support messages and their replay");
  },
};
