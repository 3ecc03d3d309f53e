import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseMasterKey } from '../src/config.ts';

const MASTER_HEX = 'ab'.repeat(32);
const TOKEN = 'operator-token-0123456789-abcdefghijklmnop';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('has working defaults for a sandbox with nothing set', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      env: 'sandbox',
      host: '0.0.0.0',
      port: 3000,
      publicUrls: ['http://localhost:3000'],
      masterKey: undefined,
      operatorToken: undefined,
      databaseUrl: undefined,
      dataDir: path.resolve('data'),
      embeddedPgPort: 54329,
      dbPoolSize: 10,
      dbStatementTimeoutMs: 5000,
      logLevel: 'info',
      bodyLimitBytes: 1_048_576,
      shutdownTimeoutMs: 10_000,
      workersEnabled: true,
      workerThread: true,
      workerPollMs: 1000,
      workerPoolSize: 4,
    });
  });

  it('reads set values', () => {
    const config = loadConfig({
      RAMPART_ENV: 'production',
      PORT: '8080',
      HOST: '127.0.0.1',
      RAMPART_MASTER_KEY: MASTER_HEX,
      RAMPART_OPERATOR_TOKEN: TOKEN,
      DATABASE_URL: 'postgresql://u:p@db:5432/rampart',
      LOG_LEVEL: 'warn',
      RAMPART_WORKERS: 'false',
      RAMPART_WORKER_THREAD: '0',
      RAMPART_DB_POOL_SIZE: '25',
      RAMPART_WORKER_POOL_SIZE: '8',
    });
    expect(config).toMatchObject({
      env: 'production',
      port: 8080,
      host: '127.0.0.1',
      operatorToken: TOKEN,
      databaseUrl: 'postgresql://u:p@db:5432/rampart',
      logLevel: 'warn',
      workersEnabled: false,
      workerThread: false,
      dbPoolSize: 25,
      workerPoolSize: 8,
      publicUrls: ['http://localhost:8080'],
    });
    expect(config.masterKey?.equals(Buffer.from(MASTER_HEX, 'hex'))).toBe(true);
  });

  const bad: [string, Record<string, string>][] = [
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['RAMPART_ENV', { RAMPART_ENV: 'staging' }],
    ['RAMPART_ENV', { RAMPART_ENV: 'Production' }],
    ['RAMPART_MASTER_KEY', { RAMPART_MASTER_KEY: 'abcd' }],
    ['RAMPART_MASTER_KEY', { RAMPART_MASTER_KEY: 'zz'.repeat(32) }],
    ['RAMPART_MASTER_KEY', { RAMPART_MASTER_KEY: 'ab'.repeat(33) }],
    ['RAMPART_OPERATOR_TOKEN', { RAMPART_OPERATOR_TOKEN: 'short' }],
    ['RAMPART_OPERATOR_TOKEN', { RAMPART_OPERATOR_TOKEN: `${'a'.repeat(20)} ${'b'.repeat(20)}` }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://root@localhost/rampart' }],
    ['RAMPART_PUBLIC_URL', { RAMPART_PUBLIC_URL: 'ftp://x' }],
    ['RAMPART_PUBLIC_URL', { RAMPART_PUBLIC_URL: 'https://api.example.com/?a=1' }],
    ['RAMPART_PUBLIC_URL', { RAMPART_PUBLIC_URL: 'https://api.example.com/#frag' }],
    ['RAMPART_PUBLIC_URL', { RAMPART_PUBLIC_URL: 'not a url' }],
    ['RAMPART_PUBLIC_URL', { RAMPART_PUBLIC_URL: 'https://ok.example.com,ftp://bad' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['RAMPART_WORKERS', { RAMPART_WORKERS: 'maybe' }],
    ['RAMPART_WORKER_THREAD', { RAMPART_WORKER_THREAD: 'maybe' }],
    ['RAMPART_DB_POOL_SIZE', { RAMPART_DB_POOL_SIZE: '0' }],
    ['RAMPART_WORKER_POOL_SIZE', { RAMPART_WORKER_POOL_SIZE: '0' }],
    ['RAMPART_WORKER_POOL_SIZE', { RAMPART_WORKER_POOL_SIZE: '101' }],
    ['RAMPART_WORKER_POOL_SIZE', { RAMPART_WORKER_POOL_SIZE: 'four' }],
    ['RAMPART_BODY_LIMIT_BYTES', { RAMPART_BODY_LIMIT_BYTES: '1e6' }],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION: '0' },
    ],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION: '101' },
    ],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR: 'five' },
    ],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR: '0' },
    ],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR: '-1' },
    ],
    [
      'RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR',
      { RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR: '2.5' },
    ],
  ];
  for (const [variable, env] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      const error = configError(env);
      expect(error.variable).toBe(variable);
      expect(error.message.startsWith(`${variable}: `)).toBe(true);
    });
  }

  it('caps the hosted checkout’s declined card attempts at 3 per reservation, 5 per card and 20 per IP an hour', () => {
    expect(loadConfig({}).checkoutFailedAttempts).toEqual({
      perReservation: 3,
      perCardPerHour: 5,
      perIpPerHour: 20,
    });
    expect(
      loadConfig({
        RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_RESERVATION: '1',
        RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_CARD_HOUR: '10',
        RAMPART_CHECKOUT_MAX_FAILED_ATTEMPTS_PER_IP_HOUR: '500',
      }).checkoutFailedAttempts,
    ).toEqual({ perReservation: 1, perCardPerHour: 10, perIpPerHour: 500 });
  });

  it('never echoes a bad secret back in the error', () => {
    const secret = 'my-secret-token';
    const error = configError({ RAMPART_OPERATOR_TOKEN: secret });
    expect(error.message).not.toContain(secret);
    const key = configError({ RAMPART_MASTER_KEY: 'deadbeef-not-a-key' });
    expect(key.message).not.toContain('deadbeef-not-a-key');
  });

  it('refuses production without a master key or without an operator token', () => {
    expect(configError({ RAMPART_ENV: 'production', RAMPART_OPERATOR_TOKEN: TOKEN }).variable).toBe(
      'RAMPART_MASTER_KEY',
    );
    expect(configError({ RAMPART_ENV: 'production', RAMPART_MASTER_KEY: MASTER_HEX }).variable).toBe(
      'RAMPART_OPERATOR_TOKEN',
    );
    expect(configError({ RAMPART_ENV: 'production' }).variable).toMatch(
      /^RAMPART_(MASTER_KEY|OPERATOR_TOKEN)$/,
    );
  });

  it('takes several public URLs, comma-separated, without trailing slashes', () => {
    const config = loadConfig({
      RAMPART_PUBLIC_URL: 'https://api.example.com/ , http://localhost:8080/rampart//',
    });
    expect(config.publicUrls).toEqual(['https://api.example.com', 'http://localhost:8080/rampart']);
    expect(loadConfig({ RAMPART_PUBLIC_URL: 'https://api.example.com:443/' }).publicUrls).toEqual([
      'https://api.example.com',
    ]);
  });

  it('accepts the master key as hex or as base64 and means the same 32 bytes', () => {
    const bytes = Buffer.from(MASTER_HEX, 'hex');
    expect(parseMasterKey(MASTER_HEX).equals(bytes)).toBe(true);
    expect(parseMasterKey(bytes.toString('base64')).equals(bytes)).toBe(true);
    expect(() => parseMasterKey(Buffer.alloc(31).toString('base64'))).toThrow(ConfigError);
  });
});
