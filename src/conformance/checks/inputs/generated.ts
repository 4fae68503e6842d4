// Generated inputs (`--generate[=N]`, `--seed`): for each operation of the contract, N
// requests built from its schemas (kit/generate/), judged by this API's rules, each
// finding shrunk and charged to its seed rule. It learns first what the schemas cannot
// know: the catalog's models, ids of objects the account has, cursors, a folder of its own.
import { operations } from "../../../contract/index.ts";
import { casesFor, operationSeed } from "../../kit/generate/cases.ts";
import { gateOf, generatedRules, planFor, type Known, type Plan } from "../../kit/generate/plans.ts";
import type { GeneratedReport } from "../../facts/generated.ts";
import { runCases } from "./send-cases.ts";
import { STATEFUL_RULES, walk } from "./walk.ts";
import { randomToken } from "../../kit/ids.ts";
import { knownOf, KNOWN_FACTS } from "../../kit/known.ts";
import { errorCodeOf } from "../../target/exchange.ts";
import { onlyMatches } from "../../judge/results.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";


const PAGED = ["listGenerations", "listCreditTransactions", "listLibraryAssets"] as const;
const PAGED_PATH: Record<(typeof PAGED)[number], string> = { listGenerations: "/v1/generations", listCreditTransactions: "/v1/billing/transactions", listLibraryAssets: "/v1/library/assets" };

/** What the schemas cannot know, from earlier checks and a few reads. */
async function learn(c: CheckContext): Promise<Known> {
  const read = async (path: string, rule: string) => {
    const list = await c.get(path, rule);
    return list.status === 200 && Array.isArray(list.json?.data) ? (list.json.data as Record<string, any>[]) : undefined;
  };
  // What earlier checks did not learn is read again here (an empty catalog or list too).
  const models = c.known("models")?.length ? undefined : await read("/v1/models", "CAT-4");
  const own = c.known("ownGenerations")?.length ? undefined : await read("/v1/generations?limit=100", "GEN-1");
  const known = knownOf(c, { ...(models ? { models } : {}), ...(own ? { own } : {}) });
  const knowledge = await c.get("/v1/knowledge?limit=100", "CAT-5");
  known.slugs = Array.isArray(knowledge.json?.data) ? knowledge.json.data.map((a: any) => a.slug).filter((x: unknown): x is string => typeof x === "string") : [];
  for (const op of PAGED) {
    const page = await c.get(`${PAGED_PATH[op]}?limit=1`, "PAGE-2");
    const next = page.json?.next_cursor;
    known.cursors[op] = typeof next === "string" ? [next] : [];
  }
  // A folder of its own only when an operation that changes or fills one is generated.
  const folderOps = ["changeLibraryFolder", "moveLibraryItems"];
  const ops = c.settings.generate?.operations;
  if (c.settings.writes && (!ops || ops.some((o) => folderOps.includes(o)))) known.folderId = await ownFolder(c);
  return known;
}

/** A folder of the generator's own (deleted at the end): the seed does not show a create reply, so it is found by name. */
async function ownFolder(c: CheckContext): Promise<string | undefined> {
  const name = `conformance-gen ${randomToken()}`;
  const made = await c.post("/v1/library/folders", { name }, "LIB-3");
  if (made.status >= 300) return undefined;
  return folderNamed(c, name);
}

async function folderNamed(c: CheckContext, name: string): Promise<string | undefined> {
  const list = await c.get("/v1/library/folders", "LIB-2");
  const found = Array.isArray(list.json?.data) ? list.json.data.find((f: any) => f.name === name) : undefined;
  return typeof found?.id === "string" ? found.id : undefined;
}

async function deleteFolder(c: CheckContext, id: string): Promise<void> {
  const gone = await c.request({ method: "DELETE", path: `/v1/library/folders/${encodeURIComponent(id)}`, rule: "LIB-5" });
  if (gone.status >= 300 && gone.status !== 404) c.note("LIB-5", `a folder the generator made (${id}) could not be deleted: ${gone.status} ${errorCodeOf(gone.json) ?? ""}`);
}

