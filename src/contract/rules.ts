// The seed's normative rules (docs/seed-rules.yaml): ids, sections, wording, where the
// contract encodes each, and whether a client can observe it. Tests cite the ids; the
// conformance suite reports one row per observable rule.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export interface SeedRule {
  id: string;
  section: string;
  rule: string;
  contract: string[];
  observable: boolean;
}

const registry = fileURLToPath(new URL("../../docs/seed-rules.yaml", import.meta.url));

let cache: SeedRule[] | undefined;

export function seedRules(): SeedRule[] {
  if (cache) return cache;
  const doc = parse(readFileSync(registry, "utf8")) as { section: string; rules: (Omit<SeedRule, "section" | "observable"> & { observable?: boolean })[] }[];
  cache = doc.flatMap((s) => s.rules.map((r) => ({ ...r, section: s.section, observable: r.observable !== false })));
  return cache;
}

export function seedRule(id: string): SeedRule {
  const rule = seedRules().find((r) => r.id === id);
  if (!rule) throw new Error(`No seed rule ${id} in docs/seed-rules.yaml`);
  return rule;
}
