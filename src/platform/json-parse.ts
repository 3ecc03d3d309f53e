import { parse as parseLossless } from 'lossless-json';
import sjson from 'secure-json-parse';
import { Money } from './money.ts';

/**
 * JSON request bodies, read without losing a digit. A double holds every decimal of up to 15
 * significant digits exactly, so bodies whose number literals are all that short take the fast
 * native parser. Otherwise numbers are read from their source text: one a double represents
 * exactly stays a number, any other stays its decimal text — amount fields accept numbers or
 * decimal strings (API.md), so `1.123456789012345678` reaches parseAmount digit for digit and a
 * field that must be a plain number refuses it instead of using a rounded value.
 */
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const MAX_EXACT_DIGITS = 15;
const SAFE = { protoAction: 'error', constructorAction: 'error' } as const;

function mayLosePrecision(text: string): boolean {
  for (const [token] of text.matchAll(NUMBER_TOKEN)) {
    const mantissa = token.replace(/[eE].*$/, '');
    if (/[eE]/.test(token)) return true;
    if (mantissa.replace(/[-.]/g, '').replace(/^0+/, '').length > MAX_EXACT_DIGITS) return true;
  }
  return false;
}

function exactNumber(text: string): number | string {
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  return new Money(String(value)).eq(new Money(text)) ? value : text;
}

/** Throws SyntaxError on malformed JSON and Error on __proto__ / constructor.prototype keys. */
export function parseJsonExact(text: string): unknown {
  if (!mayLosePrecision(text)) return sjson.parse(text, undefined, SAFE);
  const value = parseLossless(text, undefined, exactNumber);
  sjson.scan(value as Record<string, unknown>, SAFE);
  return value;
}
