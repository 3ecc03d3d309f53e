/**
 * Issue 4's memory figure: uploading a 7 MB document raises the server's peak RSS by less than
 * 40 MB. Run with `node --import tsx bench/scenarios/upload-rss.ts` (about 15 s). Starts Rampart on a fresh
 * database of the machine's PostgreSQL, creates a partner and a user, warms the upload path with a
 * small document, then for each 7 MB upload: resets the kernel's peak counter
 * (`/proc/<pid>/clear_refs` ← 5), reads VmRSS, uploads, reads VmHWM. Growth = VmHWM − VmRSS before.
 * Exits non-zero when a growth reaches the limit.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadBenchConfig } from '../harness/config.ts';
import { BENCH_OPERATOR_TOKEN, startTarget } from '../harness/targets.ts';

const LIMIT_MB = 40;
const UPLOAD_BYTES = 7 * 1024 * 1024;
const DATABASE = 'rampart_bench_upload_rss';

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]);
}

function pdf(sizeBytes: number): Buffer {
  const head = Buffer.from('%PDF-1.4\n');
  const tail = Buffer.from('\n%%EOF\n');
  return Buffer.concat([head, Buffer.alloc(sizeBytes - head.length - tail.length, 0x20), tail]);
}

async function main() {
  const config = loadBenchConfig();
  const admin = new pg.Client({ connectionString: `${config.pgServerUrl}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const runDir = mkdtempSync(path.join(tmpdir(), 'rampart-upload-rss-'));
  const server = await startTarget('rampart', {
    config,
    runDir,
    databaseUrl: `${config.pgServerUrl}/${DATABASE}`,
  });
  try {
    const pid = server.pid;
    if (pid === undefined) throw new Error('no server pid');
    const operator = { authorization: `Bearer ${BENCH_OPERATOR_TOKEN}`, 'content-type': 'application/json' };
    const partner = (await (
      await fetch(`${server.baseUrl}/operator/v1/accounts`, {
        method: 'POST',
        headers: operator,
        body: JSON.stringify({ name: 'rss', country: 'US', usersApi: true }),
      })
    ).json()) as { apiKey: string; secretKey: string };
    const signed = async (method: string, pathAndQuery: string, body: Buffer | string, type: string) => {
      const url = `${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}timestamp=${Date.now()}`;
      const signature = createHmac('sha256', partner.secretKey)
        .update(`${server.baseUrl}${url}`)
        .update(body)
        .digest('hex');
      return fetch(`${server.baseUrl}${url}`, {
        method,
        headers: { 'content-type': type, 'x-api-key': partner.apiKey, 'x-api-signature': signature },
        body: body as BodyInit,
      });
    };
    const user = (await (await signed('POST', '/v3/users', '{}', 'application/json')).json()) as {
      id: string;
    };
    const uploadPath = `/v3/users/${user.id}/governmentIdFront?docType=PASSPORT&masqueradeAs=user:${user.id}`;
    const warm = await signed('POST', uploadPath, pdf(64 * 1024), 'application/pdf');
    if (warm.status !== 204) throw new Error(`warm-up upload: ${warm.status} ${await warm.text()}`);
    const growthsMb: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const body = pdf(UPLOAD_BYTES);
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      const beforeKb = statusKb(pid, 'VmRSS');
      const response = await signed('POST', uploadPath, body, 'application/pdf');
      if (response.status !== 204) throw new Error(`upload: ${response.status} ${await response.text()}`);
      const peakKb = statusKb(pid, 'VmHWM');
      growthsMb.push((peakKb - beforeKb) / 1024);
      console.log(
        `upload ${attempt + 1}: RSS before ${(beforeKb / 1024).toFixed(1)} MB, peak ${(peakKb / 1024).toFixed(1)} MB, growth ${((peakKb - beforeKb) / 1024).toFixed(1)} MB`,
      );
    }
    const worst = Math.max(...growthsMb);
    const ok = worst < LIMIT_MB;
    console.log(
      `${ok ? 'PASS' : 'FAIL'}: 7 MB upload peak RSS growth ${worst.toFixed(1)} MB (limit < ${LIMIT_MB} MB)`,
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
