import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_FAILING_ADDRESSES } from '../../src/chains/sandbox-chain.ts';
import { Money } from '../../src/platform/money.ts';
import {
  advanceClock,
  approvedUser,
  balances,
  call,
  depositAddresses,
  expectLedgerSound,
  expireDueTransfers,
  operator,
  startTransfersApp,
  type TransfersFixture,
  transfer,
} from './support.ts';

/**
 * A seeded random-operation test against an in-memory reference model: transfers with and
 * without exchange, confirms, expiries (sandbox clock + the sweep), deposits, chain payouts that
 * confirm or fail, run a few at a time concurrently, and after every batch: every balance equals
 * the model's, the ledger conserves and recomputes, nothing is negative, every hold matches its
 * transfer (never both posted and voided), every acknowledged transfer exists with the status
 * the model expects. RAMPART_MODEL_OPS (default 240) and RAMPART_MODEL_SEED replay or scale it.
 */
const OPS = Number(process.env.RAMPART_MODEL_OPS ?? 240);
const SEED = Number(process.env.RAMPART_MODEL_SEED ?? 20240611);
const BATCH = 5;
const ETH_ADDRESS = 'ethereum:0x52908400098527886E0F7030069857D2E4169EE7';

type Party = { srn: string; userId: string | null };
type Op =
  | { kind: 'credit'; who: number; amount: number }
  | { kind: 'deposit'; who: number; amount: number }
  | {
      kind: 'transfer';
      from: number;
      to: number | 'chain' | 'chainFail';
      pair: number;
      amount: number;
      side: 'source' | 'dest';
      autoConfirm: boolean;
      includeFees: boolean;
    }
  | { kind: 'confirm'; pick: number }
  | { kind: 'expire' }
  | { kind: 'settleChain' };

/** [sourceCurrency, destCurrency, decimals used for generated amounts] */
const PAIRS: [string, string, number][] = [
  ['USD', 'USD', 2],
  ['ETH', 'ETH', 4],
  ['USD', 'EUR', 2],
  ['ETH', 'USD', 4],
  ['USD', 'ETH', 2],
];

