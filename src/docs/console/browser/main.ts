// The try-it panels of the reference page: one per operation, put into the operation's
// section wherever Redoc renders it (a link, the side menu, a search result all lead
// there), and put back if Redoc renders the section again. A panel keeps what the
// reader typed while the page is open.
import type { ConsoleModel } from "../model.ts";
import type { Validators } from "./check.ts";
import { DEFAULT_BASE, Panel, type Page } from "./panel.ts";
import { probeServer, type Server } from "./server.ts";

/** Where a panel goes: after the operation's first part (its title and description's head). */
function place(operation: Element, panel: Panel): void {
  if (operation.contains(panel.root)) return;
  const first = operation.firstElementChild;
  if (first) first.after(panel.root);
  else operation.prepend(panel.root);
}

export function boot(model: ConsoleModel, validators: Validators): void {
  let server: Promise<Server> | undefined;
  const page: Page = {
    model,
    validators,
    server: () => (server ??= probeServer(location)),
    staticBase: { value: DEFAULT_BASE },
  };
  const byId = new Map(model.operations.map((o) => [o.id, o]));
  const panels = new Map<string, Panel>();

  const attach = () => {
    for (const operation of document.querySelectorAll('[data-item-kind="httpItem"][id]')) {
      const op = byId.get(operation.id);
      if (!op) continue;
      let panel = panels.get(op.id);
      if (!panel) panels.set(op.id, (panel = new Panel(page, op)));
      place(operation, panel);
    }
  };
  let queued = false;
  const observer = new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      attach();
    });
  });
  observer.observe(document.body, { childList: true, subtree: true });
  attach();
}
