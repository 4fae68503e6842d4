// Every handler of the simulator, in one table each: the contract's operations by
// operationId, the mounts outside them (storage, the site's pages, the consent form) and
// the control routes under /_sim/ by method and path. hub.ts puts them together.
import type { Handler } from "../pipeline/context.ts";
import type { Mount } from "../pipeline/dispatch.ts";
import { accountHandlers } from "./account.ts";
import { billingHandlers } from "./billing.ts";
import { catalogHandlers } from "./catalog.ts";
import type { ControlRoutes } from "./control/body.ts";
import { coreControl } from "./control/core.ts";
import { faultsControl } from "./control/faults.ts";
import { inspectorControl } from "./control/inspector/index.ts";
import { libraryControl } from "./control/library.ts";
import { oauthControl } from "./control/oauth.ts";
import { scenarioControl } from "./control/scenarios.ts";
import { sessionsControl } from "./control/sessions.ts";
import { subscriptionControl } from "./control/subscriptions.ts";
import { eventsHandlers } from "./events.ts";
import { generationsHandlers } from "./generations.ts";
import { libraryHandlers } from "./library.ts";
import { consentMount, oauthHandlers } from "./oauth/index.ts";
import { pricingHandlers } from "./pricing.ts";
import { siteMount } from "./site.ts";
import { STORAGE_PREFIX, storageHandler } from "./storage.ts";
import { subscriptionHandlers } from "./subscription.ts";
import { supportHandlers } from "./support.ts";
import { uploadsHandlers } from "./uploads.ts";

export { controlMount } from "./control/mount.ts";

export const operationHandlers: Readonly<Record<string, Handler>> = {
  ...accountHandlers,
  ...catalogHandlers,
  ...generationsHandlers,
  ...eventsHandlers,
  ...pricingHandlers,
  ...billingHandlers,
  ...libraryHandlers,
  ...uploadsHandlers,
  ...supportHandlers,
  ...subscriptionHandlers,
  ...oauthHandlers,
};

/** In order: /site/oauth/ (the consent form) ahead of /site/ (sign-in and out). */
export const mounts: readonly Mount[] = [{ prefix: STORAGE_PREFIX, handle: storageHandler }, consentMount, siteMount];

/** The control interface's routes by `METHOD path` (after /_sim/), as the operations' are by operationId. */
export const controlHandlers: ControlRoutes = {
  ...coreControl,
  ...scenarioControl,
  ...faultsControl,
  ...libraryControl,
  ...sessionsControl,
  ...subscriptionControl,
  ...oauthControl,
  ...inspectorControl,
};
