// Properties across calls, the state side (src/conformance/sequences/, and the sequences
// added to the report, library and OAuth checks): against a server with one bug that only
// a sequence of requests shows (a report replay that refunds or files a second report, an
// offset cursor, a revoked generation or a deleted folder still served, a deleted folder's
// name still taken, a stale library list, a status left off the stream, a stream that
// ignores its types, a token cache, a key_id that is not the grant's, a refresh that
// widens), the default run fails exactly the rule it breaks. Each run is narrowed to its
// rules.
import { describe, expect, it } from "vitest";
import { failsEach } from "./support/against.ts";
import { SEQUENCE_DOUBLES, SPENDING_RULES } from "./support/doubles-sequences.ts";

/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "checks the types of an event stream and then ignores them (every generation's events come)": /^a stream opened with types=[\w,]+ got \d+ event\(s\) of gen_\w+, a \w+ generation \(QUEUED, /,
  "gives a refresh every scope it asks for, also scopes the grant does not hold": /^a refresh asking for [\w:]+, a scope the grant \([\w: ]+\) does not hold, gave a token with it \(reply scope "[\w: ]+", whoami "[\w: ]*"\); a refresh only narrows$/,
  "refunds a generation again on each replay of a failure report": /^the balance moved from \d+ to \d+ cc around a report, its replay and a refused mismatch$/,
  "files a replayed report a second time (the reply names the first)": /^after a report and its replay by client_msg_id the support thread shows the report's message 2 times$/,
  "pages with cursors that count from the head (an offset): a record created between page reads repeats the last one": /^generations: pages overlap after a submit between the page reads: gen_\w+ of page 1 came again on page 2$/,
  "still answers a generation revoked by a moderation report in the batch status read": /^gone after a moderation report: readGenerationStatuses \(POST \/v1\/generations\/status\) \(link ReadGenerationStatus\) after a moderation report: the gone object gen_\w+ is still among the records \(200\)$/,
  "takes a move into a deleted folder (200, the items go nowhere)": /^gone after its delete: moveLibraryItems \(POST \/v1\/library\/move\) \(folder_id of the move body \(no link names it\)\) after its delete answered 200: the gone object fld_\w+ was acted on; it answers 404 not_found$/,
  "keeps a deleted folder's name taken (409 folder_name_taken for a name no folder has)": /^a new folder named like a deleted one \("Conformance \w+ A"\) answered 409 folder_name_taken: the name is no folder's any more$/,
  "caches the library list and forgets to refresh it when a ticket is completed through the proxy path": /^the file written through the proxy path is not in the library right after its completion \(GET \/v1\/library\/assets\)$/,
  "leaves the PENDING status out of the event stream (the record reads PENDING)": /^gen_\w+ was read as QUEUED -> PENDING -> RUNNING -> DONE but its events say QUEUED -> RUNNING -> DONE: PENDING did not come on the stream in that order/,
  "caches token checks: an access token once accepted stays accepted after its grant is revoked": /^the grant's first access token \(used on \/v1 before\) after a used refresh token was presented on revoke: expected 401 invalid_token, got 200$/,
  "names the access token's own id as key_id in whoami (not its grant's)": /^whoami says key_id "tok_\w+" for a refreshed access token and "tok_\w+" for the token of the same grant it was refreshed from; key_id is the grant's id$/,
};

describe("properties across calls: what a sequence leaves", () => {
  const doubles = SEQUENCE_DOUBLES.filter((d) => !SPENDING_RULES.includes(d.rule));

  it("runs every other double of bugs across calls, each found by the default run, each with what its failure says", () => {
    expect(doubles.length).toBeGreaterThan(0);
    expect(doubles.length + SEQUENCE_DOUBLES.filter((d) => SPENDING_RULES.includes(d.rule)).length).toBe(SEQUENCE_DOUBLES.length);
    for (const d of doubles) {
      expect(d.found, d.title).toBe("default");
      expect(SAYS[d.title], d.title).toBeDefined();
    }
  });

  failsEach(doubles, SAYS);
});
