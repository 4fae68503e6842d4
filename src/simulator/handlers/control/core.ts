// The control interface's own routes under /_sim/ (outside /v1): the state, reset, the
// clock, the API switch, keys, accounts and generations, for tests and for frontend
// developers who want to move the clock, force an outcome, withdraw access and so on.
// Answers are JSON; refusals use the API's envelope. Every change that can withdraw
// access re-checks the open event streams (they get `terminated`). The other modules of
// this folder hold the rest; handlers/index.ts puts the tables together.
import { scopes as allScopes } from "../../../contract/tables.ts";
import { recordLedger } from "../../domain/ledger.ts";
import { outcomeOf } from "../../domain/outcomes.ts";
import { refuse, type Refusal } from "../../domain/refusal.ts";
import { isRefusal, json, type Ctx } from "../../pipeline/context.ts";
import type { HubServices } from "../../pipeline/services.ts";
import type { Account, ApiKey } from "../../state/accounts.ts";
import type { Generation } from "../../state/generations.ts";
import { isoTime, LONGEST_SPAN_DAYS } from "../../state/util.ts";
import { controlBody, invalid, type ControlBody as Body, type ControlHandler, type ControlRoutes } from "./body.ts";
import { sandboxControl } from "./sandboxes.ts";

type Hub = HubServices;

function keyView(hub: Hub, k: ApiKey) {
  return {
    secret: k.secret,
    id: k.id,
    account_id: k.account_id,
    scopes: k.scopes,
    expires_at: k.expires_at === null ? null : isoTime(k.expires_at),
    expired: k.expires_at !== null && k.expires_at <= hub.clock.now(),
    revoked: k.revoked,
    spend_limit_cc: k.spend_limit_cc,
    spent_cc: k.spent_cc,
    purpose: k.purpose,
  };
}

function generationView(hub: Hub, g: Generation, base: string) {
  return {
    ...hub.generations.record(g, base),
    account_id: g.account_id,
    deleted: g.deleted,
    charged_cc: g.charged_cc,
    next_at: g.next_at === null ? null : isoTime(g.next_at),
    planned: g.steps.map((s) => ({ status: s.status, after_seconds: s.afterMs / 1000, ...(s.reason ? { reason: s.reason } : {}), ...(s.late ? { late: true } : {}) })),
  };
}

function clockView(hub: Hub) {
  const now = hub.clock.now();
  return { now: isoTime(now), now_ms: now, speed: hub.clock.speed };
}

function findKey(hub: Hub, ref: string): ApiKey | undefined {
  return hub.state.keys.get(ref) ?? [...hub.state.keys.values()].find((k) => k.id === ref);
}

function applyAccount(account: Account, body: Body): Refusal | undefined {
  if ("plan" in body) {
    const p = body.plan;
    if (p === "free" || p === null) account.plan = { id: "free", paid: false };
    else if (typeof p === "string") account.plan = { id: p, paid: true };
    else return invalid("plan", "plan is a plan id (paid) or \"free\"/null (no paid plan)", "wrong_type");
  }
  if ("balance_cc" in body) {
    if (!Number.isSafeInteger(body.balance_cc)) return invalid("balance_cc", "balance_cc must be an integer", "wrong_type");
    account.balance_cc = body.balance_cc as number;
  }
  for (const flag of ["api_access", "suspended", "terms_accepted", "early_access"] as const) {
    if (flag in body) {
      if (typeof body[flag] !== "boolean") return invalid(flag, `${flag} must be a boolean`, "wrong_type");
      account[flag] = body[flag] as boolean;
    }
  }
  return undefined;
}

const state: ControlHandler = (ctx) => {
  const hub = ctx.hub;
  return json(ctx, 200, {
    scenario: hub.scenario.name,
    starting_scenario: hub.startingScenario.name,
    clock: clockView(hub),
    api_enabled: hub.state.api_enabled,
    accounts: [...hub.state.accounts.values()],
    keys: [...hub.state.keys.values()].map((k) => keyView(hub, k)),
    open_streams: hub.events.openStreams.size,
  });
};

