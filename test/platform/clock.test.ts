import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/platform/clock.ts';

describe('Clock', () => {
  it('is real time plus the sandbox offset', () => {
    let real = 1_000_000;
    const clock = new Clock(() => real);
    expect(clock.nowMs()).toBe(1_000_000);
    expect(clock.currentOffsetMs()).toBe(0);

    clock.setOffsetMs(3_600_000);
    expect(clock.nowMs()).toBe(4_600_000);
    expect(clock.now()).toEqual(new Date(4_600_000));
    expect(clock.realNow()).toBe(1_000_000);
    expect(clock.currentOffsetMs()).toBe(3_600_000);

    real += 500; // real time keeps flowing under the offset
    expect(clock.nowMs()).toBe(4_600_500);
    expect(clock.realNow()).toBe(1_000_500);

    clock.setOffsetMs(0);
    expect(clock.nowMs()).toBe(1_000_500);
  });

  it('follows Date.now by default', () => {
    const clock = new Clock();
    clock.setOffsetMs(86_400_000);
    const before = Date.now();
    const now = clock.nowMs();
    const after = Date.now();
    expect(now).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(now).toBeLessThanOrEqual(after + 86_400_000);
  });
});
