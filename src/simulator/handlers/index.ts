// The handlers of part 1, by operationId. Part 2 registers its own with `hub.use`.
import { accountHandlers } from "./account.ts";
import { catalogHandlers } from "./catalog.ts";
import { eventsHandlers } from "./events.ts";
import { generationsHandlers } from "./generations.ts";
import { pricingHandlers } from "./pricing.ts";

export const coreHandlers = {
  ...accountHandlers,
  ...catalogHandlers,
  ...generationsHandlers,
  ...eventsHandlers,
  ...pricingHandlers,
};