const createKey: ControlHandler = (ctx) => {
  const hub = ctx.hub;
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  const accountId = typeof body.account_id === "string" ? body.account_id : "acc_demo";
  if (!hub.state.accounts.has(accountId)) return invalid("account_id", "no such account", "not_allowed");
  const scopes = body.scopes ?? allScopes;
  if (!Array.isArray(scopes) || scopes.some((s) => !allScopes.includes(s as string))) return invalid("scopes", "scopes must be scopes of the vocabulary", "not_allowed");
  const expiresIn = body.expires_in_seconds;
  if (expiresIn !== undefined && typeof expiresIn !== "number") return invalid("expires_in_seconds", "expires_in_seconds must be a number", "wrong_type");
  if (typeof expiresIn === "number" && !(Math.abs(expiresIn) <= LONGEST_SPAN_DAYS * 86_400)) {
    return invalid("expires_in_seconds", `expires_in_seconds is a number from -${LONGEST_SPAN_DAYS * 86_400} to ${LONGEST_SPAN_DAYS * 86_400}`, "out_of_range");
  }
  const now = hub.clock.now();
  const id = hub.ids.next("key_", now);
  const key: ApiKey = {
    secret: `${hub.keyPrefix}${id.slice(4).toLowerCase()}`,
    id,
    account_id: accountId,
    scopes: [...(scopes as string[])],
    expires_at: typeof expiresIn === "number" ? now + expiresIn * 1000 : null,
    revoked: false,
    spend_limit_cc: null,
    spent_cc: 0,
    purpose: typeof body.purpose === "string" ? body.purpose : "created through /_sim/keys",
  };
  hub.state.keys.set(key.secret, key);
  hub.watchExpiry(key.expires_at);
  return json(ctx, 201, keyView(hub, key));
};

/** A change to the key `{key}` (by secret or id); its open streams are re-checked. */
function keyChange(change: (ctx: Ctx, key: ApiKey) => Refusal | undefined): ControlHandler {
  return (ctx, { key: ref }) => {
    const key = findKey(ctx.hub, ref!);
    if (!key) return refuse("not_found", { message: "No such key." });
    const refused = change(ctx, key);
    if (refused) return refused;
    ctx.hub.recheckStreams();
    return json(ctx, 200, keyView(ctx.hub, key));
  };
}

function updateKey(ctx: Ctx, key: ApiKey): Refusal | undefined {
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  if ("scopes" in body) {
    const s = body.scopes;
    if (!Array.isArray(s) || s.some((x) => !allScopes.includes(x as string))) return invalid("scopes", "scopes must be scopes of the vocabulary", "not_allowed");
    key.scopes = [...(s as string[])];
  }
  if ("revoked" in body) {
    if (typeof body.revoked !== "boolean") return invalid("revoked", "revoked must be a boolean", "wrong_type");
    key.revoked = body.revoked;
  }
  if ("spend_limit_cc" in body) {
    const v = body.spend_limit_cc;
    if (v !== null && !Number.isSafeInteger(v)) return invalid("spend_limit_cc", "spend_limit_cc must be an integer or null", "wrong_type");
    key.spend_limit_cc = v as number | null;
  }
  return undefined;
}

const readAccount: ControlHandler = (ctx, { id }) => {
  const account = ctx.hub.state.accounts.get(id!);
  return account ? json(ctx, 200, account) : refuse("not_found", { message: "No such account." });
};

const updateAccount: ControlHandler = (ctx, { id }) => {
  const hub = ctx.hub;
  const account = hub.state.accounts.get(id!);
  if (!account) return refuse("not_found", { message: "No such account." });
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  const before = account.balance_cc;
  const refused = applyAccount(account, body);
  // The ledger keeps adding up to the balance.
  if (account.balance_cc !== before) recordLedger(hub, account.id, account.balance_cc - before, null, null);
  if (refused) return refused;
  hub.recheckStreams();
  return json(ctx, 200, account);
};

/** A change to the live generation `{id}`; a deleted one answers 404. */
function generationChange(change: (ctx: Ctx, gen: Generation) => Refusal | undefined): ControlHandler {
  return (ctx, { id }) => {
    const gen = ctx.hub.state.generations.get(id!);
    if (!gen || gen.deleted) return refuse("not_found", { message: "No such generation." });
    return change(ctx, gen) ?? json(ctx, 200, generationView(ctx.hub, gen, ctx.baseUrl));
  };
}

