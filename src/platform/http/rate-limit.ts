import { once } from 'node:events';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

export interface RateLimitSettings {
  perIpPerMinute: number;
  perKeyPerMinute: number;
  redisUrl: string | undefined;
}

export interface RateLimits {
  /** Per credential; call after authentication with the caller's key id. */
  perKey: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  close: () => Promise<void>;
}

const WINDOW_MS = 60_000;

function tooMany(retryAfterMs: number) {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(
    'RateLimitException',
    'rateLimit.exceeded',
    `Too many requests; retry in ${seconds} s.`,
    {
      transient: true,
      headers: { 'retry-after': String(seconds) },
    },
  );
}

/**
 * Two limits: per client IP on every request (onRequest, before any work) and per API key
 * after authentication. Counters live in Redis when REDIS_URL is set, so several processes
 * share them; otherwise in this process's memory.
 */
export async function installRateLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  keyOf: (request: FastifyRequest) => string | undefined,
): Promise<RateLimits> {
  // Loaded only when configured: the client library is a noticeable part of start-up time.
  const redis = settings.redisUrl
    ? new (await import('ioredis')).Redis(settings.redisUrl, {
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
      })
    : undefined;
  // Until the connection is up every check would be skipped (skipOnError): start counting at once.
  if (redis && redis.status !== 'ready') await once(redis, 'ready').catch(() => undefined);
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis, nameSpace: 'rampart-rl:' } : {}),
    // A Redis outage must not take the API down with it: count nothing rather than refuse all.
    skipOnError: true,
  });
  // createRateLimit, not rateLimit(): the latter marks a request as limited once and would skip the second check.
  const limiter = (max: number, keyGenerator: (request: FastifyRequest) => string) => {
    const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await check(request);
      if (result.isAllowed) return;
      reply
        .header('x-ratelimit-limit', String(result.max))
        .header('x-ratelimit-remaining', String(result.remaining));
      if (result.isExceeded) throw tooMany(result.ttl);
    };
  };
  app.addHook(
    'onRequest',
    limiter(settings.perIpPerMinute, (request) => `ip:${request.ip}`),
  );
  const perKey = limiter(settings.perKeyPerMinute, (request) => `key:${keyOf(request) ?? request.ip}`);
  return {
    perKey,
    close: async () => {
      redis?.disconnect();
    },
  };
}
