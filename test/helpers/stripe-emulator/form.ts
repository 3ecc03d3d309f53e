// An emulator of Stripe's API for tests: not Stripe. Reads Stripe's form-encoded parameters.

/** A decoded parameter tree: `card[number]=…&expand[0]=…` becomes `{card: {number}, expand: […]}`. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

function segmentsOf(key: string): string[] {
  const first = key.indexOf('[');
  if (first === -1) return [key];
  const segments = [key.slice(0, first)];
  for (const match of key.slice(first).matchAll(/\[([^\]]*)\]/g)) segments.push(match[1] ?? '');
  return segments;
}

/** Objects whose keys are all indices become arrays, as Stripe reads `expand[0]`, `expand[1]`. */
function arraysOf(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: FormObject = {};
  for (const key of keys) converted[key] = arraysOf(value[key] as FormValue);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => converted[k] as FormValue);
  }
  return converted;
}

export function parseForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const segments = segmentsOf(key);
    let node: FormObject = root;
    segments.forEach((segment, i) => {
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      if (i === segments.length - 1) {
        node[name] = value;
        return;
      }
      const next = node[name];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) node[name] = {};
      node = node[name] as FormObject;
    });
  }
  return arraysOf(root) as FormObject;
}

/** A canonical text of the parameters, so an idempotent replay compares what was asked, not its byte order. */
export function canonical(value: FormValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(value[k] as FormValue)}`)
    .join(',')}}`;
}
