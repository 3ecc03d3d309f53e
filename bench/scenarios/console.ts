/**
 * The operator console with 100,000 orders (issue 33's figure): `npm run bench:console`.
 *
 * Recreates `<BENCH_DB_NAME>_console`, migrates it, seeds it in SQL (bench/fixtures/console.ts),
 * starts Rampart as the bench does (targets.ts: the built bundle, its own process), bootstraps an
 * admin with the operator token and signs it in through the console's own forms (password, TOTP
 * enrolment, code), then requests each page sequentially over one keep-alive connection: the
 * console is a few people reading pages, not a crowd, so the figure is one reader's latency on
 * big tables, not throughput. Every answer must be 200 and carry the page's marker, a row read
 * from the database beforehand; one that does not fails the run. The section goes to the top of
 * bench/RESULTS.md as a `## Console pages` heading (the HTTP bench keeps only `## Run` sections).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { base32nopad } from '@scure/base';
import { encodeCursor } from '../../src/console/list-kit.ts';
import { totpCode, totpStep } from '../../src/operator/totp.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { createPool } from '../../src/platform/db/pool.ts';
import { benchEmail, CONSOLE_COUNTS, seedConsole } from '../fixtures/console.ts';
import { withSql } from '../fixtures/sql.ts';
import { type BenchConfig, loadBenchConfig } from '../harness/config.ts';
import { checkpoint, lockBenchDatabase, recreateDatabase } from '../harness/database.ts';
import { log } from '../harness/log.ts';
import { markdownTable } from '../harness/report.ts';
import type { RunningServer } from '../harness/server-process.ts';
import { killAllServers } from '../harness/server-process.ts';
import { percentile } from '../harness/stats.ts';
import { BENCH_OPERATOR_TOKEN, startTarget } from '../harness/targets.ts';

const RESULTS = process.env.BENCH_RESULTS || 'bench/RESULTS.md';
const REQUESTS = Number(process.env.BENCH_CONSOLE_REQUESTS || 200);
const WARMUP = 20;
const EMAIL = 'bench-admin@bench.example';
const PASSWORD = 'bench console password, not a secret';

interface Page {
  label: string;
  path: string;
  /** Text the answer must hold: a row the page has to show. */
  marker: string;
}

interface Measured extends Page {
  p50: number;
  p99: number;
  requests: number;
}

/** The rows each page must show, read from the seeded database before any request. */
async function pagesOf(databaseUrl: string): Promise<Page[]> {
  return withSql(databaseUrl, async (client) => {
    const one = async (sql: string) => {
      const { rows } = await client.query<{ v: string }>(sql);
      if (rows[0] === undefined) throw new Error(`no marker row: ${sql}`);
      return rows[0].v;
    };
    const deep = await client.query<{ created_key: string; id: string; next: string }>(
      `SELECT created_at::text AS created_key, id, lead(id) OVER (ORDER BY created_at DESC, id DESC) AS next
       FROM wallet_orders ORDER BY created_at DESC, id DESC OFFSET 49999 LIMIT 2`,
    );
    const cursorRow = deep.rows[0]!;
    // An order with a webhook delivery and a ledger entry, so its timeline has every section.
    const timeline = await client.query<{ order_id: string; delivery: string }>(
      `SELECT substr(trigger, 7) AS order_id, id AS delivery FROM callback_deliveries ORDER BY id OFFSET 1234 LIMIT 1`,
    );
    const { order_id: order, delivery } = timeline.rows[0]!;
    const user = await one(
      `SELECT id AS v FROM users WHERE fields -> 'email' ->> 'value' = '${benchEmail(12345)}'`,
    );
    const transfer = await client.query<{ id: string; hash: string }>(
      `SELECT id, blockchain_tx ->> 'networkTxId' AS hash FROM transfers ORDER BY id OFFSET 2345 LIMIT 1`,
    );
    const auditActor = await client.query<{ operator_id: string; target: string }>(
      `SELECT operator_id, target FROM operator_audit WHERE operator_id IS NOT NULL ORDER BY at DESC, id DESC OFFSET 7 LIMIT 1`,
    );
    const actor = auditActor.rows[0]!;
    return [
      { label: 'search: order id', path: `/console/search?q=${order}`, marker: `/console/orders/${order}` },
      {
        label: 'search: user e-mail',
        path: `/console/search?q=${encodeURIComponent(benchEmail(12345))}`,
        marker: `/console/users/${user}`,
      },
      {
        label: 'search: tx hash',
        path: `/console/search?q=${transfer.rows[0]!.hash}`,
        marker: `/console/transfers/${transfer.rows[0]!.id}`,
      },
      {
        label: '/console/orders, first page',
        path: '/console/orders',
        marker: await one('SELECT id AS v FROM wallet_orders ORDER BY created_at DESC, id DESC LIMIT 1'),
      },
      {
        label: '/console/orders, 50,000 rows in',
        path: `/console/orders?after=${encodeCursor([cursorRow.created_key, cursorRow.id])}`,
        marker: deep.rows[1]!.id,
      },
      {
        label: '/console/partners',
        path: '/console/partners',
        marker: await one(
          `SELECT id AS v FROM accounts WHERE kind = 'master' ORDER BY created_at DESC, id DESC LIMIT 1`,
        ),
      },
      {
        label: '/console/callbacks (failed first)',
        path: '/console/callbacks',
        marker: await one(
          `SELECT id AS v FROM callback_deliveries WHERE status = 'FAILED' ORDER BY created_at DESC, id DESC LIMIT 1`,
        ),
      },
      {
        label: '/console/audit, first page',
        path: '/console/audit',
        marker: await one(
          'SELECT target AS v FROM operator_audit WHERE operator_id IS NOT NULL ORDER BY at DESC, id DESC LIMIT 1',
        ),
      },
      {
        label: '/console/audit, one operator',
        path: `/console/audit?actor=${actor.operator_id}`,
        marker: actor.target,
      },
      { label: 'order timeline', path: `/console/orders/${order}`, marker: delivery },
      {
        label: '/console/ledger',
        path: '/console/ledger',
        marker: await one(
          'SELECT owner AS v FROM ledger_balances WHERE NOT ledger_is_system_owner(owner) ORDER BY owner, currency LIMIT 1',
        ),
      },
    ];
  });
}

