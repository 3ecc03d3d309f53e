import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_OPERATOR_TOKEN, type TestApp } from './helpers/app.ts';
import { bearerFetch, createPartner, type PartnerCredentials } from './helpers/partner.ts';
import { spawnRampart } from './helpers/process.ts';

// `rampart keys …`: a lost partner secret replaced (and the old key revoked) from the command
// line, through the operator API of a running server. Each run is a process of its own: seconds.
const PROCESS_TIMEOUT_MS = 120_000;
let t: TestApp;
let partner: PartnerCredentials;
beforeAll(async () => {
  t = await startTestApp();
  partner = await createPartner(t);
});
afterAll(async () => t?.close());

async function rampart(...args: string[]) {
  const run = spawnRampart(args, { RAMPART_URL: t.baseUrl, RAMPART_OPERATOR_TOKEN: TEST_OPERATOR_TOKEN });
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('rampart keys', () => {
  it(
    'creates a key for an existing account, lists it, revokes it',
    async () => {
      const created = await rampart(
        'keys',
        'create',
        partner.accountId,
        '--type',
        'readonly',
        '--desc',
        'from the CLI',
        '--ip-whitelist',
        '127.0.0.1,10.0.0.0/8',
      );
      expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
      const key = JSON.parse(created.stdout) as { apiKey: string; secretKey: string };
      expect(key).toMatchObject({
        owner: `account:${partner.accountId}`,
        type: 'READONLY',
        desc: 'from the CLI',
        ipWhitelist: ['127.0.0.1', '10.0.0.0/8'],
      });
      expect((await bearerFetch(t, key.secretKey, 'GET', `/v3/accounts/${partner.accountId}`)).status).toBe(
        200,
      );

      const listed = await rampart('keys', 'list', partner.accountId);
      expect(listed.code).toBe(0);
      const { data } = JSON.parse(listed.stdout) as { data: { apiKey: string }[] };
      expect(data.map((entry) => entry.apiKey)).toEqual([partner.apiKey, key.apiKey]);
      expect(listed.stdout).not.toContain(key.secretKey);

      const revoked = await rampart('keys', 'revoke', partner.accountId, key.apiKey);
      expect(revoked).toEqual({ code: 0, stdout: `revoked ${key.apiKey}\n`, stderr: '' });
      expect((await bearerFetch(t, key.secretKey, 'GET', `/v3/accounts/${partner.accountId}`)).status).toBe(
        401,
      );

      // The same revocation again: the server's 404 on stderr, a non-zero exit.
      const again = await rampart('keys', 'revoke', partner.accountId, key.apiKey);
      expect(again.code).toBe(1);
      expect(again.stdout).toBe('');
      expect(again.stderr).toContain('404');
      expect(again.stderr).toContain('NotFoundException');
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'defaults to a FULL key without a whitelist',
    async () => {
      const created = await rampart('keys', 'create', partner.accountId);
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ type: 'FULL', desc: '', ipWhitelist: [] });
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'refuses a missing account, an unknown subcommand or option, exit 1',
    async () => {
      const refusals: [string[], string][] = [
        [['keys', 'create'], 'keys create <accountId>'],
        [['keys', 'rotate', partner.accountId], 'keys revoke <accountId> <apiKey>'],
        [['keys', 'create', 'x', '--bogus'], '--bogus'],
      ];
      for (const [args, named] of refusals) {
        const run = await rampart(...args);
        expect(run.code, args.join(' ')).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/^rampart: /);
        expect(run.stderr).toContain(named);
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});
