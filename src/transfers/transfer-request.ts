import { assertNotifyUrlAllowed } from '../callbacks/index.ts';
import type { Scope } from '../identity/index.ts';
import { isKnownCurrency, parsePositiveAmount } from '../platform/money.ts';
import type { TransferRulesDeps } from './deps.ts';
import { transferErrors } from './errors.ts';
import {
  actingParty,
  checkChainDestination,
  checkPartiesStatically,
  type Party,
  parseParty,
} from './parties.ts';
import { quoteTransfer, type TransferQuote } from './quote.ts';
import type { CreateTransferBody } from './schemas.ts';

/** A create request checked and quoted before any transaction opens (quotes may read prices). */
export interface PreparedTransfer {
  source: Party;
  dest: Party;
  sourceCurrency: string;
  destCurrency: string;
  quote: TransferQuote;
  message: string | null;
  customId: string | null;
  notifyUrl: string | undefined;
  preview: boolean;
  autoConfirm: boolean;
}

function currency(value: string, field: string): string {
  if (!isKnownCurrency(value)) throw transferErrors.unsupportedCurrency(field, value);
  return value;
}

/** docs/contract.md, Transfers: exactly one of sourceAmount and destAmount, each in its own currency's decimals. */
function fixedAmount(body: CreateTransferBody, sourceCurrency: string, destCurrency: string) {
  if (body.sourceAmount !== undefined && body.destAmount !== undefined) throw transferErrors.bothAmounts();
  if (body.sourceAmount !== undefined) {
    const value = parsePositiveAmount(body.sourceAmount, 'sourceAmount', sourceCurrency);
    return { side: 'source' as const, value, field: 'sourceAmount' };
  }
  if (body.destAmount !== undefined) {
    const value = parsePositiveAmount(body.destAmount, 'destAmount', destCurrency);
    return { side: 'dest' as const, value, field: 'destAmount' };
  }
  throw transferErrors.amountRequired();
}

export async function prepareTransfer(
  ctx: TransferRulesDeps,
  scope: Scope,
  body: CreateTransferBody,
): Promise<PreparedTransfer> {
  const sourceCurrency = currency(body.sourceCurrency, 'sourceCurrency');
  const destCurrency = currency(body.destCurrency ?? body.sourceCurrency, 'destCurrency');
  const amount = fixedAmount(body, sourceCurrency, destCurrency);
  const network = ctx.chains.network;
  const source = body.source === undefined ? actingParty(scope) : parseParty(body.source, 'source', network);
  const dest = parseParty(body.dest, 'dest', network);
  checkPartiesStatically(ctx, scope, source, dest, destCurrency);
  if (dest.kind === 'chain') await checkChainDestination(ctx, dest.chain, dest.address, destCurrency);
  if (body.notifyUrl !== undefined) await assertNotifyUrlAllowed(ctx, body.notifyUrl, 'notifyUrl');
  const quote = await quoteTransfer(ctx, {
    sourceCurrency,
    destCurrency,
    amount,
    amountIncludesFees: body.amountIncludesFees ?? false,
    toChain: dest.kind === 'chain',
  });
  return {
    source,
    dest,
    sourceCurrency,
    destCurrency,
    quote,
    message: body.message ?? null,
    customId: body.customId ?? null,
    notifyUrl: body.notifyUrl,
    preview: body.preview ?? false,
    autoConfirm: body.autoConfirm ?? false,
  };
}

/** A confirm body may repeat the transfer's id, as Wyre clients do; another id (or a non-string) is refused. */
export function checkConfirmBody(transferId: string, body: Record<string, unknown> | undefined): void {
  if (body?.transferId !== undefined && body.transferId !== transferId)
    throw transferErrors.confirmIdMismatch();
}
