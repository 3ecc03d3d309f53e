import { describe, expect, it } from 'vitest';
import { unstorableTextPath } from '../../../src/platform/http/unstorable-text.ts';

const check = (text: string) => unstorableTextPath(text, JSON.parse(text));

describe('unstorableTextPath', () => {
  it('names the first field, key or array item holding U+0000 or an unpaired surrogate', () => {
    expect(check('{"a":"x\\u0000"}')).toBe('a');
    expect(check('{"a":{"b":["ok","\\ud800"]}}')).toBe('a.b[1]');
    expect(check('{"\\udc00":1}')).toBe('\udc00');
    expect(check('"\\u0000"')).toBe('body');
  });

  it('lets ordinary text through: pairs (emoji), other escapes, a literal backslash-u', () => {
    expect(check('{"a":"Caf\\u00e9 \\ud83d\\ude80","b":"\\\\u0000"}')).toBeUndefined();
    expect(check('{"a":"plain"}')).toBeUndefined();
  });

  it('walks a value nested 100,000 levels deep without overflowing the stack', () => {
    const depth = 100_000;
    const deep = `${'['.repeat(depth)}{"k":"\\u0000"}${']'.repeat(depth)}`;
    expect(check(deep)).toBe(`${'[0]'.repeat(depth)}.k`);
    // An escaped backslash before u0000: the whole value is walked, and holds no U+0000.
    expect(check(deep.replace('\\u0000', '\\\\u0000'))).toBeUndefined();
  });
});
