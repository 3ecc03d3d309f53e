/**
 * Response JSON without losing a digit. Rampart writes amounts as exact JSON numbers
 * (`0.123456789012345678` ETH, 18 decimals); `JSON.parse` would squeeze them through a binary
 * double. This parser reads every amount from its source text and hands it to the caller as a
 * decimal string (`Amount`), exactly as the server wrote it, ready for decimal.js, big.js or
 * BigInt arithmetic. Numbers that are not money (times in epoch ms, counts) stay JS numbers.
 *
 * What is an amount: a number under one of AMOUNT_KEYS, or any number inside one of
 * AMOUNT_MAPS (`fees: {USD: 0.3, ETH: 0.001}`), or every number of an endpoint answering only
 * amounts (rates, limits: mode `all`).
 */

/** Field names whose numeric values are money (or rates) in Rampart and Wyre answers. */
export const AMOUNT_KEYS: ReadonlySet<string> = new Set([
  'amount',
  'sourceAmount',
  'sourceAmountWithoutFees',
  'destAmount',
  'purchaseAmount',
  'exchangeRate',
  'totalFees',
  'networkFee',
  'dailyTotalSpent',
  'weeklyTotalSpent',
  'yearlyTotalSpent',
  'dailyTotal',
  'weeklyTotal',
  'yearlyTotal',
  'dailyRemaining',
  'weeklyRemaining',
  'yearlyRemaining',
  // The v2 tracker's and the legacy account's names for them.
  'fee',
  'rate',
  'balance',
  'pendingBalance',
  'totalBalance',
]);

/** Objects keyed by currency whose every number is an amount. */
export const AMOUNT_MAPS: ReadonlySet<string> = new Set([
  'fees',
  'equivalencies',
  'totalBalances',
  'availableBalances',
  'balances',
]);

export type AmountMode = 'keys' | 'all';

const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class ExactJsonParser {
  private at = 0;

  constructor(
    private readonly text: string,
    private readonly mode: AmountMode,
  ) {}

  parseDocument(): unknown {
    const value = this.value(undefined, undefined, 0);
    this.skipWhitespace();
    if (this.at !== this.text.length) this.fail('unexpected text after the JSON value');
    return value;
  }

  private value(key: string | undefined, parentKey: string | undefined, depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail('nesting too deep');
    this.skipWhitespace();
    const char = this.text[this.at];
    if (char === '{') return this.object(key, depth);
    if (char === '[') return this.array(key, parentKey, depth);
    if (char === '"') return this.string();
    if (this.text.startsWith('true', this.at)) return this.literal('true', true);
    if (this.text.startsWith('false', this.at)) return this.literal('false', false);
    if (this.text.startsWith('null', this.at)) return this.literal('null', null);
    return this.number(key, parentKey);
  }

  private object(ownKey: string | undefined, depth: number): Record<string, unknown> {
    this.at++;
    const out: Record<string, unknown> = {};
    this.skipWhitespace();
    if (this.text[this.at] === '}') {
      this.at++;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.at] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skipWhitespace();
      this.expect(':');
      // defineProperty: a `__proto__` key becomes an own property, never the prototype.
      Object.defineProperty(out, key, {
        value: this.value(key, ownKey, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.skipWhitespace();
      if (this.text[this.at] === ',') {
        this.at++;
        continue;
      }
      this.expect('}');
      return out;
    }
  }

  private array(key: string | undefined, parentKey: string | undefined, depth: number): unknown[] {
    this.at++;
    const out: unknown[] = [];
    this.skipWhitespace();
    if (this.text[this.at] === ']') {
      this.at++;
      return out;
    }
    for (;;) {
      // Elements inherit the array's key: `amounts: [1.5]` holds amounts.
      out.push(this.value(key, parentKey, depth + 1));
      this.skipWhitespace();
      if (this.text[this.at] === ',') {
        this.at++;
        continue;
      }
      this.expect(']');
      return out;
    }
  }

  private string(): string {
    const start = this.at;
    this.at++;
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined) this.fail('unterminated string');
      if (char === '\\') this.at += 2;
      else if (char === '"') break;
      else this.at++;
    }
    this.at++;
    return JSON.parse(this.text.slice(start, this.at)) as string;
  }

  private number(key: string | undefined, parentKey: string | undefined): number | string {
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail('unexpected character');
    const token = match[0];
    this.at += token.length;
    const isAmount =
      this.mode === 'all' ||
      (key !== undefined && AMOUNT_KEYS.has(key)) ||
      (parentKey !== undefined && AMOUNT_MAPS.has(parentKey));
    return isAmount ? token : Number(token);
  }

  private literal<T>(word: string, value: T): T {
    this.at += word.length;
    return value;
  }

  private expect(char: string): void {
    if (this.text[this.at] !== char) this.fail(`expected '${char}'`);
    this.at++;
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }

  private fail(reason: string): never {
    throw new SyntaxError(`Invalid JSON at offset ${this.at}: ${reason}`);
  }
}

/** Parses a response body; amounts (see above) come back as their exact decimal text. */
export function parseExactJson(text: string, mode: AmountMode = 'keys'): unknown {
  return new ExactJsonParser(text, mode).parseDocument();
}
