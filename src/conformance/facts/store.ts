// The facts of one run: each learnt one's value, or why it is missing; each gathered one's
// list. Written by the checks that provide them (through the context, which holds each
// check to its declaration) and by the runner (a provider that did not run, or did not
// say), read by the checks that need or use them and by the report.
import { type FactName, type Gathered, type GatheredName, type Learnt } from "./learnt.ts";

export class FactStore {
  readonly #values = new Map<FactName, unknown>();
  readonly #missing = new Map<FactName, string>();
  readonly #gathered: Gathered = { created: [], uploads: [], gone: [] };

  learn<K extends FactName>(name: K, value: Learnt[K]): void {
    this.#values.set(name, value);
    this.#missing.delete(name);
  }

  missing(name: FactName, why: string): void {
    if (!this.#values.has(name)) this.#missing.set(name, why);
  }

  add<K extends GatheredName>(name: K, items: Gathered[K]): void {
    (this.#gathered[name] as unknown[]).push(...items);
  }

  value<K extends FactName>(name: K): Learnt[K] | undefined {
    return this.#values.get(name) as Learnt[K] | undefined;
  }

  gathered<K extends GatheredName>(name: K): Gathered[K] {
    return this.#gathered[name];
  }

  /** Whether the fact is settled: learnt, or missing with a reason. */
  settled(name: FactName): boolean {
    return this.#values.has(name) || this.#missing.has(name);
  }

  /** Why a fact is not known (empty when it is). */
  why(name: FactName): string {
    return this.#missing.get(name) ?? (this.#values.has(name) ? "" : "no check learnt it");
  }
}


