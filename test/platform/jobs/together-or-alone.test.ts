import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { togetherOrEachAlone } from '../../../src/platform/jobs/together-or-alone.ts';

describe('togetherOrEachAlone', () => {
  it('handles the items together when it can', async () => {
    const handled: string[][] = [];
    await togetherOrEachAlone(
      ['a', 'b'],
      async (items) => {
        handled.push([...items]);
      },
      async (item) => {
        handled.push([item]);
      },
    );
    expect(handled).toEqual([['a', 'b']]);
  });

  it('handles each item alone, one after another, when they fail together; throws the first failure', async () => {
    const alone: string[] = [];
    const failure = togetherOrEachAlone(
      ['a', 'bad', 'c', 'worse'],
      async () => {
        throw new Error('one of them is bad');
      },
      async (item) => {
        alone.push(item);
        if (item !== 'a' && item !== 'c') throw new Error(`${item} cannot be handled`);
      },
    );
    await expect(failure).rejects.toThrow('bad cannot be handled');
    expect(alone).toEqual(['a', 'bad', 'c', 'worse']);
  });

  it('tries no item alone when the database is lost: the job fails whole, to be retried', async () => {
    // Nothing listens on port 1: the connection is refused, as by a database that is down.
    const lost = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    const alone: string[] = [];
    try {
      const failure = togetherOrEachAlone(
        ['a', 'b'],
        async () => {
          await lost.query('SELECT 1');
        },
        async (item) => {
          alone.push(item);
        },
      );
      await expect(failure).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(alone).toEqual([]);
    } finally {
      await lost.end();
    }
  });
});
