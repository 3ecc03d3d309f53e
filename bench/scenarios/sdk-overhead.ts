/**
 * Issue 8's figure: SDK signing and request building add under 50 µs per call. Run with
 * `node --conditions=rampart-source --import tsx bench/scenarios/sdk-overhead.ts` (about 10 s, no server,
 * no database).
 *
 * The SDK's whole call path runs for real (path and query, JSON body serialized once, timestamp,
 * HMAC-SHA256 signature, Idempotency-Key, headers, timeout timer and AbortController, answer
 * read with the exact-decimal parser) against an in-process `fetch` that answers at once, so no
 * network or server time is in the figure. Each round times N sequential calls through the SDK
 * and N calls of the same fetch stub made directly (the floor any client pays: an await, a
 * Response, reading its text); overhead per call = (SDK − floor) / N. The figure is the median
 * round; rounds alternate which side goes first so neither always runs on a warmer heap.
 * Exits non-zero when an operation's median reaches the limit.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { RampartClient, signRequest } from '@rampart/sdk';
import { median } from '../harness/stats.ts';

const LIMIT_US = 50;
const CALLS = 20_000;
const ROUNDS = 7;
const ACCOUNT = 'AC_YQG97JUANCF';
const ANSWER = `{"id":"${ACCOUNT}","status":"APPROVED","totalBalances":{"USD":1000.25,"ETH":0.031234567890123456}}`;

/** The stand-in for the network: an already-settled answer. */
const stubFetch: typeof fetch = async () => new Response(ANSWER, { status: 200 });

const client = new RampartClient({
  baseUrl: 'https://api.example.com',
  auth: {
    type: 'signature',
    apiKey: 'AK-AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD',
    secretKey: 'SK-AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD',
  },
  fetch: stubFetch,
});

const RESERVE = {
  sourceAmount: '100',
  amountIncludeFees: false,
  paymentMethod: 'debit-card',
  sourceCurrency: 'USD',
  destCurrency: 'ETH',
  dest: 'ethereum:0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413',
  referrerAccountId: ACCOUNT,
  country: 'US',
};

interface Operation {
  label: string;
  sdk: () => Promise<unknown>;
  /** The same request sent with the stub directly, prepared once: no SDK work at all. */
  floor: () => Promise<unknown>;
}

const floorInit = { method: 'GET', headers: { 'x-api-key': 'AK' } };
const operations: Operation[] = [
  {
    label: 'signed GET /v3/accounts/{id} (`accounts.get`)',
    sdk: () => client.accounts.get(ACCOUNT),
    floor: async () => (await stubFetch(`https://api.example.com/v3/accounts/${ACCOUNT}`, floorInit)).text(),
  },
  {
    label: 'signed POST /v3/orders/reserve with Idempotency-Key (`orders.reserve`)',
    sdk: () => client.orders.reserve(RESERVE),
    floor: async () =>
      (await stubFetch('https://api.example.com/v3/orders/reserve', { method: 'POST', body: '{}' })).text(),
  },
];

async function timeCalls(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call();
  return performance.now() - started;
}

/** µs per call the SDK adds over the bare stub, one value per round. */
async function overheadRounds(operation: Operation): Promise<number[]> {
  await timeCalls(operation.sdk); // warm-up: JIT and caches
  await timeCalls(operation.floor);
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const sdkFirst = round % 2 === 0;
    const a = await timeCalls(sdkFirst ? operation.sdk : operation.floor);
    const b = await timeCalls(sdkFirst ? operation.floor : operation.sdk);
    const [sdkMs, floorMs] = sdkFirst ? [a, b] : [b, a];
    rounds.push(((sdkMs - floorMs) * 1000) / CALLS);
  }
  return rounds;
}

function signingOnlyUs(): number {
  const url = `https://api.example.com/v3/orders/reserve?timestamp=${Date.now()}`;
  const body = Buffer.from(JSON.stringify(RESERVE));
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) signRequest('SK-AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD', url, body);
  return ((performance.now() - started) * 1000) / CALLS;
}

async function main() {
  const rows: string[] = [];
  let failed = false;
  for (const operation of operations) {
    const rounds = await overheadRounds(operation);
    const us = median(rounds);
    const pass = us < LIMIT_US;
    failed ||= !pass;
    const spread = `${Math.min(...rounds).toFixed(1)}–${Math.max(...rounds).toFixed(1)}`;
    rows.push(
      `| ${operation.label} | ${us.toFixed(1)} µs (rounds ${spread}) | < ${LIMIT_US} µs | ${pass ? 'PASS' : '**FAIL**'} |`,
    );
  }
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(`## SDK overhead ${new Date().toISOString().replace('T', ' ').slice(0, 19)} UTC

- Command: \`node --conditions=rampart-source --import tsx bench/scenarios/sdk-overhead.ts\`
- Machine: ${cpus().length} CPUs (${cpu}); Node ${process.version}; load average ${loadavg()[0]!.toFixed(2)}
- Method: ${ROUNDS} rounds of ${CALLS.toLocaleString('en-US')} sequential calls through the SDK against an in-process fetch that answers at once, minus the same number of direct calls of that fetch; median of the rounds

| figure | measured | limit | result |
| --- | --- | --- | --- |
${rows.join('\n')}

HMAC-SHA256 signature alone (\`signRequest\`, reserve URL and body): ${signingOnlyUs().toFixed(1)} µs per call.`);
  if (failed) process.exitCode = 1;
}

await main();
