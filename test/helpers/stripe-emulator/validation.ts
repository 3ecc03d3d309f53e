// An emulator of Stripe's API for tests: not Stripe. Checks parameters as Stripe's API does.
import { invalidRequest } from './errors.ts';
import type { FormObject, FormValue } from './form.ts';

/**
 * What each parameter may be. Only the parameters the connector sends (and their neighbours a
 * wrong call would plausibly send) are known; any other is refused with `parameter_unknown`, as
 * Stripe refuses it.
 */
export type ParamSpec =
  | 'string'
  | 'integer'
  | 'boolean'
  | 'metadata'
  | 'strings'
  | { oneOf: readonly string[] }
  | { object: Record<string, ParamSpec> };

export type Schema = Record<string, ParamSpec>;

function pathOf(parent: string, key: string): string {
  return parent === '' ? key : `${parent}[${key}]`;
}

function check(spec: ParamSpec, value: FormValue, path: string): void {
  if (typeof spec === 'object' && 'object' in spec) {
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw invalidRequest(`Invalid object`, { param: path });
    }
    checkObject(spec.object, value, path);
    return;
  }
  if (spec === 'metadata') {
    if (typeof value !== 'object' || Array.isArray(value))
      throw invalidRequest('Invalid object', { param: path });
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'string')
        throw invalidRequest('Invalid metadata value', { param: pathOf(path, key) });
      if (key.length > 40)
        throw invalidRequest('Metadata keys can be at most 40 characters', { param: path });
      if (item.length > 500)
        throw invalidRequest('Metadata values can be at most 500 characters', { param: path });
    }
    return;
  }
  if (spec === 'strings') {
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      throw invalidRequest('Invalid array', { param: path });
    }
    return;
  }
  if (typeof value !== 'string')
    throw invalidRequest(`Invalid ${typeof spec === 'string' ? spec : 'string'}`, { param: path });
  if (spec === 'integer' && !/^-?\d+$/.test(value)) {
    throw invalidRequest(`Invalid integer: ${value}`, { code: 'parameter_invalid_integer', param: path });
  }
  if (spec === 'boolean' && value !== 'true' && value !== 'false') {
    throw invalidRequest(`Invalid boolean: ${value}`, { param: path });
  }
  if (typeof spec === 'object' && !spec.oneOf.includes(value)) {
    throw invalidRequest(`Invalid ${path}: must be one of ${spec.oneOf.join(', ')}`, { param: path });
  }
}

function checkObject(schema: Schema, params: FormObject, parent: string): void {
  for (const [key, value] of Object.entries(params)) {
    const path = pathOf(parent, key);
    const spec = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (spec === undefined)
      throw invalidRequest(`Received unknown parameter: ${path}`, { code: 'parameter_unknown', param: path });
    check(spec, value, path);
  }
}

/** Refuses unknown and mistyped parameters, then missing required ones (`parameter_missing`). */
export function validate(schema: Schema, params: FormObject, required: readonly string[] = []): void {
  checkObject(schema, params, '');
  for (const path of required) {
    const segments = path.replace(/\]/g, '').split('[');
    let node: FormValue | undefined = params;
    for (const segment of segments) {
      node = typeof node === 'object' && !Array.isArray(node) ? node[segment] : undefined;
    }
    if (node === undefined || node === '') {
      throw invalidRequest(`Missing required param: ${path}.`, { code: 'parameter_missing', param: path });
    }
  }
}

/** A positive integer amount in minor units, as Stripe reads `amount`. */
export function positiveInteger(params: FormObject, key: string): number | undefined {
  const value = params[key];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw invalidRequest('This value must be greater than or equal to 1.', {
      code: 'parameter_invalid_integer',
      param: key,
    });
  }
  return n;
}

const ADDRESS: ParamSpec = {
  object: {
    line1: 'string',
    line2: 'string',
    city: 'string',
    state: 'string',
    postal_code: 'string',
    country: 'string',
  },
};

export const PAYMENT_METHOD_CREATE: Schema = {
  type: { oneOf: ['card'] },
  card: { object: { number: 'string', exp_month: 'integer', exp_year: 'integer', cvc: 'string' } },
  billing_details: { object: { name: 'string', email: 'string', phone: 'string', address: ADDRESS } },
  metadata: 'metadata',
  expand: 'strings',
};

export const PAYMENT_INTENT_CREATE: Schema = {
  amount: 'integer',
  currency: 'string',
  payment_method: 'string',
  payment_method_types: 'strings',
  capture_method: { oneOf: ['automatic', 'automatic_async', 'manual'] },
  confirm: 'boolean',
  return_url: 'string',
  metadata: 'metadata',
  description: 'string',
  statement_descriptor: 'string',
  statement_descriptor_suffix: 'string',
  payment_method_options: {
    object: { card: { object: { request_three_d_secure: { oneOf: ['any', 'automatic', 'challenge'] } } } },
  },
  automatic_payment_methods: {
    object: { enabled: 'boolean', allow_redirects: { oneOf: ['always', 'never'] } },
  },
  expand: 'strings',
};

export const PAYMENT_INTENT_CAPTURE: Schema = {
  amount_to_capture: 'integer',
  metadata: 'metadata',
  statement_descriptor: 'string',
  statement_descriptor_suffix: 'string',
  expand: 'strings',
};

export const PAYMENT_INTENT_CANCEL: Schema = {
  cancellation_reason: { oneOf: ['abandoned', 'duplicate', 'fraudulent', 'requested_by_customer'] },
  expand: 'strings',
};

export const RETRIEVE: Schema = { expand: 'strings', client_secret: 'string' };

export const REFUND_CREATE: Schema = {
  payment_intent: 'string',
  charge: 'string',
  amount: 'integer',
  metadata: 'metadata',
  reason: { oneOf: ['duplicate', 'fraudulent', 'requested_by_customer'] },
  expand: 'strings',
};

const CREATED_RANGE: ParamSpec = { object: { gt: 'integer', gte: 'integer', lt: 'integer', lte: 'integer' } };

export const LIST: Schema = {
  created: CREATED_RANGE,
  limit: 'integer',
  starting_after: 'string',
  ending_before: 'string',
  expand: 'strings',
  type: 'string',
  payout: 'string',
  source: 'string',
  currency: 'string',
  status: 'string',
  arrival_date: CREATED_RANGE,
  destination: 'string',
};
