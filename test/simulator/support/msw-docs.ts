// The examples of docs/simulator.md's Mock Service Worker section, for the tests that run
// them (msw-docs.test.ts in Node, msw-browser.test.ts in Chromium). The docs' own sample run
// cannot take them: its type check works in a folder outside the project, where `msw` does
// not resolve (test/docs/code-samples.ts, NOT_RUN).
import { isSample, markdownBlocks } from "../../docs/code-samples.ts";

/** The ts block of docs/simulator.md that holds `text`. */
export function mswDocsSample(text: string): string {
  const found = markdownBlocks("docs/simulator.md", "ts").filter((b) => isSample(`docs/simulator.md#${text}`, b));
  if (found.length !== 1) throw new Error(`docs/simulator.md has ${found.length} ts blocks holding ${JSON.stringify(text)}`);
  return found[0]!.source;
}