function forceOutcome(ctx: Ctx, gen: Generation): Refusal | undefined {
  const body = controlBody(ctx);
  if (isRefusal(body)) return body;
  const outcome = typeof body.outcome === "string" ? outcomeOf(body.outcome, typeof body.reason === "string" ? body.reason : undefined) : undefined;
  if (!outcome || outcome === "blocked") return invalid("outcome", "outcome is one of done, fail, hold, slow, late", "not_allowed");
  if (!ctx.hub.generations.force(gen, outcome)) return refuse("resource_conflict", { message: `A ${gen.status} generation cannot take the outcome ${body.outcome}.` });
  return undefined;
}

function cancelGeneration(ctx: Ctx, gen: Generation): Refusal | undefined {
  // Cancelling, like starting, needs an active paid plan.
  const account = ctx.hub.state.accounts.get(gen.account_id);
  if (account && !account.plan.paid) return refuse("payment_required");
  return ctx.hub.generations.cancel(gen);
}

const deleteGeneration = generationChange((ctx, gen) => ctx.hub.generations.remove(gen));

export const coreControl: ControlRoutes = {
  "GET ": state, // /_sim/ itself
  "GET state": state,
  "POST reset": (ctx) => {
    ctx.hub.reset();
    return json(ctx, 200, { reset: true, clock: clockView(ctx.hub) });
  },
  "GET clock": (ctx) => json(ctx, 200, clockView(ctx.hub)),
  "POST clock": (ctx) => {
    const body = controlBody(ctx);
    if (isRefusal(body)) return body;
    if (typeof body.speed !== "number" || !(body.speed >= 0) || body.speed > 10_000) return invalid("speed", "speed is a number from 0 to 10000", "out_of_range");
    ctx.hub.clock.setSpeed(body.speed);
    return json(ctx, 200, clockView(ctx.hub));
  },
  "POST clock/advance": (ctx) => {
    const body = controlBody(ctx);
    if (isRefusal(body)) return body;
    const seconds = body.seconds ?? (typeof body.ms === "number" ? body.ms / 1000 : undefined);
    if (typeof seconds !== "number" || !(seconds >= 0) || seconds > 400 * 86_400) return invalid("seconds", "seconds is a number from 0 to 34560000", "out_of_range");
    ctx.hub.clock.advance(Math.round(seconds * 1000));
    ctx.hub.recheckStreams();
    return json(ctx, 200, clockView(ctx.hub));
  },
  "POST api": (ctx) => {
    const body = controlBody(ctx);
    if (isRefusal(body)) return body;
    if (typeof body.enabled !== "boolean") return invalid("enabled", "enabled must be a boolean", "wrong_type");
    ctx.hub.state.api_enabled = body.enabled;
    ctx.hub.recheckStreams();
    return json(ctx, 200, { api_enabled: ctx.hub.state.api_enabled });
  },
  "GET keys": (ctx) => json(ctx, 200, { data: [...ctx.hub.state.keys.values()].map((k) => keyView(ctx.hub, k)) }),
  "POST keys": createKey,
  "POST keys/{key}/revoke": keyChange((_ctx, key) => void (key.revoked = true)),
  "POST keys/{key}/expire": keyChange((ctx, key) => void (key.expires_at = ctx.hub.clock.now())),
  "PATCH keys/{key}": keyChange(updateKey),
  "GET accounts/{id}": readAccount,
  "PATCH accounts/{id}": updateAccount,
  // A deleted generation still reads (deleted: true).
  "GET generations/{id}": (ctx, { id }) => {
    const gen = ctx.hub.state.generations.get(id!);
    return gen ? json(ctx, 200, generationView(ctx.hub, gen, ctx.baseUrl)) : refuse("not_found", { message: "No such generation." });
  },
  "POST generations/{id}/outcome": generationChange(forceOutcome),
  "POST generations/{id}/cancel": generationChange(cancelGeneration),
  "POST generations/{id}/delete": deleteGeneration,
  "DELETE generations/{id}": deleteGeneration,
  // A sandbox is a hub of its own: made, listed and ended here (sandboxes.ts).
  ...sandboxControl,
};
