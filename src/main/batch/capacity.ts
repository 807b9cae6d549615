/**
 * How many private desktops this machine can hold at once, when the user did not say: one per CPU
 * core, and no more than the free memory holds at what one desktop with its run takes (Xvfb, the
 * window manager, the run's capture and text reader; with apps, a browser's worth more). Pure: the
 * machine's figures in, the number and the sentence that says how it was chosen out.
 */

/** What one run on a private desktop takes, roughly: without apps, and with them (a browser is the usual app). */
export const BYTES_PER_DESKTOP = { bare: 300e6, withApps: 800e6 } as const;
/** Memory kept for everything else on the machine. */
const MEMORY_HEADROOM = 0.8;
/** More at once than this gains little on one machine (and the user can always ask for more). */
export const MAX_DEFAULT_CONCURRENCY = 8;

export interface MachineFigures {
  cpus: number;
  freeMemoryBytes: number;
  /** Whether each desktop starts apps. */
  withApps: boolean;
}

export function defaultConcurrency(machine: MachineFigures): { concurrency: number; reason: string } {
  const perDesktop = machine.withApps ? BYTES_PER_DESKTOP.withApps : BYTES_PER_DESKTOP.bare;
  const byCpu = Math.max(1, machine.cpus);
  const byMemory = Math.max(1, Math.floor((machine.freeMemoryBytes * MEMORY_HEADROOM) / perDesktop));
  const concurrency = Math.min(byCpu, byMemory, MAX_DEFAULT_CONCURRENCY);
  const limit = concurrency === MAX_DEFAULT_CONCURRENCY && byCpu > MAX_DEFAULT_CONCURRENCY && byMemory > MAX_DEFAULT_CONCURRENCY ? `, at most ${MAX_DEFAULT_CONCURRENCY} by default` : '';
  const bound = byCpu <= byMemory ? 'the cores' : 'the memory';
  const reason =
    `${concurrency} at once, what this machine holds: ${machine.cpus} CPU core${machine.cpus === 1 ? '' : 's'} (one run each) and ` +
    `${formatGigabytes(machine.freeMemoryBytes)} free memory (${byMemory} desktop${byMemory === 1 ? '' : 's'} at about ${formatGigabytes(perDesktop)} each${machine.withApps ? ' with their apps' : ''}); ` +
    `${bound} set the limit${limit} (--concurrency N to choose)`;
  return { concurrency, reason };
}

function formatGigabytes(bytes: number): string {
  return `${(bytes / 1e9).toFixed(1)} GB`;
}
