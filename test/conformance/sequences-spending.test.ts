// Properties across calls, the spending side (src/conformance/sequences/, and the
// sequences added to the spending and price checks): against a server with one bug that
// only a sequence of requests shows (a replay or a refusal for busy slots that spends,
// another account answered with a replay, a title change that charges, an estimate below
// the charge, a ledger in other units than the balance, a request that costs two of the
// window, a window shared by the keys of an account), the default run fails exactly the
// rule it breaks. Each run is narrowed to its rules (`only`, with the checks that make what
// they probe).
import { describe } from "vitest";
import { failsEach } from "./support/against.ts";
import { SEQUENCE_DOUBLES, SPENDING_RULES } from "./support/doubles-sequences.ts";


/** What each failure says, by the double's title. */
const SAYS: Record<string, RegExp> = {
  "charges a title change as a render (1 cc, with its ledger row)": /^the balance moved from (\d+) to \d+ cc around 2 title change\(s\) \(an empty body\)$/,
  "counts a submit refused for busy slots against the submit quota": /^a refusal for busy slots \(429 rate_limited, reason concurrency\) spent submit quota: limits\.submissions\.remaining \d+ -> \d+$/,
  "lists the ledger's amount_cc in whole credits (the balance moves in centi-credits)": /^the balance moved by -(\d+) cc around a submit, and the ledger's new rows add up to -\d+ cc \(-\d+\); amount_cc credits or debits the balance$/,
  "counts an exact replay of a submit against the submit quota": /^an exact replay of a submit spent submit quota: limits\.submissions\.remaining \d+ -> \d+ \(an accepted submit moved it so\)$/,
  "writes the charge of a submit to the ledger again on each replay (the balance untouched)": /^the ledger changed around an exact replay of a submit: 1 new row\(s\) \{"id":"txn_\w+","amount_cc":-\d+,"generation_id":"gen_\w+"/,
  "starts an unbilled copy of the generation on each replay (the reply is the first record)": /^an exact replay of a submit created generation\(s\): gen_\w+ now head the list$/,
  "keeps Idempotency-Keys across accounts: another account's submit with a used key gets the first account's generation": /^the second account's submit with this account's Idempotency-Key answered 202 with this account's generation gen_\w+$/,
  "prices an estimate at half what the submit of the same body is charged": /^the submit of gen_\w+ was charged (\d+) cc \(its ledger rows\); the estimate of the same body said \d+ cc, a ceiling$/,
  "spends two requests of the window on a price estimate": /^the default window went down by 3 between two reads of GET \/v1\/me with a price estimate between them; 2 request\(s\) were sent \(the second read included\)$/,
  "spends two requests of the window on opening an event stream": /^the default window went down by 3 between two reads of GET \/v1\/me with an event stream opened and closed between them; 2 request\(s\) were sent/,
  "one default window for all the keys of an account: another key's request spends the main key's": /^the default window went down by 2 between two reads of GET \/v1\/me with a request of another key of the same account between them; 1 request\(s\) were sent/,
};

describe("properties across calls: what a sequence spends", () => {
  failsEach(SEQUENCE_DOUBLES.filter((d) => SPENDING_RULES.includes(d.rule)), SAYS, SPENDING_RULES);
});
