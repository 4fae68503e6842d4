// The panel's script (assets/console-app.js), loaded by the page's first "Try it" click
// (loader.ts): the model of every operation, the body validators, and the panels, which
// share what serves the page (found out once) and the simulator's address on the static site.
import type { ConsoleModel } from "../model.ts";
import type { Validators } from "./check.ts";
import type { ConsoleApp } from "./loader.ts";
import { DEFAULT_BASE, Panel, type Page } from "./panel.ts";
import { probeServer, type Server } from "./server.ts";

export function consoleApp(model: ConsoleModel, validators: Validators): ConsoleApp {
  let server: Promise<Server> | undefined;
  const page: Page = {
    model,
    validators,
    server: () => (server ??= probeServer(location)),
    staticBase: { value: DEFAULT_BASE },
  };
  const byOperationId = new Map(model.operations.map((o) => [o.operationId, o]));
  return {
    mount(body, operationId) {
      const op = byOperationId.get(operationId);
      if (!op) throw new Error(`no operation ${operationId} in the panel's model`);
      body.replaceChildren();
      new Panel(page, op, body);
    },
  };
}
