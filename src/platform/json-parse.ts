import { parse as parseLossless } from 'lossless-json';
import sjson from 'secure-json-parse';
import { Money } from './money.ts';

/**
 * JSON request bodies, read without losing a digit. A double holds every decimal of up to 15
 * significant digits exactly, so bodies whose number literals are all that short take the fast
 * native parser. Otherwise numbers are read from their source text: one a double represents
 * exactly stays a number, any other stays its decimal text — amount fields accept numbers or
 * decimal strings (docs/contract.md, Conventions), so `1.123456789012345678` reaches parseAmount digit for digit and a
 * field that must be a plain number refuses it instead of using a rounded value.
 */
const MAX_EXACT_DIGITS = 15;
const SAFE = { protoAction: 'error', constructorAction: 'error' } as const;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

const isDigit = (code: number) => code >= ZERO && code <= NINE;
const inNumber = (code: number) =>
  isDigit(code) || code === DOT || code === MINUS || code === PLUS || code === LOWER_E || code === UPPER_E;

/** Index just past the string literal whose opening quote is before `start` (the end on malformed text). */
function afterString(text: string, start: number): number {
  let index = start;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === BACKSLASH) index += 2;
    else if (code === QUOTE) return index + 1;
    else index += 1;
  }
  return text.length;
}

/** Whether the number literal text[start, end) has an exponent or more significant digits than a double keeps. */
function numberMayLose(text: string, start: number, end: number): boolean {
  let significant = 0;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (code === LOWER_E || code === UPPER_E) return true;
    // Leading zeros (before or after the point) are not significant; every digit after one is.
    if (isDigit(code) && (significant > 0 || code !== ZERO)) significant += 1;
  }
  return significant > MAX_EXACT_DIGITS;
}

/**
 * Whether any number literal of `text` may not survive a double. String literals are skipped: a
 * card number, a phone number or a hex address is text, and digits in it do not send the body
 * to the slow parser (every card order's did, for its card number). One pass, no allocation.
 */
export function mayLosePrecision(text: string): boolean {
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = afterString(text, index + 1);
    } else if (code === MINUS || isDigit(code)) {
      const start = index;
      while (index < text.length && inNumber(text.charCodeAt(index))) index += 1;
      if (numberMayLose(text, start, index)) return true;
    } else {
      index += 1;
    }
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
