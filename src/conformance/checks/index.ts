// Every check of the suite, by the area of the seed it holds (one folder each).
import { discovery } from "./account/discovery.ts";
import { singletons } from "./account/singletons.ts";
import { keyPlacement } from "./auth/key-placement.ts";
import { ladder } from "./auth/ladder.ts";
import { ladderEveryRoute } from "./auth/ladder-every-route.ts";
import { queryCredentials } from "./auth/query-credentials.ts";
import { pathSpellings } from "./auth/spellings.ts";
import { fewerScopesEveryRoute } from "./auth/fewer-scopes.ts";
import { billing } from "./billing/billing.ts";
import { knowledge, models } from "./catalog/catalog.ts";
import { routes } from "./endpoints/routes.ts";
import { envelope, localisation } from "./errors/envelope.ts";
import { frameworkRefusals } from "./errors/framework-refusals.ts";
import { heartbeatEnd, heartbeatStart } from "./events/heartbeat.ts";
import { eventRetention } from "./events/retention.ts";
import { streamBasics, streamLimit } from "./events/stream.ts";
import { batch, readGenerations } from "./generations/reads.ts";
import { titleChanges } from "./generations/titles.ts";
import { ambiguous } from "./inputs/ambiguous.ts";
import { boundsEveryInput } from "./inputs/bounds.ts";
import { typesEveryInput } from "./inputs/types.ts";
import { generated } from "./inputs/generated.ts";
import { library } from "./library/library.ts";
import { busySlots } from "./limits/busy-slots.ts";
import { requestCosts } from "./limits/request-costs.ts";
import { windowExceeded } from "./limits/window-exceeded.ts";
import { windows } from "./limits/windows.ts";
import { oauthClients } from "./oauth/clients.ts";
import { discoveryDocuments } from "./oauth/discovery.ts";
import { oauthDocument } from "./oauth/document.ts";
import { oauthFlow } from "./oauth/flow.ts";
import { oauthRefusals } from "./oauth/refusals.ts";
import { oauthToken } from "./oauth/token.ts";
import { tokenExpiry } from "./oauth/token-expiry.ts";
import { anotherAccountEveryRoute } from "./other-account/every-route.ts";
import { paging } from "./paging/paging.ts";
import { pricing } from "./pricing/estimates.ts";
import { reports } from "./reports/reports.ts";
import { session } from "./session/session.ts";
import { sessionOnly } from "./session/session-only.ts";
import { controlledSequences } from "./states/controlled.ts";
import { goneSweep } from "./states/gone.ts";
import { planRefusals } from "./submits/plan-refusals.ts";
import { submitSequence } from "./submits/sequence.ts";
import { spend } from "./submits/spend.ts";
import { supportSend } from "./support/send.ts";
import { supportThread } from "./support/thread.ts";
import { uploadBetweenPages } from "./uploads/between-pages.ts";
import { signatureExpiry } from "./uploads/signature-expiry.ts";
import { uploads } from "./uploads/uploads.ts";
import { type Check } from "../facts/check.ts";

/**
 * Every check, by area (its folder). Membership only: the order a run takes is derived
 * from each check's declaration (run/plan.ts), whatever the order here.
 */
export const CHECKS: readonly Check[] = [
  // account/
  discovery,
  singletons,
  // auth/
  keyPlacement,
  ladder,
  ladderEveryRoute,
  queryCredentials,
  pathSpellings,
  fewerScopesEveryRoute,
  // billing/
  billing,
  // catalog/
  models,
  knowledge,
  // endpoints/
  routes,
  // errors/
  envelope,
  localisation,
  frameworkRefusals,
  // events/
  heartbeatStart,
  heartbeatEnd,
  eventRetention,
  streamBasics,
  streamLimit,
  // generations/
  batch,
  readGenerations,
  titleChanges,
  // inputs/
  ambiguous,
  boundsEveryInput,
  typesEveryInput,
  generated,
  // library/
  library,
  // limits/
  busySlots,
  requestCosts,
  windowExceeded,
  windows,
  // oauth/
  discoveryDocuments,
  oauthRefusals,
  oauthClients,
  oauthFlow,
  oauthToken,
  oauthDocument,
  tokenExpiry,
  // other-account/
  anotherAccountEveryRoute,
  // paging/
  paging,
  // pricing/
  pricing,
  // reports/
  reports,
  // session/
  session,
  sessionOnly,
  // states/
  controlledSequences,
  goneSweep,
  // submits/
  planRefusals,
  spend,
  submitSequence,
  // support/
  supportThread,
  supportSend,
  // uploads/
  uploads,
  uploadBetweenPages,
  signatureExpiry,
];