const PARTIES = 5;
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('credit' as const),
      who: fc.nat(PARTIES - 1),
      amount: fc.integer({ min: 1, max: 20_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      who: fc.nat(PARTIES - 2),
      amount: fc.integer({ min: 1, max: 30_000 }),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      from: fc.nat(PARTIES - 1),
      to: fc.oneof(fc.nat(PARTIES - 1), fc.constant('chain' as const), fc.constant('chainFail' as const)),
      pair: fc.nat(PAIRS.length - 1),
      amount: fc.integer({ min: 1, max: 8_000 }),
      side: fc.constantFrom('source' as const, 'dest' as const),
      autoConfirm: fc.boolean(),
      includeFees: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('confirm' as const), pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settleChain' as const) }) },
);

class Model {
  readonly balances = new Map<string, { total: Money; available: Money }>();
  readonly unconfirmed = new Map<
    string,
    { source: string; dest: string | null; cur: string; destCur: string; s: Money; d: Money; fails: boolean }
  >();
  readonly inFlight = new Map<string, { source: string; cur: string; s: Money; fails: boolean }>();
  readonly expected = new Map<string, string>();

  private at(owner: string, cur: string) {
    const key = `${owner}|${cur}`;
    let entry = this.balances.get(key);
    if (!entry) {
      entry = { total: new Money(0), available: new Money(0) };
      this.balances.set(key, entry);
    }
    return entry;
  }
  available(owner: string, cur: string) {
    return this.at(owner, cur).available;
  }
  move(owner: string, cur: string, total: Money, available: Money) {
    const entry = this.at(owner, cur);
    entry.total = entry.total.plus(total);
    entry.available = entry.available.plus(available);
  }
  /** Settles a confirmed transfer: the source pays S; the dest (custody) receives D or the chain takes it. */
  settle(
    id: string,
    t: {
      source: string;
      dest: string | null;
      cur: string;
      destCur: string;
      s: Money;
      d: Money;
      fails: boolean;
    },
    held: boolean,
  ) {
    this.move(t.source, t.cur, t.s.negated(), held ? new Money(0) : t.s.negated());
    if (t.dest) {
      this.move(t.dest, t.destCur, t.d, t.d);
      this.expected.set(id, 'COMPLETED');
    } else {
      this.inFlight.set(id, { source: t.source, cur: t.cur, s: t.s, fails: t.fails });
      this.expected.set(id, 'PENDING');
    }
  }
}

let f: TransfersFixture;
let parties: Party[];
let ethAddresses: string[];
beforeAll(async () => {
  f = await startTransfersApp();
  const users = [];
  for (let i = 0; i < PARTIES - 1; i++) users.push(await approvedUser(f.t, f.partner));
  parties = [
    ...users.map((id) => ({ srn: `user:${id}`, userId: id })),
    { srn: `account:${f.partner.accountId}`, userId: null },
  ];
  ethAddresses = [];
  for (const id of users) ethAddresses.push((await depositAddresses(f.t, f.partner, id)).ETH!);
}, 60_000);
afterAll(async () => f.t.close());

/** Amounts as the server wrote them: JSON.parse would round an 18-decimal amount through a double. */
function exact(text: string, field: string): Money {
  const match = new RegExp(`"${field}":(-?[0-9.]+)`).exec(text);
  if (!match) throw new Error(`no ${field} in ${text}`);
  return new Money(match[1]!);
}

const decimal = (n: number, places: number) => new Money(n).div(new Money(10).pow(places)).toFixed();

async function runTransfer(model: Model, op: Extract<Op, { kind: 'transfer' }>) {
  const [cur, pairDest, places] = PAIRS[op.pair]!;
  const toChain = op.to === 'chain' || op.to === 'chainFail';
  const destCur = toChain ? 'ETH' : pairDest;
  const source = parties[op.from]!;
  const dest = toChain ? null : parties[op.to as number]!;
  if (dest?.srn === source.srn) return { ok: true, apply: () => undefined };
  const destSrn =
    op.to === 'chain'
      ? ETH_ADDRESS
      : op.to === 'chainFail'
        ? `ethereum:${SANDBOX_FAILING_ADDRESSES.ethereum}`
        : dest!.srn;
  const amountPlaces = op.side === 'source' ? places : destCur === 'ETH' ? 4 : 2;
  const response = await transfer(f.t, f.partner, source.userId, {
    sourceCurrency: cur,
    destCurrency: destCur,
    [op.side === 'source' ? 'sourceAmount' : 'destAmount']: decimal(op.amount, amountPlaces),
    dest: destSrn,
    autoConfirm: op.autoConfirm,
    amountIncludesFees: op.includeFees,
  });
  const availableBefore = model.available(source.srn, cur);
  // What the source must pay is known exactly when no fee can be added on top.
  const exactCost =
    op.side === 'source' && (op.includeFees || (cur === destCur && !toChain))
      ? new Money(decimal(op.amount, places))
      : null;
  const apply = (debits: Map<string, Money>) => {
    if (response.status !== 200) {
      expect(response.status, response.text).toBe(400);
      if (response.body.errorCode === 'insufficientFunds') {
        // Refused only if even after every debit this batch made, the funds fell short.
        const debited = debits.get(`${source.srn}|${cur}`) ?? new Money(0);
        if (exactCost) expect(availableBefore.minus(debited).lt(exactCost), response.text).toBe(true);
      } else {
        expect(response.body.errorCode).toBe('validation.transactionAmountTooSmall');
      }
      return undefined;
    }
    const b = response.body;
    const t = {
      source: source.srn,
      dest: dest?.srn ?? null,
      cur,
      destCur,
      s: exact(response.text, 'sourceAmount'),
      d: exact(response.text, 'destAmount'),
      fails: op.to === 'chainFail',
    };
    expect(t.s.minus(exact(response.text, 'totalFees')).gt(0)).toBe(true);
    if (b.status === 'UNCONFIRMED') {
      model.move(source.srn, cur, new Money(0), t.s.negated());
      model.unconfirmed.set(b.id, t);
      model.expected.set(b.id, 'UNCONFIRMED');
    } else {
      model.settle(b.id, t, false);
    }
    return { key: `${source.srn}|${cur}`, amount: t.s };
  };
  return { ok: response.status === 200, apply };
}

async function runConfirm(model: Model, pick: number) {
  const ids = [...model.unconfirmed.keys()];
  if (ids.length === 0) return { ok: true, apply: () => undefined };
  const id = ids[pick % ids.length]!;
  const t = model.unconfirmed.get(id)!;
  model.unconfirmed.delete(id); // no two confirms of one transfer in a batch
  const userId = parties.find((p) => p.srn === t.source)!.userId;
  const response = await call(f.t, f.partner, userId, 'POST', `/v3/transfers/${id}/confirm`);
  const text = await response.text();
  const apply = () => {
    expect(response.status, text).toBe(200);
    model.settle(id, t, true);
    return undefined;
  };
  return { ok: true, apply };
}

async function check(model: Model) {
  const db = f.t.database.db;
  for (const party of parties) {
    const actual = await balances(f.t, party.srn);
    for (const [key, expected] of model.balances) {
      const [owner, cur] = key.split('|') as [string, string];
      if (owner !== party.srn) continue;
      expect(actual.total[cur] ?? '0', `${key} total`).toBe(expected.total.toFixed());
      expect(actual.available[cur] ?? '0', `${key} available`).toBe(expected.available.toFixed());
    }
  }
  await expectLedgerSound(f.t);
  const negative = await db.query(
    `SELECT owner, currency FROM ledger_balances WHERE NOT ledger_is_system_owner(owner) AND (total < 0 OR available < 0)`,
  );
  expect(negative.rows).toEqual([]);
  const holds = await db.query(
    `SELECT t.id, t.status, h.state FROM transfers t JOIN ledger_holds h ON h.id = t.hold_id
     WHERE NOT ((t.status = 'UNCONFIRMED' AND h.state = 'pending')
             OR (t.status = 'EXPIRED' AND h.state = 'voided')
             OR (t.status IN ('PENDING', 'COMPLETED', 'FAILED') AND h.state = 'posted'))`,
  );
  expect(holds.rows).toEqual([]);
  const ids = [...model.expected.keys()];
  const { rows } = await db.query<{ id: string; status: string }>(
    'SELECT id, status FROM transfers WHERE id = ANY($1)',
    [ids],
  );
  expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual(Object.fromEntries(model.expected));
}

async function runGlobal(model: Model, op: Op) {
  if (op.kind === 'expire') {
    await advanceClock(f.t, 16 * 60);
    await expireDueTransfers(f.t.ctx);
    for (const [id, t] of model.unconfirmed) {
      model.move(t.source, t.cur, new Money(0), t.s);
      model.expected.set(id, 'EXPIRED');
    }
    model.unconfirmed.clear();
  } else {
    await f.runJobs();
    for (const [id, t] of model.inFlight) {
      if (t.fails) model.move(t.source, t.cur, t.s, t.s);
      model.expected.set(id, t.fails ? 'FAILED' : 'COMPLETED');
    }
    model.inFlight.clear();
  }
}

async function runFunding(model: Model, op: Extract<Op, { kind: 'credit' | 'deposit' }>) {
  const party = parties[op.who]!;
  const response =
    op.kind === 'credit'
      ? await operator(f.t, 'POST', '/operator/v1/ledger/credits', {
          owner: party.srn,
          currency: 'USD',
          amount: decimal(op.amount, 2),
        })
      : await operator(f.t, 'POST', '/operator/v1/sandbox/deposits', {
          dest: ethAddresses[op.who],
          currency: 'ETH',
          amount: decimal(op.amount, 4),
        });
  const apply = () => {
    expect(response.status).toBe(200);
    const amount = new Money(decimal(op.amount, op.kind === 'credit' ? 2 : 4));
    model.move(party.srn, op.kind === 'credit' ? 'USD' : 'ETH', amount, amount);
    return undefined;
  };
  return { ok: true, apply };
}

describe('random operations against a reference model', () => {
  it(`${OPS} operations, seed ${SEED}: balances, conservation, holds and transfers stay consistent`, async () => {
    const [ops] = fc.sample(fc.array(opArb, { minLength: OPS, maxLength: OPS }), { seed: SEED, numRuns: 1 });
    const model = new Model();
    let batch: Op[] = [];
    const flush = async () => {
      const started = await Promise.all(
        batch.map((op) =>
          op.kind === 'transfer'
            ? runTransfer(model, op)
            : op.kind === 'confirm'
              ? runConfirm(model, op.pick)
              : runFunding(model, op as Extract<Op, { kind: 'credit' | 'deposit' }>),
        ),
      );
      // Successes first (their debits bound what a refusal may claim), then refusals.
      const debits = new Map<string, Money>();
      for (const outcome of started.filter((o) => o.ok)) {
        const debit = outcome.apply(debits);
        if (debit) debits.set(debit.key, (debits.get(debit.key) ?? new Money(0)).plus(debit.amount));
      }
      for (const outcome of started.filter((o) => !o.ok)) outcome.apply(debits);
      batch = [];
      await check(model);
    };
    for (const op of ops!) {
      if (op.kind === 'expire' || op.kind === 'settleChain') {
        await flush();
        await runGlobal(model, op);
        await check(model);
      } else {
        batch.push(op);
        if (batch.length === BATCH) await flush();
      }
    }
    await flush();
    // The run exercised every ending a transfer can have.
    const endings = new Set(model.expected.values());
    for (const status of ['COMPLETED', 'EXPIRED', 'FAILED']) expect(endings).toContain(status);
  }, 300_000);
});
