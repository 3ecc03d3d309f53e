import { readFile } from 'node:fs/promises';

/**
 * Code samples of the guides in docs/. Every fenced block is preceded by a marker comment that
 * says where its text comes from, so a test can prove the text is real:
 *
 *   <!-- sample: examples/x.ts -->          the whole file, verbatim
 *   <!-- sample: examples/x.ts#name -->     the lines between `#region name` and `#endregion`
 *   <!-- output: examples/x.ts -->          lines that file prints; `…` stands for any text
 *   <!-- ci: .ci/run .ci/smoke-embedded.sh -->  commands those CI scripts run
 */
export const GUIDES = [
  'docs/getting-started.md',
  'docs/authentication.md',
  'docs/reservations-and-checkout.md',
  'docs/card-processing-and-limits.md',
  'docs/users-and-kyc.md',
  'docs/transfers-and-callbacks.md',
  'docs/going-to-production.md',
];

/** Run by test/examples/examples.test.ts against a real `rampart serve`, with what each must print. */
export const EXAMPLE_RUNS: Record<string, RegExp[]> = {
  'examples/first-request.ts': [
    /^account AC_\w{11}: APPROVED, INDIVIDUAL, US$/m,
    /^1 USD buys 0\.\d+ ETH$/m,
    /^refused: 400 validation\.invalidValue on country$/m,
  ],
  'examples/api-keys.ts': [
    /^read-only key writes: 403 accessDenied\.forbidden$/m,
    /^whitelisted elsewhere: 403 accessDenied\.forbidden$/m,
    /^bearer reads: AC_\w{11}$/m,
    /^as AC_\w{11}: sub@example\.com$/m,
    /^deleted key: 401 /m,
  ],
  'examples/decentralized-session.ts': [
    /^registered: apiKey AK-[\w-]+, authenticatedAs null$/m,
    /^before the account: 401 accessDenied\.noAccount$/m,
    /^signed read AC_\w{11}; legal name Ada Lovelace /m,
  ],
  'examples/transfer-between-users.ts': [
    /^Alice: TRANSFER APPROVED, governmentIdFront SUBMITTED$/m,
    /^Bob: TRANSFER APPROVED, governmentIdFront SUBMITTED$/m,
    /^transfer TF_\w{11}: COMPLETED, 10 USDC$/m,
    /^callback verified: transfer:TF_\w{11} \(subscription DA_\w{11}\)$/m,
    /^Alice: 15 USDC, Bob: 10 USDC$/m,
  ],
  'examples/card-purchase.ts': [
    /^order WO_\w{11}: RUNNING_CHECKS, codes requested: true$/m,
    /^authorization: sms true, card2fa true$/m,
    /^codes accepted: true$/m,
    /^order WO_\w{11}: COMPLETE, transfer TF_\w{11}$/m,
  ],
  'examples/curl/signed-requests.sh': [/^\{"id":"AC_\w{11}","status":"OPEN",.*"subaccount":true\}$/m],
  'examples/curl/operator-credit.sh': [
    /^\{"entryId":\d+,"owner":"account:AC_\w{11}","currency":"USD","amount":1000,/m,
    /^\{"id":"TF_\w{11}","status":"COMPLETED",/m,
  ],
};

/** Imported by every example above, so run with each of them. */
export const SHARED_EXAMPLE_MODULES = ['examples/sandbox-env.ts'];

/** Checked by test/examples/production.test.ts (no server needed). */
export const PRODUCTION_SAMPLES = [
  'examples/production/secrets.sh',
  'examples/production/rampart.env',
  'examples/production/backup.sh',
];

export type Marker =
  | { kind: 'sample'; file: string; region?: string }
  | { kind: 'output'; file: string }
  | { kind: 'ci'; files: string[] };

export interface Block {
  guide: string;
  /** 1-based line of the opening fence. */
  line: number;
  marker: Marker | undefined;
  text: string;
}

const MARKER = /^<!-- (sample|output|ci): (.+?) -->$/;

function parseMarker(line: string | undefined): Marker | undefined {
  const match = MARKER.exec(line?.trim() ?? '');
  if (!match) return undefined;
  const [, kind, value] = match as unknown as [string, string, string];
  if (kind === 'ci') return { kind, files: value.split(/\s+/) };
  if (kind === 'output') return { kind, file: value };
  const [file, region] = value.split('#') as [string, string?];
  return region ? { kind: 'sample', file, region } : { kind: 'sample', file };
}

/** Every fenced block of a guide with the marker on the line above its opening fence. */
export function fencedBlocks(guide: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(`{3,})/.exec(lines[i]!)?.[1];
    if (!fence) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith(fence));
    if (end < 0) throw new Error(`${guide}:${i + 1}: unclosed code block`);
    blocks.push({
      guide,
      line: i + 1,
      marker: parseMarker(lines[i - 1]),
      text: lines.slice(i + 1, end).join('\n'),
    });
    i = end;
  }
  return blocks;
}

/** The lines between `#region name` and the next `#endregion`, dedented as one block. */
export function region(source: string, name: string): string {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => new RegExp(`#region ${name}$`).test(line.trim()));
  if (start < 0) throw new Error(`no #region ${name}`);
  const end = lines.findIndex((line, i) => i > start && /#endregion( \w+)?$/.test(line.trim()));
  if (end < 0) throw new Error(`#region ${name} has no #endregion`);
  const body = lines.slice(start + 1, end);
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return body.map((line) => line.slice(indent)).join('\n');
}

/** The text a sample marker stands for, read from the repository. */
export async function sampleText(marker: Extract<Marker, { kind: 'sample' }>): Promise<string> {
  const source = await readFile(marker.file, 'utf8');
  return marker.region ? region(source, marker.region) : source.replace(/\n$/, '');
}

/** Output lines with `…` as a wildcard, each matched against a later line of `actual`. */
export function unmatchedOutputLines(expected: string, actual: string): string[] {
  const actualLines = actual.split('\n');
  let from = 0;
  const missing: string[] = [];
  for (const pattern of expected.split('\n').filter((line) => line.trim())) {
    const escaped = pattern.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const regex = new RegExp(`^${escaped.join('.*?')}$`);
    const index = actualLines.findIndex((line, i) => i >= from && regex.test(line));
    if (index < 0) missing.push(pattern);
    else from = index + 1;
  }
  return missing;
}

/**
 * Shell variables the samples read that neither an earlier sample of the same guide sets nor the
 * reader is told to set: a reader copies the samples in order, so `$BASE` must be set by one.
 * `${NAME:-default}` and `${NAME:?}` name their own inputs; `isDocumented` says which other names
 * (the RAMPART_* variables of examples/README.md) the reader sets.
 */
export function unsetShellVariables(samples: string[], isDocumented: (name: string) => boolean): string[] {
  const inputs = new Set(
    samples.flatMap((text) => [...text.matchAll(/\$\{([A-Za-z_]\w*):[-?]/g)].map((match) => match[1]!)),
  );
  const set = new Set<string>();
  const unset: string[] = [];
  for (const text of samples) {
    for (const line of text.split('\n').map((l) => l.replace(/(^|\s)#.*$/, ''))) {
      for (const [, name] of line.matchAll(/\$\{?([A-Za-z_]\w*)/g)) {
        if (!set.has(name!) && !inputs.has(name!) && !isDocumented(name!)) unset.push(name!);
      }
      for (const [, name] of line.matchAll(/(?:^|[\s;(])(?:local |export )?([A-Za-z_]\w*)=/g)) set.add(name!);
    }
  }
  return [...new Set(unset)];
}
