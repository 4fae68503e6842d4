// The invariants: named checks over the whole trace of a run, beside the answer checks
// (which judge one answer at a time). A rule that must hold over every answer is judged
// over every answer: HTTP's validators and identifiers over many answers, every rate
// window over time, every event stream over its life, a record wherever it is read, money
// wherever it shows (issue 24). An invariant watches the exchanges and frames of a run as
// they come (a watch is a sink, so a trace recorded elsewhere, a proxy's or a HAR file's,
// can be handed to it the same way) and says what it found when the run ends; the runner
// records its findings like the answer checks'. One file each; add it here.
import { accountWindow } from "./account-window.ts";
import { chargeWithinEstimate } from "./charge-within-estimate.ts";
import { doneIsFinal } from "./done-is-final.ts";
import { eventIds } from "./event-ids.ts";
import { generationType } from "./generation-type.ts";
import type { Invariant } from "./invariant.ts";
import { keyWindow } from "./key-window.ts";
import { ownGenerations } from "./own-generations.ts";
import { pages } from "./pages.ts";
import { recordShape } from "./record-shape.ts";
import { replays } from "./replays.ts";
import { requestIds } from "./request-ids.ts";

export type { Invariant, InvariantFinding, InvariantWatch } from "./invariant.ts";

/** Every invariant, in one registry (the answer checks' is ANSWER_CHECKS). */
export const INVARIANTS: readonly Invariant[] = [requestIds, doneIsFinal, eventIds, replays, pages, ownGenerations, generationType, recordShape, chargeWithinEstimate, keyWindow, accountWindow];
