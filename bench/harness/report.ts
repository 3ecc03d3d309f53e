/** Renders one run as a Markdown section and keeps RESULTS.md to the newest few runs, newest first. */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import type { BenchConfig } from './config.ts';
import { type Figure, type RatioTable, type Row, ratioKey, shortName } from './figures.ts';
import type { MachineFacts } from './machine.ts';
import { median } from './stats.ts';

export interface RunReport {
  startedAt: Date;
  elapsedS: number;
  command: string;
  config: BenchConfig;
  machine: MachineFacts;
  pgbenchCommand: string | undefined;
  rows: readonly Row[];
  ratios: RatioTable;
  figures: readonly Figure[];
  notes: readonly string[];
}

const RUN_HEADING = '## Run ';
/** `npm run bench:console`'s sections (bench/scenarios/console.ts): kept among the runs as theirs are. */
const KEPT_HEADINGS = [RUN_HEADING, '## Console pages'];
const FILE_HEADER = `# Benchmark results

Written by \`npm run bench\` (see [README.md](README.md)); newest run first. Figures are only
comparable within one run: every ratio is the median of per-round ratios against a baseline measured
in the same rounds, seconds apart, on the same machine.
`;

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

const upToTwoDecimals = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

function milliseconds(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return '—';
  return upToTwoDecimals.format(value);
}

/** Median of the per-round ratios, then the lowest and highest. */
function ratioCell(row: Row, rows: readonly Row[], ratios: RatioTable): string {
  const reference = rows.find((candidate) => candidate.id === row.comparedWith);
  const perRound = row.comparedWith ? ratios.get(ratioKey(row.id, row.comparedWith)) : undefined;
  if (!reference || !perRound || perRound.length === 0) return '—';
  const low = Math.min(...perRound).toFixed(2);
  const high = Math.max(...perRound).toFixed(2);
  return `${median(perRound).toFixed(2)} × ${shortName(reference)} (${low}–${high})`;
}

type Alignment = 'left' | 'right';

/** Padded the way the repo's formatter (biome) pads Markdown tables, so `biome check` passes on RESULTS.md. */
export function markdownTable(
  header: readonly string[],
  alignments: readonly Alignment[],
  body: string[][],
): string[] {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...body.map((cells) => cells[column]?.length ?? 0)),
  );
  const pad = (text: string, column: number) => {
    const width = widths[column] ?? 0;
    return alignments[column] === 'right' ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: readonly string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = widths.map((width, column) =>
    alignments[column] === 'right' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width),
  );
  return [line(header), `| ${rule.join(' | ')} |`, ...body.map(line)];
}

function scenarioTable(rows: readonly Row[], ratios: RatioTable): string[] {
  const body = rows.map((row) => {
    const throughput = row.throughput === undefined ? '—' : whole.format(row.throughput);
    const unit = row.unit === 'tps' && row.throughput !== undefined ? ' tps' : '';
    const range = row.throughputRange
      ? `${whole.format(row.throughputRange[0])}–${whole.format(row.throughputRange[1])}`
      : '—';
    return [
      row.label,
      `${throughput}${unit}`,
      range,
      milliseconds(row.p50Ms),
      milliseconds(row.p99Ms),
      String(row.errors ?? '—'),
      ratioCell(row, rows, ratios),
    ];
  });
  const header = ['scenario', 'req/s', 'min–max', 'p50 ms', 'p99 ms', 'errors', 'ratio (min–max)'];
  return markdownTable(header, ['left', 'right', 'right', 'right', 'right', 'right', 'left'], body);
}

function figureTable(figures: readonly Figure[]): string[] {
  const body = figures.map((figure) => [
    figure.description,
    figure.measured,
    figure.limit,
    figure.pass ? 'PASS' : '**FAIL**',
  ]);
  return markdownTable(['figure', 'measured', 'limit', 'result'], ['left', 'left', 'left', 'left'], body);
}

export function renderRun(report: RunReport): string {
  const { config, machine } = report;
  const stamp = report.startedAt
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const lines = [
    `${RUN_HEADING}${stamp}`,
    '',
    `- Command: \`${report.command}\` (${report.elapsedS.toFixed(0)} s)`,
    `- Rampart: ${machine.revision}`,
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB.toFixed(1)} GiB memory, ` +
      `${machine.os}; Node ${machine.node}; PostgreSQL ${machine.postgres}; load average ` +
      `${machine.loadAverageAtStart.toFixed(2)} at start, ${os.loadavg()[0]?.toFixed(2)} at end`,
    `- HTTP load: autocannon ${machine.autocannon} in its own process, ${config.connections} connections; ` +
      `${config.rounds} rounds, each measuring a baseline and the scenarios compared with it in turn ` +
      `(baseline in the middle, the others swapping sides every round), ${config.warmupS} s warm-up ` +
      `(${2 * config.warmupS} s the first time) then ${config.durationS} s measured each; baseline server and ` +
      'Rampart both running throughout, each in its own unpinned process, all on 127.0.0.1',
    `- Latency figures: open-loop fixed rate from the same process (evenly spaced requests, up to ` +
      `${config.connections} keep-alive sockets, raw HTTP/1.1 client of test/helpers/raw-http.ts, latency from when a request is handed to its pool), ${config.latencyRounds} ` +
      `rounds of ${config.warmupS} s warm-up + ${config.durationS} s per scenario`,
    `- Database: \`${config.databaseName}\` on ${config.pgServerUrl}, created fresh for the run` +
      (report.pgbenchCommand ? `; (d) is \`${report.pgbenchCommand}\`` : ''),
    "- req/s is the median over rounds of autocannon's mean of per-second counts (min–max: the lowest and " +
      'highest round); p50/p99 are medians over rounds; ratio is the median of per-round ratios; errors ' +
      '(summed) are connection errors, timeouts and answers with another status than the scenario expects',
    '',
    ...scenarioTable(report.rows, report.ratios),
  ];
  if (report.figures.length > 0) lines.push('', ...figureTable(report.figures));
  const notes = [
    ...report.notes,
    ...report.rows.filter((row) => row.note).map((row) => `${row.label}: ${row.note}`),
  ];
  if (notes.length > 0) lines.push('', 'Notes:', '', ...notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}

/** Earlier sections are kept verbatim; anything before the first run heading is the header we own. */
export async function prependRun(resultsPath: string, section: string, keptRuns: number): Promise<void> {
  const previous = existsSync(resultsPath) ? await readFile(resultsPath, 'utf8') : '';
  const earlierRuns = previous
    .split(new RegExp(`^(?=${KEPT_HEADINGS.join('|')})`, 'm'))
    .filter((part) => KEPT_HEADINGS.some((heading) => part.startsWith(heading)))
    .map((part) => part.trimEnd());
  const runs = [section.trimEnd(), ...earlierRuns].slice(0, keptRuns);
  await writeFile(resultsPath, `${FILE_HEADER}\n${runs.join('\n\n')}\n`);
}
