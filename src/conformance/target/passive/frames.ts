// The frames of an event stream the suite did not open: its text, as it passes through a
// proxy chunk by chunk or as a recorded file holds it whole, parsed into the same frames
// the suite's own streams give (target/stream.ts), for the same sinks. What it holds is
// bounded: the parser's pending text, at most `maxFrameBytes` (beyond that the stream is
// said to overflow once and is read no further; the text itself still passes).
import { createParser, type EventSourceParser } from "eventsource-parser";
import type { Frame } from "../stream.ts";

export class FrameReader {
  readonly #parser: EventSourceParser;
  /** Bytes fed since a frame or comment last ended: what the parser holds. */
  #pending = 0;
  #ended = 0;
  #overflowed = false;

  constructor(
    onFrame: (frame: Frame) => void,
    private readonly onOverflow: (bytes: number) => void,
    private readonly maxFrameBytes = Number.POSITIVE_INFINITY,
  ) {
    this.#parser = createParser({
      onEvent: (e) => {
        this.#ended++;
        let data: unknown;
        try {
          data = JSON.parse(e.data);
        } catch {
          data = undefined;
        }
        onFrame({ event: e.event ?? "message", id: e.id, data, raw: e.data });
      },
      onComment: () => void this.#ended++,
    });
  }

  /** Whether a frame passed the limit (nothing more is read). */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** The next text of the stream. */
  feed(text: string, bytes = Buffer.byteLength(text)): void {
    if (this.#overflowed) return;
    const before = this.#ended;
    this.#parser.feed(text);
    if (this.#ended > before) this.#pending = 0;
    else if ((this.#pending += bytes) > this.maxFrameBytes) {
      this.#overflowed = true;
      this.#parser.reset({ consume: false });
      this.onOverflow(this.maxFrameBytes);
    }
  }
}
