// Part 2 of the simulator, library side: billing (ledger, live subscription), the
// library, uploads with their storage endpoint, and the support thread. The Hub calls
// `installLibrary` once; its records live in `hub.state` (the ledger, the account's
// `subscription`) and in `hub.state.extensions` (see the modules), so a reset clears them.
import { billingHandlers } from "./handlers/billing.ts";
import type { Hub } from "./hub.ts";

export function installLibrary(hub: Hub): void {
  hub.use(billingHandlers);
}