/** A browser of one: the session cookie kept by hand, form posts from the console's own origin. */
class Reader {
  cookie = '';
  constructor(private readonly baseUrl: string) {}

  async get(path: string): Promise<{ status: number; body: string; location: string | null }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      redirect: 'manual',
      headers: this.cookie ? { cookie: this.cookie } : {},
    });
    return {
      status: response.status,
      body: await response.text(),
      location: response.headers.get('location'),
    };
  }

  async post(path: string, fields: Record<string, string>): Promise<string> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.baseUrl,
        'sec-fetch-site': 'same-origin',
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      body: new URLSearchParams(fields).toString(),
    });
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status !== 303 || !location)
      throw new Error(`${path} answered ${response.status}: ${body.slice(0, 300)}`);
    const set = response.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0]!;
    return location;
  }

  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    if (!token) throw new Error(`${path} (${page.status}) carries no CSRF token`);
    return token;
  }
}

/** The first admin, bootstrapped with the operator token, signed in as a person would. */
async function signIn(server: RunningServer): Promise<Reader> {
  const bootstrap = await fetch(`${server.baseUrl}/operator/v1/operators/bootstrap`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, name: 'Bench Admin', password: PASSWORD }),
  });
  if (bootstrap.status !== 200 && bootstrap.status !== 201) {
    throw new Error(`bootstrap answered ${bootstrap.status}: ${await bootstrap.text()}`);
  }
  const reader = new Reader(server.baseUrl);
  let next = await reader.post('/console/sign-in', { email: EMAIL, password: PASSWORD });
  if (next === '/console/sign-in/password') {
    const renewed = `${PASSWORD} renewed`;
    const _csrf = await reader.csrf(next);
    next = await reader.post(next, { _csrf, newPassword: renewed, confirmPassword: renewed });
  }
  const enrol = await reader.get(next);
  const secret = /id="totp-secret">([^<]+)</.exec(enrol.body)?.[1];
  const _csrf = /name="_csrf" value="([^"]+)"/.exec(enrol.body)?.[1];
  if (!secret || !_csrf) throw new Error(`${next} (${enrol.status}) shows no TOTP secret or CSRF token`);
  const seed = Buffer.from(base32nopad.decode(secret.replace(/\s/g, '')));
  const done = await reader.post(next, { _csrf, code: totpCode(seed, totpStep(Date.now())) });
  if (done !== '/console') throw new Error(`sign-in ended at ${done}`);
  return reader;
}

