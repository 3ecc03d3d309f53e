import { describe, expect, it } from 'vitest';
import { GroupedCalls, GroupedWriter, rowsInInputOrder } from '../../../src/platform/db/grouped-writer.ts';

describe('GroupedWriter', () => {
  it('writes rows added in the same turn as one group, and rows added meanwhile as the next', async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const writer = new GroupedWriter<number>(async (rows) => {
      groups.push(rows);
      if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = [writer.add(1), writer.add(2)];
    await new Promise((resolve) => setImmediate(resolve));
    const second = [writer.add(3), writer.add(4), writer.add(5)];
    release();
    await Promise.all([...first, ...second]);
    expect(groups).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('answers an add only once its group is written', async () => {
    let written = false;
    const writer = new GroupedWriter<string>(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      written = true;
    });
    await writer.add('row');
    expect(written).toBe(true);
  });

  it('rejects every add of a failed group with the failure, and goes on with the next group', async () => {
    let calls = 0;
    const writer = new GroupedWriter<number>(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    });
    const failed = await Promise.allSettled([writer.add(1), writer.add(2)]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason).toEqual(new Error('database down'));
    await expect(writer.add(3)).resolves.toBeUndefined();
  });

  it('splits a backlog larger than the group bound', async () => {
    const sizes: number[] = [];
    const writer = new GroupedWriter<number>(async (rows) => {
      sizes.push(rows.length);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((row) => writer.add(row)));
    expect(sizes).toEqual([2, 2, 1]);
  });
});

describe('GroupedCalls', () => {
  it('answers each call of a group with its own output, in one run of the group', async () => {
    const runs: number[][] = [];
    const squares = new GroupedCalls<number, number>(async (inputs) => {
      runs.push(inputs);
      return inputs.map((input) => input * input);
    });
    expect(await Promise.all([3, 1, 4, 1, 5].map((input) => squares.call(input)))).toEqual([9, 1, 16, 1, 25]);
    expect(runs).toEqual([[3, 1, 4, 1, 5]]);
  });

  it('rejects every call of a failed group and answers the next group', async () => {
    let runs = 0;
    const calls = new GroupedCalls<string, string>(async (inputs) => {
      runs += 1;
      if (runs === 1) throw new Error('statement refused');
      return inputs.map((input) => input.toUpperCase());
    });
    const failed = await Promise.allSettled([calls.call('a'), calls.call('b')]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await expect(calls.call('c')).resolves.toBe('C');
  });

  it('keeps inputs that share a key out of one group, each waiting in arrival order', async () => {
    const runs: string[][] = [];
    const calls = new GroupedCalls<string, string>(
      async (inputs) => {
        runs.push(inputs);
        return inputs;
      },
      { maxGroup: 3, keysOf: (input) => input.split('+') },
    );
    const inputs = ['a', 'b+x', 'a+c', 'd', 'x', 'e', 'c'];
    expect(await Promise.all(inputs.map((input) => calls.call(input)))).toEqual(inputs);
    // a, b+x, d fill the first group (max 3); a+c shares a, x shares x; the rest follow in order.
    expect(runs).toEqual([['a', 'b+x', 'd'], ['a+c', 'x', 'e'], ['c']]);
  });
});

describe('rowsInInputOrder', () => {
  it('puts rows at their 1-based ord and leaves inputs without a row undefined', () => {
    const rows = [
      { ord: 3, value: 'c' },
      { ord: 1, value: 'a' },
    ];
    expect(rowsInInputOrder(rows, 4)).toEqual([rows[1], undefined, rows[0], undefined]);
  });
});
