import { ENDPOINTS, type EndpointName } from '../endpoints.js';
import type { CallOptions, RequestSpec, Transport } from '../transport.js';

/** What every resource uses: one endpoint of the table, a request, the per-call options. */
export type Caller = <T>(name: EndpointName, spec?: RequestSpec, options?: CallOptions) => Promise<T>;

export function callerOf(transport: Transport): Caller {
  return <T>(name: EndpointName, spec: RequestSpec = {}, options: CallOptions = {}) =>
    transport.send<T>(ENDPOINTS[name], spec, options);
}
