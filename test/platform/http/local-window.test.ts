import { describe, expect, it } from 'vitest';
import { LocalWindowCounter } from '../../../src/platform/http/local-window.ts';

describe('LocalWindowCounter', () => {
  it('allows max hits per key per window, then refuses until the window ends', () => {
    let now = 1_000;
    const counter = new LocalWindowCounter(3, 60_000, () => now);
    try {
      expect([1, 2, 3].map(() => counter.hit('ip:a').allowed)).toEqual([true, true, true]);
      expect(counter.hit('ip:a')).toEqual({ allowed: false, remaining: 0, resetInMs: 60_000 });
      // Another key has its own window.
      expect(counter.hit('ip:b')).toEqual({ allowed: true, remaining: 2, resetInMs: 60_000 });
      now += 59_999;
      expect(counter.hit('ip:a')).toMatchObject({ allowed: false, resetInMs: 1 });
      now += 1;
      expect(counter.hit('ip:a')).toEqual({ allowed: true, remaining: 2, resetInMs: 60_000 });
    } finally {
      counter.close();
    }
  });
});
