// What a sequence compares before and after a call that must change nothing of it: the
// balance (`credits.main_cc` of `GET /v1/me`), the head of the ledger
// (`GET /v1/billing/transactions`), the head of the generation list, and the account's
// submit counters (`limits.submissions`). The seed names no field inside
// `limits.submissions` and none of a transaction but `amount_cc`, `generation_id` and
// `reason`: ledger rows are compared whole, and the submit counter is learnt from an
// accepted submit (the numbers of `limits.submissions` that moved by one with it).
import { type Exchange } from "../target/exchange.ts";
import { type CheckContext } from "../facts/check.ts";

/** Rows read from the head of the ledger and of the generation list. */
const HEAD = 5;

export interface Money {
  /** `credits.main_cc`, when the account record gave it. */
  balance?: number;
  /** The newest ledger rows, each as its JSON text (a row has no id the seed names). */
  ledger?: string[];
  /** The answer the ledger was read from. */
  ledgerAnswer?: Exchange;
}

export interface AccountState extends Money {
  /** The newest generations' ids. */
  generations?: string[];
  generationsAnswer?: Exchange;
  /** Every number under `limits.submissions`, by its dotted path. */
  submissions: Map<string, number>;
  me: Exchange;
}

/** The numbers of a JSON value, by dotted path. */
export function numbersOf(value: unknown, path = "", out = new Map<string, number>()): Map<string, number> {
  if (typeof value === "number") out.set(path || "(value)", value);
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) numbersOf(v, path ? `${path}.${k}` : k, out);
  return out;
}

async function ledgerHead(c: CheckContext, rule: string): Promise<{ rows?: string[]; ex: Exchange }> {
  const ex = await c.get(`/v1/billing/transactions?limit=${HEAD}`, rule);
  return { ex, rows: ex.status === 200 && Array.isArray(ex.json?.data) ? ex.json.data.map((r: unknown) => JSON.stringify(r)) : undefined };
}

/** The balance and the ledger's head: what a call that moves no money leaves as it was. */
export async function moneyOf(c: CheckContext, rule: string): Promise<Money> {
  const me = await c.get("/v1/me", rule);
  const v = me.json?.credits?.main_cc;
  const ledger = await ledgerHead(c, rule);
  return { ...(typeof v === "number" ? { balance: v } : {}), ...(ledger.rows ? { ledger: ledger.rows, ledgerAnswer: ledger.ex } : {}) };
}

/** The money, the head of the generation list and the submit counters (`ledger: false`: not the ledger). */
export async function accountState(c: CheckContext, rule: string, o: { ledger?: boolean } = {}): Promise<AccountState> {
  const me = await c.get("/v1/me", rule);
  const v = me.json?.credits?.main_cc;
  const ledger: { rows?: string[]; ex?: Exchange } = o.ledger === false ? {} : await ledgerHead(c, rule);
  const list = await c.get(`/v1/generations?limit=${HEAD}`, rule);
  const generations = list.status === 200 && Array.isArray(list.json?.data) ? list.json.data.map((g: any) => String(g?.id)) : undefined;
  return {
    me,
    ...(typeof v === "number" ? { balance: v } : {}),
    ...(ledger.rows && ledger.ex ? { ledger: ledger.rows, ledgerAnswer: ledger.ex } : {}),
    ...(generations ? { generations, generationsAnswer: list } : {}),
    submissions: numbersOf(me.json?.limits?.submissions),
  };
}

/** How the ledger's head changed: rows that are new at its head, and rows gone from it. */
function ledgerChange(before: string[], after: string[]): string | undefined {
  if (before.join("\n") === after.join("\n")) return undefined;
  const added = after.filter((r) => !before.includes(r));
  const gone = before.filter((r) => !after.includes(r));
  const cut = (rows: string[]) => rows.slice(0, 2).map((r) => (r.length > 160 ? `${r.slice(0, 157)}...` : r)).join(", ");
  return [added.length ? `${added.length} new row(s) ${cut(added)}` : "", gone.length ? `${gone.length} row(s) changed or gone ${cut(gone)}` : "", !added.length && !gone.length ? "the rows came in another order" : ""].filter(Boolean).join("; ");
}

/**
 * Holds `rule` to "moves no money" around `what`: the balance and the ledger's head are
 * as they were. Judges only what both reads gave.
 */
export function sameMoney(c: CheckContext, rule: string, before: Money, after: Money, what: string, ex?: Exchange): void {
  if (before.balance !== undefined && after.balance !== undefined) {
    c.expect(before.balance === after.balance, rule, `the balance moved from ${before.balance} to ${after.balance} cc around ${what}`, ex);
  }
  if (before.ledger && after.ledger) {
    const change = ledgerChange(before.ledger, after.ledger);
    c.expect(change === undefined, rule, `the ledger changed around ${what}: ${change}`, after.ledgerAnswer ?? ex);
  }
}

/** Ids at the head of the generation list after `what` that were not there before: generations it created. */
export function newGenerations(before: AccountState, after: AccountState): string[] {
  if (!before.generations || !after.generations) return [];
  return after.generations.filter((id) => !before.generations!.includes(id));
}

/**
 * The submit counter: the numbers of `limits.submissions` that moved by exactly one
 * between the reads before and after one accepted submit, with the way they moved
 * (`remaining` down, or `used` up, whatever their names). Empty when none did (a window
 * that reset in between, or numbers that are not a counter).
 */
export type SubmitCounter = Map<string, 1 | -1>;

export function learnSubmitCounter(before: AccountState, after: AccountState): SubmitCounter {
  const counter: SubmitCounter = new Map();
  for (const [path, v] of after.submissions) {
    const was = before.submissions.get(path);
    if (was !== undefined && Math.abs(v - was) === 1) counter.set(path, (v - was) as 1 | -1);
  }
  return counter;
}

/** What the counter says was spent between two reads: the paths that moved the way a submit moves them. */
export function submitsSpent(counter: SubmitCounter, before: AccountState, after: AccountState): string[] {
  const moved: string[] = [];
  for (const [path, way] of counter) {
    const a = before.submissions.get(path);
    const b = after.submissions.get(path);
    if (a !== undefined && b !== undefined && Math.sign(b - a) === way) moved.push(`limits.submissions.${path} ${a} -> ${b}`);
  }
  return moved;
}
