// Properties across calls, the state side (src/conformance/sequences/, and the sequences
// added to the report and library checks): against a server with one bug that only a
// sequence of requests shows (a report replay that refunds or files a second report, an
// offset cursor, a revoked generation or a deleted folder still served, a deleted folder's
// name still taken, a stale library list), the default run fails exactly the rule it
// breaks. Each run is narrowed to its rules.
import { describe } from "vitest";
import { failsEach } from "./support/against.ts";
import { CONTROL_RULES, SEQUENCE_DOUBLES, SPENDING_RULES, STREAM_RULES } from "./support/doubles-sequences.ts";

/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "refunds a generation again on each replay of a failure report": /^the balance moved from \d+ to \d+ cc around a report, its replay and a refused mismatch$/,
  "files a replayed report a second time (the reply names the first)": /^after a report and its replay by client_msg_id the support thread shows the report's message 2 times$/,
  "pages with cursors that count from the head (an offset): a record created between page reads repeats the last one": /^generations: pages overlap after a submit between the page reads: gen_\w+ of page 1 came again on page 2$/,
  "still answers a generation revoked by a moderation report in the batch status read": /^gone after a moderation report: readGenerationStatuses \(POST \/v1\/generations\/status\) \(link ReadGenerationStatus\) after a moderation report: the gone object gen_\w+ is still among the records \(200\)$/,
  "takes a move into a deleted folder (200, the items go nowhere)": /^gone after its delete: moveLibraryItems \(POST \/v1\/library\/move\) \(folder_id of the move body \(no link names it\)\) after its delete answered 200: the gone object fld_\w+ was acted on; it answers 404 not_found$/,
  "keeps a deleted folder's name taken (409 folder_name_taken for a name no folder has)": /^a new folder named like a deleted one \("Conformance \w+ A"\) answered 409 folder_name_taken: the name is no folder's any more$/,
  "caches the library list and forgets to refresh it when a ticket is completed through the proxy path": /^the file written through the proxy path is not in the library right after its completion \(GET \/v1\/library\/assets\)$/,
};

describe("properties across calls: what a sequence leaves", () => {
  // Every double the other three files do not run.
  const elsewhere = [...SPENDING_RULES, ...CONTROL_RULES, ...STREAM_RULES];
  failsEach(SEQUENCE_DOUBLES.filter((d) => !elsewhere.includes(d.rule)), SAYS);
});
