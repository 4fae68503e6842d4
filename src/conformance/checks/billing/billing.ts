// Billing, read-only: the subscription read with every account's key the run was given
// (the record, the record or null wrapped in `subscription`, or null; never 404), and the
// ledger's meaning where the run spent credits: a debit row (negative `amount_cc`) linked
// to a generation this run created. The ledger's shape and paging (newest first, no
// overlap, no loss) are checked with the other collections (paging.ts).
import { errorCodeOf } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const RULES = ["BILL-1", "BILL-2", "BILL-3", "W-7"];

/** Which of the three forms the seed allows a subscription read is in. */
export function subscriptionForm(body: unknown): "record" | "wrapped record" | "wrapped null" | "null" | "other" {
  if (body === null) return "null";
  if (!body || typeof body !== "object" || Array.isArray(body)) return "other";
  if ("subscription" in body) return (body as { subscription: unknown }).subscription === null ? "wrapped null" : "wrapped record";
  return "record";
}

export const billing: Check = {
  name: "billing: the subscription read and the ledger",
  rules: RULES,
  needs: { uses: ["secondAccount", "balanceBeforeSpend", "created"] },
  async run(c) {
    const keys: [string, string | undefined][] = [["main", c.apiKey], ["other", c.known("secondAccount")?.key], ["free", c.role("free")]];
    const forms: string[] = [];
    for (const [label, key] of keys) {
      if (!key) continue;
      const ex = await c.get("/v1/billing/subscription", "BILL-2", { key });
      if (c.unavailable(ex, ["BILL-2", "BILL-3"])) return;
      c.expect(ex.status === 200, "BILL-3", `the subscription read with the ${label} key answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}; 200 with the record or null`, ex);
      if (ex.status !== 200) continue;
      const form = subscriptionForm(ex.json);
      forms.push(`${label}: ${form}`);
      if (form === "null" || form === "wrapped null") c.pass("W-7", "no subscription reads as null, not 404");
    }
    if (forms.length > 0) c.note("BILL-2", `forms seen: ${forms.join(", ")}`);
    await ledger(c);
  },
};

async function ledger(c: CheckContext): Promise<void> {
  const before = c.known("balanceBeforeSpend");
  const created = c.known("created").map((g) => String(g.id));
  if (before === undefined || created.length === 0) {
    c.skip(["BILL-1"], "a debit row for a charged generation not looked for: this run created none (--allow-spend)");
    return;
  }
  const now = await c.balance("BILL-1");
  if (now === undefined || now >= before) {
    c.skip(["BILL-1"], `a debit row not looked for: the balance did not go down while this run's generations were submitted (${before} -> ${now} cc; free quota)`);
    return;
  }
  const ex = await c.get("/v1/billing/transactions?limit=50", "BILL-1");
  if (ex.status !== 200 || !Array.isArray(ex.json?.data)) return;
  const rows: Record<string, any>[] = ex.json.data.filter((r: any) => created.includes(String(r.generation_id)));
  c.expect(rows.some((r) => Number.isInteger(r.amount_cc) && r.amount_cc < 0), "BILL-1", `the balance went down by ${before - now} cc while this run's generations were charged, but no ledger row with a negative amount_cc names one of them (${created.join(", ")})`, ex);
  c.note("BILL-1", `rows of this run's generations: ${rows.map((r) => `${r.amount_cc} cc`).join(", ") || "none"}; balance ${before} -> ${now} cc`);
}
