/**
 * The size limit of one reply (`model.maxReplyBytes`). The vendor SDKs are given a fetch that
 * counts the bytes of each response body as the SDK reads it and breaks the body off past the
 * limit (a declared `content-length` over it is refused before a byte is read), which also closes
 * the connection. The SDKs then throw whatever they throw on a broken body, so each attempt runs
 * under a meter (attempt.ts) that the cut is written to, and the attempt reports the cut in its
 * own words instead.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What one attempt learns from the fetches made for it. */
export interface ReplyMeter {
  /** The limit a reply of the attempt was cut at, or null. */
  cutAt: number | null;
}

const meters = new AsyncLocalStorage<ReplyMeter>();

/** Runs one attempt under a fresh meter: the fetches it makes (however deep in the SDK) write to it. */
export function metered<T>(run: () => Promise<T>): { meter: ReplyMeter; result: Promise<T> } {
  const meter: ReplyMeter = { cutAt: null };
  return { meter, result: meters.run(meter, run) };
}

/** The model error's message for a cut reply. */
export function replyCutMessage(limit: number): string {
  return `the reply was cut at ${limit} bytes: the provider sent more than model.maxReplyBytes allows for one reply`;
}

/** Thrown into the SDK's read of a body past the limit; the attempt reports the cut from its meter. */
class ReplyTooLarge extends Error {
  override readonly name = 'ReplyTooLarge';
  constructor(limit: number) {
    super(replyCutMessage(limit));
  }
}

/** Statuses whose response must have no body (`new Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** `base` with every response body limited to `limit` bytes. */
export function limitedFetch(limit: number, base: typeof globalThis.fetch = globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const meter = meters.getStore();
    if (response.body === null || NO_BODY.has(response.status)) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limit) {
      if (meter) meter.cutAt = limit;
      await response.body.cancel().catch(() => undefined);
      throw new ReplyTooLarge(limit);
    }
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= limit) {
            controller.enqueue(chunk);
            return;
          }
          if (meter) meter.cutAt = limit;
          // Erroring the transform cancels the source: the connection is closed, nothing more is read.
          controller.error(new ReplyTooLarge(limit));
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
