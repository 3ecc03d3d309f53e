import { once } from 'node:events';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { LocalWindowCounter } from './local-window.ts';

export interface RateLimitSettings {
  perIpPerMinute: number;
  perKeyPerMinute: number;
  redisUrl: string | undefined;
}

export type LimitCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined;

export interface RateLimits {
  /**
   * Per credential; call after authentication. Answers undefined when the check was made
   * synchronously (in-memory counters), a promise when it needs Redis.
   */
  perKey: LimitCheck;
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

/** The 429 answer: the limit's numbers as headers, Retry-After, the transient envelope. */
function refuse(reply: FastifyReply, max: number, remaining: number, retryAfterMs: number): ApiError {
  reply.header('x-ratelimit-limit', String(max)).header('x-ratelimit-remaining', String(remaining));
  return tooMany(retryAfterMs);
}

/**
 * Two limits: per client IP on every request (onRequest, before any work) and per API key
 * after authentication. Counters live in Redis when REDIS_URL is set, so several processes
 * share them; otherwise in this process's memory, counted synchronously.
 */
export async function installRateLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  keyOf: (request: FastifyRequest) => string | undefined,
): Promise<RateLimits> {
  const perKeyName = (request: FastifyRequest) => `key:${keyOf(request) ?? request.ip}`;
  if (!settings.redisUrl) return installLocalLimits(app, settings, perKeyName);
  return installRedisLimits(app, settings, settings.redisUrl, perKeyName);
}

function installLocalLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  perKeyName: (request: FastifyRequest) => string,
): RateLimits {
  const perIp = new LocalWindowCounter(settings.perIpPerMinute, WINDOW_MS);
  const perKey = new LocalWindowCounter(settings.perKeyPerMinute, WINDOW_MS);
  app.addHook('onRequest', (request, reply, done) => {
    const count = perIp.hit(`ip:${request.ip}`);
    done(
      count.allowed ? undefined : refuse(reply, settings.perIpPerMinute, count.remaining, count.resetInMs),
    );
  });
  return {
    perKey: (request, reply) => {
      const count = perKey.hit(perKeyName(request));
      if (!count.allowed) throw refuse(reply, settings.perKeyPerMinute, count.remaining, count.resetInMs);
      return undefined;
    },
    close: async () => {
      perIp.close();
      perKey.close();
    },
  };
}

async function installRedisLimits(
  app: FastifyInstance,
  settings: RateLimitSettings,
  redisUrl: string,
  perKeyName: (request: FastifyRequest) => string,
): Promise<RateLimits> {
  // Loaded only when configured: the client library is a noticeable part of start-up time.
  const redis = new (await import('ioredis')).Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
  // Until the connection is up every check would be skipped (skipOnError): start counting at once.
  if (redis.status !== 'ready') await once(redis, 'ready').catch(() => undefined);
  await app.register(rateLimit, {
    global: false,
    redis,
    nameSpace: 'rampart-rl:',
    // A Redis outage must not take the API down with it: count nothing rather than refuse all.
    skipOnError: true,
  });
  // createRateLimit, not rateLimit(): the latter marks a request as limited once and would skip the second check.
  const limiter = (max: number, keyGenerator: (request: FastifyRequest) => string) => {
    const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator });
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await check(request);
      if (!result.isAllowed && result.isExceeded)
        throw refuse(reply, result.max, result.remaining, result.ttl);
    };
  };
  app.addHook(
    'onRequest',
    limiter(settings.perIpPerMinute, (request) => `ip:${request.ip}`),
  );
  return {
    perKey: limiter(settings.perKeyPerMinute, perKeyName),
    close: async () => {
      redis.disconnect();
    },
  };
}
