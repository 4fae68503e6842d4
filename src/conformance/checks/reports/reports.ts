// Checks that change state without spending credits (`--allow-writes`): session-only
// routes refuse API keys, submits refused for the plan or the spend limit, reports
// (replay, mismatch, no money moved, another account's id), the support thread.
import { randomUUID } from "node:crypto";
import { bound } from "../../../contract/index.ts";
import { moneyOf, sameMoney } from "../../kit/money.ts";
import { randomToken } from "../../kit/ids.ts";
import { outputPaths } from "../../kit/gone.ts";
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

export const reports: Check = {
  name: "reports about a result",
  rules: ["REP-1", "REP-2", "REP-3", "REP-4", "REP-5", "REP-6", "REP-7"],
  needs: { writes: true, uses: ["created", "ownGenerations", "secondAccount"] },
  provides: ["gone"],
  // A moderation report revokes the run's second generation.
  alters: ["created"],
  async run(c) {
    const own = c.known("ownGenerations") ?? [];
    const candidates = [...c.known("created"), ...own.filter((r) => r.status === "DONE" || r.status === "FAILED")];
    const target = candidates[0];
    if (!target) {
      c.skip(["REP-1", "REP-2", "REP-4", "REP-5", "REP-6"], "no generation of the account to report on");
    } else {
      const tooLong = "x".repeat(bound("GenerationReportRequest", "text", "maxLength") + 1);
      const ex = await c.post(`/v1/generations/${encodeURIComponent(String(target.id))}/report`, { text: tooLong }, "REP-2");
      c.target.deliberate(ex);
      c.refusal(ex, "invalid_request", "REP-2", "a report text over the limit");
    }

    // A generation with nothing left unsettled: a failure report is refused.
    const settled = own.find((r) => r.refunded === true);
    if (settled) {
      const ex = await c.post(`/v1/generations/${encodeURIComponent(String(settled.id))}/report`, { text: "Conformance check: refunded generation.", reason: "failure" }, "REP-6");
      c.refusal(ex, "generation_already_settled", "REP-6", `a failure report on refunded generation ${settled.id}`);
    } else c.skip(["REP-6"], "no refunded generation in the account to report on");

    let accepted = false;
    for (const rec of candidates.slice(0, 3)) {
      const money = await moneyOf(c, "REP-5");
      const id = randomUUID();
      const text = `Conformance check ${randomToken()}: please ignore this report.`;
      const path = `/v1/generations/${encodeURIComponent(String(rec.id))}/report`;
      const first = await c.post(path, { text, reason: "failure", client_msg_id: id }, "REP-1");
      if (first.status === 422 && errorCodeOf(first.json) === "generation_already_settled") continue;
      if (!c.expect(first.status === 201, "REP-1", `a report answered ${first.status} ${errorCodeOf(first.json) ?? ""}, not 201`, first)) break;
      accepted = true;
      const cc = Object.keys(first.json ?? {}).filter((k) => k.endsWith("_cc"));
      c.expect(cc.length === 0, "REP-5", `the report reply carries a credit field: ${cc.join(", ")}`, first);
      const replay = await c.post(path, { text, reason: "failure", client_msg_id: id }, "REP-4");
      c.expect(
        replay.status === 201 && replay.json?.support_request_id === first.json?.support_request_id && replay.json?.message_id === first.json?.message_id,
        "REP-4",
        `a replay with the same client_msg_id answered ${replay.status} ${JSON.stringify(replay.json)}, not the same report`,
        replay,
      );
      const other = await c.post(path, { text: `${text} (changed)`, reason: "failure", client_msg_id: id }, "REP-4");
      c.target.deliberate(other);
      c.refusal(other, "report_replay_mismatch", "REP-4", "the same client_msg_id with another text");
      // Across the calls: the report, its replay and the mismatch moved no money, and the replay made no second report.
      sameMoney(c, "REP-5", money, await moneyOf(c, "REP-5"), "a report, its replay and a refused mismatch", replay);
      await reportOnce(c, first, text, id);
      break;
    }
    if (!accepted && target) c.skip(["REP-1", "REP-4", "REP-5"], "no generation of the account accepted a failure report (all settled)");

    // A moderation report revokes the generation: only on one this run created.
    const made = c.known("created")[1];
    if (made) {
      const path = `/v1/generations/${encodeURIComponent(String(made.id))}`;
      // Its result files as they were, for the sweep of every route once it is gone.
      const was = await c.get(path, "REP-3");
      const ex = await c.post(`${path}/report`, { text: "Conformance check: moderation report on a generation the suite created.", reason: "moderation" }, "REP-3");
      if (c.expect(ex.status === 201, "REP-3", `a moderation report answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}, not 201`, ex)) {
        const gone = await c.get(path, "REP-3");
        c.expect(gone.status === 404, "REP-3", `after a moderation report the generation still reads ${gone.status} ${gone.json?.status ?? ""}; it is revoked`, gone);
        if (was.json?.status !== "MODERATION_PENDING") {
          c.add("gone", { kind: "generations", id: String(made.id), rule: "REP-3", why: "a moderation report", outputs: outputPaths(c, was.json) });
        }
      }
    } else c.skip(["REP-3"], "a moderation report revokes the generation: only tried on one the suite created (--allow-spend)");

    const foreign = c.known("secondAccount")?.generations[0];
    if (foreign) {
      const ex = await c.post(`/v1/generations/${encodeURIComponent(String(foreign.id))}/report`, { text: "Conformance check: another account's generation." }, "REP-7");
      c.refusal(ex, "not_found", "REP-7", "a report on another account's generation");
    } else c.skip(["REP-7"], "no generation of a second account (--other-api-key)");
  },
};

/**
 * A replayed report is the same report, not a second one: where the support thread shows
 * reports (a message with the report's `message_id`), it shows this one once.
 */
async function reportOnce(c: CheckContext, first: Exchange, text: string, clientMsgId: string): Promise<void> {
  const thread = await c.get("/v1/support/messages", "REP-4");
  if (thread.status !== 200 || !Array.isArray(thread.json?.data)) return;
  const messageId = first.json?.message_id;
  const shown = (thread.json.data as any[]).filter((m) => (messageId !== undefined && m?.id === messageId) || (m?.client_msg_id === clientMsgId && m?.text === text));
  if (shown.length === 0) c.note("REP-4", "the support thread shows no message of the report (its message_id): that a replay made no second report was read from the reply only");
  else c.expect(shown.length === 1, "REP-4", `after a report and its replay by client_msg_id the support thread shows the report's message ${shown.length} times`, thread);
}
