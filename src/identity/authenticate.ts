import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { GroupedCalls } from '../platform/db/grouped-writer.ts';
import { authErrors } from './errors.ts';
import { normaliseIp } from './ip-whitelist.ts';
import type { KeyUsage } from './key-usage.ts';
import {
  type BearerLookup,
  findLiveKeySecret,
  findLiveKeysBySecretHash,
  type KeyWithAccount,
  type RecordedUse,
  recordSignatureUses,
  type SignatureUse,
} from './keys-store.ts';
import { hashSecret, SigningSecretCache } from './secrets.ts';
import {
  isWellFormedSignature,
  signatureCandidates,
  signatureMatches,
  timestampMs,
  timestampParam,
} from './signature.ts';
import type { Caller } from './types.ts';

const API_KEY_SHAPE = /^[\x21-\x7e]{1,64}$/;
const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export function toCaller(key: KeyWithAccount, scheme: Caller['scheme']): Caller {
  return {
    apiKey: key.api_key,
    keyType: key.type,
    scheme,
    account: key.account,
    ipWhitelist: key.ip_whitelist,
    ...(key.user_id ? { userId: key.user_id } : {}),
  };
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Establishes who is calling: a signed request (X-Api-Key + X-Api-Signature + timestamp) or a
 * bearer secret. Failures are 401s that say what was wrong with the credentials, never whether
 * a given key exists.
 *
 * Concurrent requests are looked up together: one statement per group of bearer lookups and one
 * per group of signature uses (GroupedCalls), each request still getting its own answer. Under
 * load that is one round trip for many requests instead of one each.
 */
export class Authenticator {
  private readonly secrets: SigningSecretCache;
  private readonly bearerLookups: GroupedCalls<BearerLookup, KeyWithAccount | undefined>;
  private readonly signatureUses: GroupedCalls<SignatureUse, RecordedUse | undefined>;

  constructor(
    private readonly ctx: AppContext,
    private readonly keyUsage?: KeyUsage,
  ) {
    this.secrets = new SigningSecretCache(ctx.config.masterKey);
    this.bearerLookups = new GroupedCalls((lookups) => findLiveKeysBySecretHash(ctx.db, lookups));
    this.signatureUses = new GroupedCalls((uses) => recordSignatureUses(ctx.asyncCommitDb, uses));
  }

  async authenticate(request: FastifyRequest): Promise<Caller> {
    const caller = await this.identify(request);
    // A Map lookup and a compare: the write of "last used" happens later, off this path.
    this.keyUsage?.used(caller.apiKey, this.ctx.clock.realNow());
    return caller;
  }

  private async identify(request: FastifyRequest): Promise<Caller> {
    // Client libraries send `X-Api-Key: ''` beside a bearer token when no key is configured:
    // an empty key header is no key (docs/contract.md, decision 61).
    const apiKey = singleHeader(request, 'x-api-key')?.trim() || undefined;
    // A masqueraded call reads another account's balances: the caller's would be read for nothing.
    const withBalances =
      request.routeOptions.config.withOwnBalances === true &&
      (request.query as Record<string, unknown> | undefined)?.masqueradeAs === undefined;
    if (apiKey !== undefined) return this.bySignature(request, apiKey, withBalances);
    const authorization = singleHeader(request, 'authorization');
    if (authorization !== undefined) return this.byBearer(authorization, withBalances);
    throw authErrors.missingCredentials();
  }

  private async byBearer(authorization: string, withBalances: boolean): Promise<Caller> {
    const token = BEARER.exec(authorization)?.[1];
    if (!token) throw authErrors.invalidSession();
    const key = await this.bearerLookups.call({ secretHash: hashSecret(token), withBalances });
    if (!key) throw authErrors.invalidSession();
    return toCaller(key, 'bearer');
  }

  private checkTimestamp(request: FastifyRequest): number {
    const raw = timestampParam(request.query);
    if (raw === undefined) throw authErrors.timestampRequired();
    const sentMs = raw === 'duplicate' ? undefined : timestampMs(raw);
    if (sentMs === undefined) throw authErrors.invalidTimestamp();
    // Real time, not the sandbox clock: clients sign with their real clocks (docs/contract.md, decision 7).
    const windowMs = this.ctx.config.signatureWindowMs;
    if (Math.abs(this.ctx.clock.realNow() - sentMs) > windowMs)
      throw authErrors.timestampOutOfWindow(windowMs);
    return sentMs;
  }

  private async signingSecret(apiKey: string): Promise<Buffer> {
    const nowMs = this.ctx.clock.realNow();
    const cached = this.secrets.get(apiKey, nowMs);
    if (cached) return cached;
    const sealed = await findLiveKeySecret(this.ctx.db, apiKey);
    if (!sealed) throw authErrors.invalidSignature();
    return this.secrets.open(apiKey, sealed, nowMs);
  }

  private async bySignature(request: FastifyRequest, apiKey: string, withBalances: boolean): Promise<Caller> {
    const signature = singleHeader(request, 'x-api-signature');
    if (!API_KEY_SHAPE.test(apiKey) || signature === undefined || !isWellFormedSignature(signature)) {
      throw authErrors.invalidSignature();
    }
    const sentMs = this.checkTimestamp(request);
    const secret = await this.signingSecret(apiKey);
    const candidates = signatureCandidates(this.ctx.config.publicUrls, request.raw.url ?? '/');
    if (!signatureMatches(secret, signature, candidates, request.rawBody))
      throw authErrors.invalidSignature();
    // Kept until the timestamp can no longer pass the window check, then purged. The record binds
    // what the signature does not cover: the method, and for a repeated GET the client's address.
    const expiresAtMs = sentMs + this.ctx.config.signatureWindowMs + 1000;
    const used = await this.signatureUses.call({
      apiKey,
      signature: signature.toLowerCase(),
      expiresAtMs,
      signedAtMs: sentMs,
      method: request.method,
      address: normaliseIp(request.ip),
      withBalances,
    });
    if (!used) {
      this.secrets.forget(apiKey);
      throw authErrors.invalidSignature();
    }
    if (used.signedBeforeStart) throw authErrors.signedBeforeRestart();
    if (!used.accepted) throw authErrors.replayed();
    return toCaller(used, 'signature');
  }
}
