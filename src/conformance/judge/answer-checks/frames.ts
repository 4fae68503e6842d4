// Every frame of an event stream against the contract's EventFrame, charged to the rule of
// its event.
import { schemaValidator } from "../../../contract/index.ts";
import type { Frame } from "../../target/stream.ts";
import { broke, held, type Finding } from "./check.ts";

const frameValid = schemaValidator("EventFrame");

export function frameFindings(frame: Frame): Finding[] {
  const rule = frame.event === "generation.status_changed" ? "EVT-1" : frame.event === "reset" ? "EVT-2" : frame.event === "terminated" ? "EVT-7" : "EVT-5";
  if (frame.data === undefined) return [broke("EVT-5", `the data of a ${frame.event} frame is not JSON: ${JSON.stringify(frame.raw.slice(0, 80))}`)];
  if (frame.id === undefined || frame.id === "") return [broke(frame.event === "reset" ? "EVT-6" : "EVT-5", `a ${frame.event} frame without an id`)];
  if (frameValid({ event: frame.event, id: frame.id, data: frame.data })) return [held(rule)];
  const errors = (frameValid.errors ?? []).filter((e) => e.instancePath.startsWith("/data")).slice(0, 3);
  const what = errors.length ? errors.map((e) => `data${e.instancePath.slice(5)} ${e.message}`).join("; ") : `event ${JSON.stringify(frame.event)} is not a frame of the contract`;
  return [broke(rule, `${frame.event} frame: ${what}`)];
}
