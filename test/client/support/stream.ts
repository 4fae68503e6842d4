// A fake event stream for the client tests: an account's event log, served as SSE with
// resume by `Last-Event-ID`, and faults on demand (dropped connections, silence,
// `reset`, `terminated`). Frames are checked against the contract's `EventFrame`, the
// stream's opening headers with `checkAnswer`.
import type { ServerResponse } from "node:http";
import { checkAnswer, operationById, schemaValidator } from "../../../src/contract/index.ts";
import { v1Headers, type Recorded } from "./server.ts";

export interface Frame {
  event: string;
  id: string;
  data: unknown;
}

export interface StreamOptions {
  /** Destroy the connection after this many frames written on it (a hard drop: the last frame may be lost). */
  dropAfter?: number;
  /** End the response after this many frames (the server closes the stream cleanly). */
  endAfter?: number;
  /** Heartbeat comment interval in ms (none by default). */
  heartbeatMs?: number;
}

export class EventLog {
  readonly frames: Frame[] = [];
  readonly violations: string[] = [];
  /** Ids that answer a `reset` when presented as Last-Event-ID. */
  readonly expired = new Set<string>();
  connections = 0;
  readonly #open = new Set<{ res: ServerResponse; write: (f: Frame) => void }>();
  #seq = 0;
  #reset = 0;

  nextId(): string {
    return `c_${String(++this.#seq).padStart(6, "0")}`;
  }

  statusChanged(id: string, status: string, extra: Record<string, unknown> = {}): Frame {
    return this.publish({
      event: "generation.status_changed",
      id: this.nextId(),
      data: { id, type: "video", status, deleted: false, updated_at: new Date().toISOString(), ...extra },
    });
  }

  publish(frame: Frame): Frame {
    this.frames.push(frame);
    for (const c of this.#open) c.write(frame);
    return frame;
  }

  /** Sends a frame to open connections only (not kept in the log), e.g. `terminated`. */
  broadcast(frame: Frame): void {
    for (const c of this.#open) c.write(frame);
  }

  /** Serves `GET /v1/events`. */
  serve(req: Recorded, res: ServerResponse, options: StreamOptions = {}): void {
    this.connections++;
    const headers = { ...v1Headers(req), "Content-Type": "text/event-stream" };
    for (const v of checkAnswer(operationById("streamGenerationEvents"), { status: 200, headers, body: "" })) this.violations.push(`${v.where}: ${v.message}`);
    res.writeHead(200, headers);
    res.flushHeaders();
    let written = 0;
    const conn = {
      res,
      write: (frame: Frame) => {
        if (res.destroyed || res.writableEnded) return;
        this.check(frame);
        res.write(`event: ${frame.event}\nid: ${frame.id}\ndata: ${JSON.stringify(frame.data)}\n\n`);
        written++;
        if (options.dropAfter !== undefined && written >= options.dropAfter) res.socket?.destroy();
        else if (options.endAfter !== undefined && written >= options.endAfter) res.end();
      },
    };
    const last = req.headers["last-event-id"] as string | undefined;
    let start = this.frames.length;
    if (last !== undefined) {
      const at = this.frames.findIndex((f) => f.id === last);
      if (at < 0 || this.expired.has(last)) {
        conn.write({ event: "reset", id: `r_${++this.#reset}`, data: { reason: this.expired.has(last) ? "cursor_expired" : "cursor_unknown", catch_up: "/v1/generations/status" } });
      } else start = at + 1;
    }
    for (const f of this.frames.slice(start)) conn.write(f);
    this.#open.add(conn);
    const beat = options.heartbeatMs ? setInterval(() => !res.destroyed && res.write(":\n\n"), options.heartbeatMs) : undefined;
    res.on("close", () => {
      clearInterval(beat);
      this.#open.delete(conn);
    });
  }

  check(frame: Frame): void {
    const validate = schemaValidator("EventFrame");
    const valid: boolean = validate(frame);
    if (!valid) this.violations.push(`frame ${frame.id}: ${JSON.stringify(validate.errors?.[0])}`);
  }
}
