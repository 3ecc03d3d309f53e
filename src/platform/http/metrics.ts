import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/pool.ts';

/**
 * Prometheus metrics: request counts and latency per route template (never the raw URL, which
 * would explode label cardinality and could carry ids), plus the database pool's state.
 */
export function installMetrics(app: FastifyInstance, db: Db): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'rampart_http_requests_total',
    help: 'HTTP requests',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'rampart_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const poolGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  poolGauge('rampart_db_pool_total', 'Connections open in the pool', () => db.totalCount);
  poolGauge('rampart_db_pool_idle', 'Idle connections in the pool', () => db.idleCount);
  poolGauge('rampart_db_pool_waiting', 'Requests waiting for a connection', () => db.waitingCount);

  // prom-client hashes a label object on every call; the children for one (method, route, status)
  // are looked up once and kept (routes are templates, so the set stays small).
  const children = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  const childrenOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) {
      const counter = requests.labels(method, route, status);
      const histogram = latency.labels(method, route, status);
      child = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      children.set(key, child);
    }
    return child;
  };

  app.addHook('onResponse', (request, reply, done) => {
    const child = childrenOf(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      String(reply.statusCode),
    );
    child.count();
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  return registry;
}
