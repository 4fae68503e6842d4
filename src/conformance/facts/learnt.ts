// What checks learn and hand on to later checks, typed: one entry per fact, with what it
// is. A check declares the facts it provides and those it needs or uses (facts/check.ts);
// the runner orders the checks from those declarations and keeps the facts
// (facts/store.ts). A fact is known (its value), or missing with the reason: the server
// answered wrongly (a failure of the check that could not learn it), or it was not there
// to learn (an n/a reason its dependents repeat).
import type { EventStream } from "../target/stream.ts";
import type { GeneratedReport } from "./generated.ts";

/** Facts one check learns once. */
export interface Learnt {
  /** Who the main key is: `GET /v1/whoami` (`user_id`, `scopes`, `channel`, ...). */
  whoami: Record<string, any>;
  /** The model catalog (`GET /v1/models`). */
  models: Record<string, any>[];
  /** The main account's generation records (the first page of up to 100, newest first). */
  ownGenerations: Record<string, any>[];
  /** A second account (`--other-api-key` is a key of another account), with its generation records. */
  secondAccount: { key: string; generations: Record<string, any>[] };
  /** Bodies the server prices (200 from the estimate), cheapest first. */
  priced: Priced[];
  /** What the OAuth discovery documents name: the issuer, and the `resource` tokens are for. */
  oauthServer: { issuer?: string; resource?: string };
  /** A public OAuth client the suite registered. */
  oauthClient: { clientId: string; redirectUri: string; registered: boolean };
  /** The main account's balance before the spending checks submitted anything. */
  balanceBeforeSpend: number;
  /** The event stream opened first, to see a heartbeat by the end of the run. */
  heartbeat: EventStream;
  /** The generation of the properties across calls, once final: its status and result files (a deletion takes it). */
  settled: { id: string; status: string; outputs: string[] };
  /** The numbers of `limits.submissions` an accepted submit moves by one, and which way. */
  submitCounter: Map<string, 1 | -1>;
  /** What the generated inputs sent and found (`--generate`): for the report. */
  generated: GeneratedReport;
}

/** Facts several checks add to: a list of what each added (empty when none did). */
export interface Gathered {
  /** Generations the run created. */
  created: Record<string, any>[];
  /** Files the run uploaded. */
  uploads: Upload[];
  /** Objects the run made go (revoked, deleted): every route must answer them as gone. */
  gone: GoneObject[];
}

export type FactName = keyof Learnt;
export type GatheredName = keyof Gathered;
export type AnyFact = FactName | GatheredName;

/** What each fact is, in the words a reason quotes ("needs the model catalog: ..."). */
export const FACTS: Readonly<Record<AnyFact, string>> = {
  whoami: "who the main key is",
  models: "the model catalog",
  ownGenerations: "the account's generations",
  secondAccount: "a second account",
  priced: "a body the server prices",
  oauthServer: "the OAuth discovery documents",
  oauthClient: "an OAuth client of the suite's",
  balanceBeforeSpend: "the balance before the run spent anything",
  heartbeat: "the event stream opened for the heartbeat",
  settled: "a finished generation of the run",
  submitCounter: "the submit counter of limits.submissions",
  generated: "the generated inputs' report",
  created: "the generations the run created",
  uploads: "the files the run uploaded",
  gone: "the objects the run made go",
};

export function isGathered(name: AnyFact): name is GatheredName {
  return name === "created" || name === "uploads" || name === "gone";
}

export interface Priced {
  body: Record<string, unknown>;
  price_cc: number;
  model: Record<string, any>;
}

export interface Upload {
  reference: string;
  via: "direct" | "proxy";
  /** The library asset the file became (found at the head of the asset list). */
  assetId?: string;
  /** Its ticket's `expires_at`: when the signature stops (not the file). */
  signatureExpiresAt?: string;
  bytes: Uint8Array;
}

/** An object the run made go, for the sweep of every route that takes its id. */
export interface GoneObject {
  /** `generations`, `library/folders` (the kinds of kit/objects.ts). */
  kind: string;
  id: string;
  /** The rule that says it is gone (`REP-3` for a moderation report, `LIB-5` for a folder delete). */
  rule: string;
  /** How it went: `a moderation report`. */
  why: string;
  /** Its result files, as the record gave them. */
  outputs?: string[];
  /** Bodies to send to routes that take one, by operationId (the object's own, so that only its absence can refuse them). */
  bodies?: Record<string, unknown>;
}
