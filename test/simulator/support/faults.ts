// What the fault tests share: reading a body (an event stream, a truncated answer) the
// way a client does, and telling a proper end from a lost connection from a connection
// still open; and the faults' seeded draws as a pattern of statuses.

export interface BodyRead {
  /** Event frames (blocks with an `event:` line) and comments (heartbeats) received. */
  frames: number;
  comments: number;
  bytes: number;
  text: string;
  /** `done`: a proper end; `failed`: the connection was lost mid-body; `open`: still open when the read stopped. */
  outcome: "done" | "failed" | "open";
}

/**
 * Reads `res`'s body until it ends, fails, `stopWhen` holds, or `ms` pass, counting frames
 * and heartbeat comments. Leaves the connection open (the caller cancels it).
 */
export async function readBody(res: Response, ms: number, stopWhen: (read: BodyRead) => boolean = () => false): Promise<BodyRead> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const read: BodyRead = { frames: 0, comments: 0, bytes: 0, text: "", outcome: "open" };
  const deadline = Date.now() + ms;
  while (!stopWhen(read)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = reader.read().then(
      (r) => r,
      () => "failed" as const,
    );
    const got = await Promise.race([next, new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), left)))]);
    clearTimeout(timer);
    if (got === "late") break;
    if (got === "failed") return { ...read, outcome: "failed" };
    if (got.done) return { ...read, outcome: "done" };
    read.bytes += got.value.length;
    read.text += decoder.decode(got.value, { stream: true });
    const blocks = read.text.split("\n\n").slice(0, -1);
    read.frames = blocks.filter((b) => /^event:/m.test(b)).length;
    read.comments = blocks.filter((b) => b.startsWith(":")).length;
  }
  reader.cancel().catch(() => undefined);
  return read;
}

/** 20 reads of one route under a rate fault, as a string of `x` (faulted) and `.` (answered). */
export async function drawPattern(call: () => Promise<number>, faulted: number, n = 20): Promise<string> {
  let pattern = "";
  for (let i = 0; i < n; i++) pattern += (await call()) === faulted ? "x" : ".";
  return pattern;
}

export const VIDEO = { type: "video", model: "video-model-a", prompt: "a lighthouse at dusk", duration: 5 } as const;
