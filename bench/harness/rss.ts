/** Server memory over time: VmRSS from /proc/<pid>/status, sampled on a timer (Linux only). */
import { readFileSync } from 'node:fs';
import { median } from './stats.ts';

export interface RssSample {
  atMs: number;
  rssMb: number;
}

export function rssMb(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples every `everyMs` until stopped; answers the samples. */
export function sampleRss(pid: number, everyMs = 1000): { stop(): RssSample[] } {
  const samples: RssSample[] = [];
  const take = () => {
    const value = rssMb(pid);
    if (value !== undefined) samples.push({ atMs: Date.now(), rssMb: value });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

export interface RssGrowth {
  /** Median RSS of the first tenth of the window (at least 5 samples). */
  startMb: number;
  /** Median RSS of the last tenth of the window. */
  endMb: number;
  peakMb: number;
  /** (end − start) ÷ start. */
  growth: number;
  samples: number;
}

/**
 * Growth of RSS over [fromMs, toMs] (the window after warm-up): medians of its first and last
 * tenth, so a single GC-timed sample neither hides nor invents growth.
 */
export function rssGrowth(
  samples: readonly RssSample[],
  fromMs: number,
  toMs: number,
): RssGrowth | undefined {
  const window = samples.filter((sample) => sample.atMs >= fromMs && sample.atMs <= toMs);
  if (window.length < 4) return undefined;
  const edge = Math.max(Math.min(5, Math.floor(window.length / 2)), Math.floor(window.length / 10));
  const startMb = median(window.slice(0, edge).map((sample) => sample.rssMb));
  const endMb = median(window.slice(-edge).map((sample) => sample.rssMb));
  return {
    startMb,
    endMb,
    peakMb: Math.max(...window.map((sample) => sample.rssMb)),
    growth: (endMb - startMb) / startMb,
    samples: window.length,
  };
}

/** RSS over time at a glance: one value per step of the window, e.g. every minute of a soak. */
export function rssTimeline(samples: readonly RssSample[], fromMs: number, points = 10): string {
  if (samples.length === 0) return '—';
  const toMs = samples.at(-1)!.atMs;
  const step = Math.max(1, (toMs - fromMs) / points);
  const values: string[] = [];
  for (let at = fromMs; at <= toMs + 1; at += step) {
    const nearest = samples.reduce((best, sample) =>
      Math.abs(sample.atMs - at) < Math.abs(best.atMs - at) ? sample : best,
    );
    values.push(`${Math.round((nearest.atMs - fromMs) / 1000)} s ${nearest.rssMb.toFixed(0)} MB`);
  }
  return values.join(', ');
}
