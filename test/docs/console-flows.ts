// What a reader does with the reference's try-it panel, in Chromium, as steps shared by the
// test against a simulator in this process (console-browser.test.ts) and the one against
// the packed `generation-hub mock` in a fresh project (test/devtools/consumer.test.ts).
// Each flow checks what the issue (27) asks of it; the simulator's journal is read over
// HTTP (GET <base>/_sim/requests), as any tool reads it.
import type { BrowserContext, Locator, Page } from "playwright-core";
import { expect } from "vitest";

export interface JournalRow {
  seq: number;
  request_id: string;
  route: string | null;
  status: number;
  error_code: string | null;
  credential: { id: string | null; channel: string } | null;
  reason: { by: string | null; text: string; details: { field: string | null; reason: string; message: string }[] } | null;
}

/** A simulator serving the docs, at `base` (its root, or a sandbox's prefix). */
export interface ConsoleTarget {
  base: string;
}

export const referenceOf = (t: ConsoleTarget) => `${t.base}/docs/reference.html`;

/** The journal's rows for one request id (newest first). */
export async function journalRows(t: ConsoleTarget, requestId: string): Promise<JournalRow[]> {
  const answer = await fetch(`${t.base}/_sim/requests?request_id=${encodeURIComponent(requestId)}`);
  return ((await answer.json()) as { data: JournalRow[] }).data;
}

/** Console messages that are the browser's note of an answer with an error status the panel asked for. */
const EXPECTED_NOTE = /^Failed to load resource: the server responded with a status of (400|401|403|404|409)/;