/** A folder a generated create made is deleted at once (the account's folders are bounded). */
function withCleanup(plan: Plan): Plan {
  if (plan.operation.operationId === "createLibraryFolder") {
    plan.after = async (c, sent) => {
      const name = (sent.body as { name?: unknown } | undefined)?.name;
      if (sent.status >= 300 || typeof name !== "string") return;
      const id = await folderNamed(c, name);
      if (id) await deleteFolder(c, id);
    };
  }
  return plan;
}

const NOT_SELECTED = "none of its rules selected (--only)";

function planRules(plan: Plan): string[] {
  return [plan.invalidRule, plan.validRule, ...Object.values(plan.fieldRules), ...(plan.body?.variants.map((v) => v.validRule) ?? [])];
}

export const generated: Check = {
  name: "generated inputs",
  rules: [...new Set([...generatedRules(), ...STATEFUL_RULES])],
  needs: { generate: true, uses: [...KNOWN_FACTS, "priced"] },
  provides: ["generated"],
  // Its inputs work on the run's objects as any client's might (a generated moderation
  // report revokes a generation, a move moves the run's file): after the checks that rely on them.
  alters: ["created", "uploads"],
  when: "last",
  async run(c) {
    const g = c.settings.generate!;
    const report: GeneratedReport = { seed: g.seed, perOperation: g.perOperation, operations: [], skipped: [], sequences: [] };
    c.learn("generated", report);
    const known = await learn(c);
    const only = c.settings.options.only;
    const selected = (rules: readonly string[]) => !only?.length || rules.some((id) => onlyMatches(id, only));
    try {
      for (const op of operations()) {
        if (g.operations && !g.operations.includes(op.operationId)) continue;
        // The flag gates the operation's invalid inputs as much as its valid ones (a server
        // that wrongly accepts an invalid submit spends, an invalid write changes state),
        // and it is said first: without it, what a plan needs was not made either.
        const gate = gateOf(op.operationId);
        if (gate && !selected(gate.rules)) {
          report.skipped.push({ operationId: op.operationId, reason: NOT_SELECTED });
          continue;
        }
        const flag =
          gate?.needs === "spend" && !c.settings.spend ? "needs --allow-spend (a generated request may cost credits, an invalid one too where the server wrongly accepts it)"
          : gate?.needs === "writes" && !c.settings.writes ? "needs --allow-writes (a generated request may change state, an invalid one too where the server wrongly accepts it)"
          : undefined;
        if (gate && flag) {
          report.skipped.push({ operationId: op.operationId, reason: flag });
          c.skip(gate.rules, `generated inputs of ${op.operationId} not sent, valid or invalid: ${flag}`);
          continue;
        }
        const plan = planFor(op.operationId, known);
        if ("skipped" in plan) {
          report.skipped.push({ operationId: op.operationId, reason: plan.skipped });
          continue;
        }
        if (!selected(planRules(plan))) {
          report.skipped.push({ operationId: op.operationId, reason: NOT_SELECTED });
          continue;
        }
        for (const v of plan.body?.variants ?? []) {
          if (!v.unavailable) continue;
          report.skipped.push({ operationId: `${op.operationId} (${v.name})`, reason: v.unavailable });
          c.skip([v.validRule], `generated ${v.name} bodies not sent: ${v.unavailable}`);
        }
        c.log(`  generating ${g.perOperation} inputs for ${op.operationId}`);
        const cases = casesFor(withCleanup(plan), known, g.perOperation, operationSeed(g.seed, op.operationId));
        report.operations.push(await runCases(c, plan, cases, { seed: g.seed, perOperation: g.perOperation }));
      }
      await walk(c, known, g, report.sequences);
    } finally {
      if (known.folderId) await deleteFolder(c, known.folderId);
    }
  },
};
