// Building the panel's elements. Text from answers, the journal or the reader always goes
// in as text, never as HTML: an answer body may hold anything.

type Child = Node | string | number | null | undefined | false | Child[];
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** An element with attributes (`on<event>` for handlers, `class`), and children as nodes or text. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(node: Element, ...children: Child[]): void {
  node.replaceChildren();
  append(node, children);
}

let ids = 0;
/** A fresh id for a label's `for` and a region's `aria-controls`. */
export const newId = (stem: string) => `hub-console-${stem}-${++ids}`;

/** A random UUID (v4): `crypto.randomUUID` where the page is a secure context, else from random bytes. */
export function uuid(): string {
  if (typeof crypto.randomUUID === "function" && isSecureContext) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