/** Collects a page's errors (a refused answer's network note excepted). */
export function watchErrors(page: Page, errors: string[]): void {
  page.on("console", (m) => {
    if (m.type() === "error" && !EXPECTED_NOTE.test(m.text())) errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${page.url()}: ${e.message}`));
}

/** The panel of an operation shown on the page (its operationId), opened. */
export async function openPanel(page: Page, operationId: string): Promise<Locator> {
  const panel = page.locator(`section.hub-console[data-operation="${operationId}"]`);
  await panel.waitFor({ state: "visible", timeout: 15_000 });
  const toggle = panel.getByRole("button", { name: "Try it" });
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await panel.locator('[data-role="server"]').filter({ hasNotText: "Finding the simulator" }).waitFor();
  return panel;
}

/**
 * Opens the reference at an operation's route (a link into it; on a page showing the
 * reference already, only the route changes) with its panel on its first request: the
 * contract's first example, a new Idempotency-Key.
 */
export async function openAt(page: Page, t: ConsoleTarget, route: string, operationId: string): Promise<Locator> {
  await page.goto(`${referenceOf(t)}${route}`);
  const panel = await openPanel(page, operationId);
  await panel.getByLabel("Request", { exact: true }).selectOption("0");
  return panel;
}

/** Clicks Send and waits for the answer (a new X-Request-Id) and the verdict after it; answers the status line and the id sent. */
export async function sendAndRead(panel: Locator, button = "Send"): Promise<{ status: string; requestId: string }> {
  const idCell = panel.locator('[data-role="answer-headers"] tr', { hasText: "x-request-id" }).locator("td");
  const current = async () => ((await idCell.count()) > 0 ? await idCell.textContent() : null);
  const previous = await current();
  await panel.getByRole("button", { name: button, exact: true }).click();
  await expect.poll(async () => { const id = await current(); return id !== null && id !== previous; }, { timeout: 10_000, message: "the answer shows" }).toBe(true);
  // The verdict (or why there is none) follows the answer.
  await panel.locator('[data-role="verdict"]').filter({ hasNotText: "Reading the simulator's verdict" }).waitFor({ timeout: 10_000 });
  return { status: (await panel.locator('[data-role="answer-status"]').textContent()) ?? "", requestId: (await current())! };
}

/** Picks a credential by the start of its label (a demo key's secret, "No credential", ...). */
export async function pickCredential(panel: Locator, label: string): Promise<void> {
  const select = panel.getByLabel("Credential", { exact: true });
  const value = await select.locator("option", { hasText: label }).first().getAttribute("value");
  await select.selectOption(value!);
}

const answerJson = async (panel: Locator) => JSON.parse((await panel.locator('[data-role="answer-body"]').textContent()) ?? "null") as Record<string, unknown>;

/**
 * A submit from its panel reached through the page's search answers 202, its row is in the
 * journal with the inspector link `/_sim/ui/#request=<seq>`; the same Idempotency-Key
 * again answers the same record.
 */
export async function submitThroughSearch(page: Page, t: ConsoleTarget): Promise<void> {
  await page.goto(`${referenceOf(t)}#/`);
  await page.locator('[data-testid="search-trigger"]', { hasText: "Search" }).click();
  const input = page.getByPlaceholder(/search/i);
  await input.fill("Submit a generation");
  const result = page.locator('[data-component-name="Search/SearchItem"]', { hasText: "Submit a generation" }).first();
  await result.click();
  await expect.poll(() => page.url()).toMatch(/#\/generations\/submitgeneration/);
  const panel = await openPanel(page, "submitGeneration");
  await pickCredential(panel, "ghk_demo_full:");
  const first = await sendAndRead(panel);
  expect(first.status).toMatch(/^202 /);
  const record = await answerJson(panel);
  expect(record.status).toBe("QUEUED");
  const [row] = await journalRows(t, first.requestId);
  expect(row).toMatchObject({ route: "submitGeneration", status: 202, credential: { id: "key_full" } });
  const link = panel.locator('[data-role="inspector-link"]');
  expect(await link.getAttribute("href")).toBe(`${t.base}/_sim/ui/#request=${row!.seq}`);
  // The same key again: the same record, no second generation.
  const again = await sendAndRead(panel);
  expect(again.status).toMatch(/^202 /);
  expect((await answerJson(panel)).id).toBe(record.id);
  expect(again.requestId).not.toBe(first.requestId);
}

/**
 * A body with a wrong type is flagged before sending, with the reasons the server then
 * gives; sent anyway, the 400 shows its details and the simulator's verdict.
 */
export async function wrongBodyFlagged(page: Page, t: ConsoleTarget): Promise<void> {
  const panel = await openAt(page, t, "#/generations/submitgeneration", "submitGeneration");
  await pickCredential(panel, "ghk_demo_full:");
  await panel.getByLabel("Request", { exact: true }).selectOption("wrong");
  const check = panel.locator('[data-role="check"]');
  await expect.poll(() => check.textContent()).toContain("duration: wrong_type");
  const flagged = await check.locator("li").allTextContents();
  expect(flagged).toEqual(["duration: wrong_type (Field has a different type than the schema.), duration must be integer"]);
  // Send does not send a body the contract refuses: it offers to send it anyway.
  const shown = async () => panel.locator('[data-role="answer"]').textContent();
  const before = await shown();
  await panel.getByRole("button", { name: "Send", exact: true }).click();
  const anyway = panel.getByRole("button", { name: "Send anyway" });
  await anyway.waitFor({ state: "visible" });
  expect(await shown()).toBe(before);
  const sent = await sendAndRead(panel, "Send anyway");
  expect(sent.status).toMatch(/^400 /);
  const body = (await answerJson(panel)) as { error: { code: string; details: { field: string; reason: string; message: string }[] } };
  expect(body.error.code).toBe("invalid_request");
  expect(body.error.details.map((d) => `${d.field}: ${d.reason}`)).toEqual(["duration: wrong_type"]);
  const verdict = panel.locator('[data-role="verdict"]');
  expect(await verdict.locator("li").allTextContents()).toEqual(flagged);
  expect(await verdict.locator('[data-role="verdict-text"]').textContent()).toContain("400 invalid_request");
  const [row] = await journalRows(t, sent.requestId);
  expect(row).toMatchObject({ status: 400, error_code: "invalid_request" });
  expect(await verdict.locator('[data-role="inspector-link"]').getAttribute("href")).toBe(`${t.base}/_sim/ui/#request=${row!.seq}`);
}

/** With no credential picked a read answers 401, while the browser holds a site session (which, picked, answers 200). */
export async function noCredentialMeansNone(context: BrowserContext, page: Page, t: ConsoleTarget): Promise<void> {
  const signIn = await context.request.post(`${t.base}/site/sign-in`, { data: { account_id: "acc_demo" }, headers: { origin: new URL(t.base).origin } });
  expect(signIn.status()).toBe(200);
  expect((await context.cookies(t.base)).length).toBeGreaterThan(0);
  const panel = await openAt(page, t, "#/account/readaccount", "readAccount");
  await pickCredential(panel, "No credential");
  const none = await sendAndRead(panel);
  expect(none.status).toMatch(/^401 /);
  expect((await journalRows(t, none.requestId))[0]).toMatchObject({ status: 401, error_code: "unauthorized", credential: null });
  await pickCredential(panel, "The site's session cookie");
  const session = await sendAndRead(panel);
  expect(session.status).toMatch(/^200 /);
  expect((await journalRows(t, session.requestId))[0]!.credential).toMatchObject({ channel: "session" });
}

/** A key without the scope: the 403 with its rung. */
export async function missingScope(page: Page, t: ConsoleTarget): Promise<void> {
  const panel = await openAt(page, t, "#/generations/submitgeneration", "submitGeneration");
  await pickCredential(panel, "ghk_demo_readonly:");
  const sent = await sendAndRead(panel);
  expect(sent.status).toMatch(/^403 /);
  const verdict = panel.locator('[data-role="verdict-text"]');
  expect(await verdict.getAttribute("data-by")).toBe("scope");
  expect(await verdict.textContent()).toMatch(/^403 insufficient_scope, refused by the refusal ladder, rung "scope"/);
}

/** `GET /v1/events` shows a generation.status_changed frame after a submit from another panel; Stop ends it. */
export async function eventsFromAnotherPanel(context: BrowserContext, events: Page, t: ConsoleTarget): Promise<void> {
  const submit = await context.newPage();
  try {
    const stream = await openAt(events, t, "#/events/streamgenerationevents", "streamGenerationEvents");
    await pickCredential(stream, "ghk_demo_full:");
    const opened = await sendAndRead(stream);
    expect(opened.status).toMatch(/^200 /);
    await stream.locator('[data-role="stream-state"]', { hasText: "Open" }).waitFor();
    const panel = await openAt(submit, t, "#/generations/submitgeneration", "submitGeneration");
    await pickCredential(panel, "ghk_demo_full:");
    expect((await sendAndRead(panel)).status).toMatch(/^202 /);
    const id = (await answerJson(panel)).id as string;
    const frame = stream.locator('[data-role="frames"] li', { hasText: id }).first();
    await frame.waitFor({ timeout: 10_000 });
    expect(await frame.locator("code").first().textContent()).toBe("generation.status_changed");
    await stream.getByRole("button", { name: "Stop" }).click();
    await stream.locator('[data-role="stream-state"]', { hasText: "The stream ended: stopped." }).waitFor();
  } finally {
    await submit.close();
  }
}
