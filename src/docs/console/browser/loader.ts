// What the reference page loads at once (assets/console.js, a few KiB): a "Try it" button
// on every operation, put into the operation's section wherever Redoc renders it (a link,
// the side menu, a search result all lead there) and put back if Redoc renders the
// section again. The panel itself (its model of every operation, the body validators:
// assets/console-app.js) loads on the first click, so the page renders as fast as without
// it (npm run bench:docs). A panel keeps what the reader typed while the page is open.
import { el, newId } from "./dom.ts";

/** What the button of an operation needs to know. */
export interface ShellOperation {
  id: string;
  operationId: string;
  method: string;
  path: string;
  summary: string;
}

/** What the panel's script gives the page once loaded (app.ts). */
export interface ConsoleApp {
  mount(body: HTMLElement, operationId: string): void;
}

/** The global the panel's script sets: the page's own scripts only can reach it. */
export const APP_GLOBAL = "__generationHubConsole";

let app: Promise<ConsoleApp> | undefined;

/** Loads the panel's script once, from beside this one (so under any mount path). */
function loadApp(url: string): Promise<ConsoleApp> {
  return (app ??= new Promise((resolve, reject) => {
    const script = el("script", { src: url });
    script.addEventListener("load", () => {
      const loaded = (window as unknown as Record<string, ConsoleApp | undefined>)[APP_GLOBAL];
      if (loaded) resolve(loaded);
      else reject(new Error(`${url} did not set up the panel`));
    });
    script.addEventListener("error", () => reject(new Error(`${url} could not be loaded`)));
    document.head.append(script);
  }));
}

/** An operation's "Try it" button, and the body its panel is built into on the first click. */
function shell(op: ShellOperation, appUrl: string): HTMLElement {
  const bodyId = newId("body");
  const body = el("div", { id: bodyId, class: "hub-console-body", hidden: true });
  let mounted = false;
  const toggle = el("button", {
    type: "button",
    class: "hub-console-toggle",
    "aria-expanded": "false",
    "aria-controls": bodyId,
    onclick: () => {
      const open = toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", String(open));
      body.hidden = !open;
      if (!open || mounted) return;
      mounted = true;
      body.append(el("p", { class: "hub-console-note" }, "Loading the panel…"));
      loadApp(appUrl).then(
        (loaded) => loaded.mount(body, op.operationId),
        (e: Error) => {
          mounted = false;
          body.replaceChildren(el("p", { class: "hub-console-bad" }, `The panel could not load: ${e.message}.`));
        },
      );
    },
  }, "Try it");
  return el(
    "section",
    { class: "hub-console", "data-operation": op.operationId, "aria-label": `Try it: ${op.summary}` },
    el("div", { class: "hub-console-head" }, toggle, el("span", { class: "hub-console-hint" }, `Send ${op.method} ${op.path} from this page and see the answer`)),
    body,
  );
}

/** Where a panel goes: after the operation's first part (its title). */
function place(operation: Element, section: HTMLElement): void {
  if (operation.contains(section)) return;
  const first = operation.firstElementChild;
  if (first) first.after(section);
  else operation.prepend(section);
}

export function boot(operations: ShellOperation[], appUrl: string): void {
  const byId = new Map(operations.map((o) => [o.id, o]));
  const sections = new Map<string, HTMLElement>();
  const attach = () => {
    for (const operation of document.querySelectorAll('[data-item-kind="httpItem"][id]')) {
      const op = byId.get(operation.id);
      if (!op) continue;
      let section = sections.get(op.id);
      if (!section) sections.set(op.id, (section = shell(op, appUrl)));
      place(operation, section);
    }
  };
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      attach();
    });
  }).observe(document.body, { childList: true, subtree: true });
  attach();
}