async function measure(reader: Reader, page: Page): Promise<Measured> {
  const once = async () => {
    const startedAt = performance.now();
    const answer = await reader.get(page.path);
    const ms = performance.now() - startedAt;
    if (answer.status !== 200 || !answer.body.includes(page.marker)) {
      throw new Error(`${page.label}: ${page.path} answered ${answer.status} without ${page.marker}`);
    }
    return ms;
  };
  for (let i = 0; i < WARMUP; i += 1) await once();
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i += 1) times.push(await once());
  times.sort((left, right) => left - right);
  return { ...page, p50: percentile(times, 50), p99: percentile(times, 99), requests: times.length };
}

async function prepare(config: BenchConfig, name: string, databaseUrl: string): Promise<number> {
  await recreateDatabase(config, name);
  const pool = createPool({ connectionString: databaseUrl, max: 2, statementTimeoutMs: 120_000 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
  const seconds = await seedConsole(databaseUrl);
  await checkpoint(databaseUrl);
  return seconds;
}

async function writeResults(section: string): Promise<void> {
  const previous = await readFile(RESULTS, 'utf8');
  const first = previous.indexOf('\n## ');
  const [header, rest] =
    first < 0 ? [previous.trimEnd(), ''] : [previous.slice(0, first), previous.slice(first + 1)];
  await writeFile(RESULTS, `${header.trimEnd()}\n\n${section.trimEnd()}\n\n${rest.trimEnd()}\n`);
}

function machineLine(loadAtStart: number): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const memory = (os.totalmem() / 1024 ** 3).toFixed(1);
  return (
    `${os.availableParallelism()} CPUs (${cpu}), ${memory} GiB memory, ${os.type()} ${os.release()}; ` +
    `Node ${process.version}; load average ${loadAtStart.toFixed(2)} at start, ${os.loadavg()[0]!.toFixed(2)} at end`
  );
}

async function main(): Promise<void> {
  const began = new Date();
  const loadAtStart = os.loadavg()[0]!;
  const base = loadBenchConfig();
  const config: BenchConfig = { ...base, databaseName: `${base.databaseName}_console` };
  const databaseUrl = `${config.pgServerUrl}/${config.databaseName}`;
  const lock = await lockBenchDatabase(config, () =>
    log(`waiting for another run on ${config.databaseName}`),
  );
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-bench-console-'));
  let server: RunningServer | undefined;
  try {
    log(`seeding ${config.databaseName}`);
    const seedS = await prepare(config, config.databaseName, databaseUrl);
    log(`seeded in ${seedS.toFixed(1)} s`);
    server = await startTarget('rampart', { config, runDir, databaseUrl });
    const reader = await signIn(server);
    const pages = await pagesOf(databaseUrl);
    const measured: Measured[] = [];
    for (const page of pages) {
      const result = await measure(reader, page);
      log(`${page.label}: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
      measured.push(result);
    }
    const revision = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
    const c = CONSOLE_COUNTS;
    const section = [
      `## Console pages, 100,000 orders — run ${began.toISOString().replace('T', ' ').slice(0, 19)} UTC`,
      '',
      `- Command: \`npm run bench:console\` (${Math.round((Date.now() - began.getTime()) / 1000)} s); one run, not a guard`,
      `- Rampart: ${revision}`,
      `- Machine: ${machineLine(loadAtStart)}`,
      `- Database: \`${config.databaseName}\`, fresh, seeded in SQL in ${seedS.toFixed(1)} s: ${c.orders} card orders ` +
        `(a tenth FAILED) with their ledger entries, ${c.partners} partners, ${c.users} users, ${c.transfers} transfers, ` +
        `${c.callbacks} callback deliveries (a fifth FAILED), ${c.audit} audit rows`,
      `- Method: an admin signed in through the console's forms (password, TOTP); each page requested ${WARMUP} times ` +
        `unmeasured, then ${REQUESTS} times one after another on one keep-alive connection (a reader, not a load); ` +
        'every answer 200 and holding its row, checked',
      '',
      ...markdownTable(
        ['page', 'p50 ms', 'p99 ms', 'requests'],
        ['left', 'right', 'right', 'right'],
        measured.map((row) => [row.label, row.p50.toFixed(2), row.p99.toFixed(2), String(row.requests)]),
      ),
    ].join('\n');
    await writeResults(section);
    log(`written to ${RESULTS}`);
  } catch (error) {
    log(`failed; the server's log is under ${runDir}`);
    throw error;
  } finally {
    await server?.stop();
    await lock.release();
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(error);
  killAllServers();
  process.exit(1);
}
