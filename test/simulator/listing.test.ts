// The cost of a page read does not grow with the list: a page of the ledger, of the
// generations or of the library's assets reads the records it answers, the one after
// them (is there a next page?) and those a binary search visits to find the cursor's
// place; no others. Held by counting the records a read touches, not by timing it.
import { describe, expect, it } from "vitest";
import { Hub } from "../../src/simulator/hub.ts";
import type { SimRequest } from "../../src/simulator/pipeline/exchange.ts";
import type { Generation } from "../../src/simulator/state/generations.ts";
import type { LedgerEntry } from "../../src/simulator/state/ledger.ts";
import type { Asset } from "../../src/simulator/state/library.ts";
import { addAsset } from "../../src/simulator/state/library.ts";
import { merged, Timeline, type Dated } from "../../src/simulator/state/timeline.ts";

const ACCOUNT = "acc_demo";
const START = Date.UTC(2026, 0, 1);

/** `n` records made by `make`, each telling `touched` when any of its fields is read. */
function counted<T extends Dated>(n: number, make: (i: number) => T, touched: Set<number>): T[] {
  return Array.from({ length: n }, (_, i) => new Proxy(make(i), {
    get(target, key, receiver) {
      touched.add(i);
      return Reflect.get(target, key, receiver);
    },
  }));
}

const id = (prefix: string, i: number) => `${prefix}_${String(i).padStart(8, "0")}`;

interface List {
  path: string;
  /** Puts `records` in the hub as the account's list (oldest first). */
  fill(hub: Hub, n: number, touched: Set<number>): void;
}

const lists: Record<string, List> = {
  "the credit ledger": {
    path: "/v1/billing/transactions",
    fill(hub, n, touched) {
      const rows = new Timeline<LedgerEntry>();
      for (const r of counted<LedgerEntry>(n, (i) => ({ id: id("txn", i), account_id: ACCOUNT, amount_cc: 1, generation_id: null, reason: null, created_at: START + i * 1000 }), touched)) rows.add(r);
      hub.state.ledger.set(ACCOUNT, rows);
    },
  },
  "the generations": {
    path: "/v1/generations",
    fill(hub, n, touched) {
      const gens = new Timeline<Generation>();
      const make = (i: number): Generation => ({
        id: id("gen", i), account_id: ACCOUNT, key_id: "key_full", type: "image", model: "image-model-a", prompt: "a fox", title: "a fox", status: "DONE",
        created_at: START + i * 1000, updated_at: START + i * 1000, error_reason: null, refunded: false, charged_cc: 0, free_quota: -1,
        output_kind: "image", output_count: 1, deleted: false, steps: [], pending: null, next_at: null, cache: null, idempotency_key: null,
      });
      for (const g of counted(n, make, touched)) gens.add(g);
      hub.state.by_account.set(ACCOUNT, gens);
    },
  },
  "the library's assets": {
    path: "/v1/library/assets",
    fill(hub, n, touched) {
      const make = (i: number): Asset => ({
        id: id("ast", i), account_id: ACCOUNT, reference: id("upl", i), kind: "image", content_type: "image/png", bytes: new Uint8Array(4),
        width: 1, height: 1, title: "a fox", folder_id: null, created_at: START + i * 1000, expires_at: START + 1e12,
      });
      for (const a of counted(n, make, touched)) addAsset(hub.state.library, a);
    },
  },
};

function read(hub: Hub, url: string): { data: { id: string }[]; next_cursor: string | null } {
  const req: SimRequest = { method: "GET", url, headers: { host: "hub.example", authorization: "Bearer ghk_demo_full" }, baseUrl: "http://hub.example" };
  const answer = hub.handle(req) as { status: number; body: string };
  expect(answer.status, answer.body).toBe(200);
  return JSON.parse(answer.body);
}

describe("a page read", () => {
  for (const [what, list] of Object.entries(lists)) {
    it(`PAGE-4: a page of ${what} reads its own records, one more, and a binary search's, however long the list`, () => {
      const limit = 20;
      for (const n of [1_000, 100_000]) {
        const hub = new Hub({ clockSpeed: 0, demoData: false, startTime: START + n * 1000, retention: { generations: 1e6, ledgerRows: 1e6 } });
        const touched = new Set<number>();
        list.fill(hub, n, touched);
        touched.clear();

        const first = read(hub, `${list.path}?limit=${limit}`);
        expect(first.data.map((r) => r.id)[0], what).toMatch(new RegExp(`_${String(n - 1).padStart(8, "0")}$`));
        expect(touched.size, `${what}, ${n} records, first page`).toBeLessThanOrEqual(limit + 1);

        // A page deep in the list: its place is found by binary search.
        let cursor = first.next_cursor!;
        for (let p = 0; p < 5; p++) cursor = read(hub, `${list.path}?limit=${limit}&cursor=${encodeURIComponent(cursor)}`).next_cursor!;
        touched.clear();
        const deep = read(hub, `${list.path}?limit=${limit}&cursor=${encodeURIComponent(cursor)}`);
        expect(deep.data).toHaveLength(limit);
        expect(touched.size, `${what}, ${n} records, a later page`).toBeLessThanOrEqual(limit + 1 + Math.ceil(Math.log2(n)) + 1);
        hub.shutdown();
      }
    });
  }
});

describe("a timeline", () => {
  const at = (i: number) => ({ id: `r_${String(i).padStart(5, "0")}`, created_at: Math.floor(i / 3) });

  it("keeps its records in creation order whatever order they come in, and drops from the old end", () => {
    const t = new Timeline<Dated>();
    const order = Array.from({ length: 3000 }, (_, i) => i).sort((a, b) => ((a * 7919) % 3001) - ((b * 7919) % 3001));
    for (const i of order) t.add(at(i));
    expect([...t].map((r) => r.id)).toEqual(Array.from({ length: 3000 }, (_, i) => at(i).id));
    expect(t.countOlder(at(1500).created_at, at(1500).id)).toBe(1500);
    for (let i = 0; i < 2500; i++) expect(t.shift()!.id).toBe(at(i).id); // past a compaction
    expect(t.size).toBe(500);
    t.unshift({ id: "r_02499", created_at: at(2499).created_at });
    expect(t.oldest!.id).toBe("r_02499");
    expect(t.at(1)!.id).toBe(at(2500).id);
    expect(t.countOlder(at(2600).created_at, at(2600).id)).toBe(101);
  });

  it("merges several timelines' copies into one creation order", () => {
    const lists = [[0, 3, 4], [1, 2, 6], [5]].map((l) => l.map(at));
    expect([...merged(lists)].map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => at(i).id));
  });
});
