/**
 * The size limit of one reply (`model.maxReplyBytes`). The vendor SDKs are given a fetch that
 * counts the bytes of each response body as the SDK reads it and breaks the body off past the
 * limit (a declared `content-length` over it is refused before a byte is read), which also closes
 * the connection. The SDKs pass the error on, as it is or as the cause of their own (all three
 * do), and the attempt (attempt.ts) reports the cut in its own words.
 */

/** The model error's message for a cut reply. */
export function replyCutMessage(limit: number): string {
  return `the reply was cut at ${limit} bytes: the provider sent more than model.maxReplyBytes allows for one reply`;
}

/** Thrown into the SDK's read of a body past the limit. */
class ReplyTooLarge extends Error {
  override readonly name = 'ReplyTooLarge';
  constructor(readonly limit: number) {
    super(replyCutMessage(limit));
  }
}

/** The limit a reply was cut at, when `error` (or one of its causes) is the cut; else null. */
export function replyCutOf(error: unknown): number | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof ReplyTooLarge) return current.limit;
    current = current.cause;
  }
  return null;
}

/** Statuses whose response must have no body (`new Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** `base` (default: the global fetch, looked up at each request) with every response body limited to `limit` bytes. */
export function limitedFetch(limit: number, base?: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await (base ?? globalThis.fetch)(input, init);
    if (response.body === null || NO_BODY.has(response.status)) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit) {
      await response.body.cancel().catch(() => undefined);
      throw new ReplyTooLarge(limit);
    }
    // Read as the SDK asks for it, a chunk per pull: a TransformStream piped through cost every
    // chunk of a streamed reply the pipe's own round of promises.
    let seen = 0;
    const source = response.body.getReader();
    const counted = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const read = await source.read();
          if (read.done) {
            controller.close();
            return;
          }
          seen += read.value.byteLength;
          if (seen <= limit) {
            controller.enqueue(read.value);
            return;
          }
          const cut = new ReplyTooLarge(limit);
          controller.error(cut);
          await source.cancel(cut).catch(() => undefined);
        },
        cancel: (reason) => source.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
