import { isMoney } from './money.ts';

/**
 * Response serializer: like JSON.stringify, but Decimal values are written as JSON numbers
 * straight from their exact text (`toFixed`, never exponent form), so no amount is ever
 * squeezed through a binary float on its way out.
 */
export function serializeJson(value: unknown): string {
  return write(value) ?? 'null';
}

function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (isMoney(value)) return value.toFixed();
  if (value instanceof Date) return JSON.stringify(value.getTime());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const written = write(member);
    if (written !== undefined) parts.push(`${JSON.stringify(key)}:${written}`);
  }
  return `{${parts.join(',')}}`;
}
