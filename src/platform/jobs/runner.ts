import type { FastifyBaseLogger } from 'fastify';
import { isolateFailures } from '../db/failure-isolation.ts';
import type { Db } from '../db/pool.ts';
import { type ClaimedJob, claimJobs, markJobsDone, recordJobFailure, renewJobLeases } from './store.ts';
import { jobWorkLeftNothingDone } from './together-or-alone.ts';

export type { ClaimedJob };

export type JobHandler = (job: ClaimedJob) => Promise<void>;

/** Runs several jobs of one kind together, all or nothing (JobRunner.registerGroup). */
export type JobGroupHandler = (jobs: ClaimedJob[]) => Promise<void>;

/** Default lease of a claimed job (RAMPART_JOB_LEASE_SECONDS). */
export const DEFAULT_LEASE_SECONDS = 60;
const BATCH = 50;

/** How long a unit may run past its batch's last start before the next batch goes ahead without it. */
const STRAGGLER_MS = 1000;

/** What a drain has in hand: units in their lanes (stragglers included) and jobs not yet through. */
interface BatchWork {
  running: Set<Promise<void>>;
  unfinished: Set<ClaimedJob>;
}

/** Resolves when the first of `promises` settles, or after `ms`, whichever comes first. */
async function firstOf(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([...promises.map((promise) => promise.then(() => undefined)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Claims due jobs with FOR UPDATE SKIP LOCKED, so any number of processes can run workers on
 * one database without taking the same job. A job whose worker died is claimed again once its
 * lease runs out (at-least-once); handlers are written to be safe to repeat.
 */
export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly groupHandlers = new Map<string, JobGroupHandler>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs: number,
    private readonly leaseSeconds: number = DEFAULT_LEASE_SECONDS,
    /** Jobs of a claimed batch run at once (RAMPART_WORKER_POOL_SIZE); tests keep the default 1. */
    private readonly concurrency = 1,
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * A kind whose jobs of one claimed batch may run together (one transaction for many, say):
   * `group` gets them all at once. If it throws, each job runs alone through the kind's
   * `register`ed handler, which must exist, and succeeds or fails on its own.
   */
  registerGroup(kind: string, group: JobGroupHandler): void {
    this.groupHandlers.set(kind, group);
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      this.running = this.drain()
        .then(() => undefined)
        .catch((error) => this.log.warn({ err: error }, 'job poll failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.pollMs);
        });
    };
    tick();
  }

  /** Stops polling and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /**
   * Runs every due job once; returns how many ran. Tests call this directly. Batch after batch:
   * the next is claimed once the last one's jobs are through, so the jobs that came meanwhile are
   * worked together (a grouped kind's in one call). A unit still running STRAGGLER_MS after the
   * last of its batch started no longer holds the next batch back: it keeps its lane, the next
   * batch gets the others: the minute's throttled VACUUM (seconds; minutes on large tables) must
   * not hold every capture, delivery and chain settlement behind it.
   */
  async drain(): Promise<number> {
    let total = 0;
    const work: BatchWork = { running: new Set(), unfinished: new Set() };
    const renewal = setInterval(
      () => void this.renewLeases([...work.unfinished]),
      (this.leaseSeconds * 1000) / 3,
    );
    try {
      for (;;) {
        const lanes = this.concurrency - work.running.size;
        const jobs = lanes > 0 ? await this.claim() : [];
        if (jobs.length > 0) {
          total += jobs.length;
          await this.runBatch(jobs, lanes, work);
          if (this.stopped) return total;
        } else if (work.running.size === 0) {
          return total;
        } else {
          // Only stragglers in hand: claim again when one ends, or at the next poll (once
          // stopped, no more: the finally waits for them).
          await firstOf([...work.running], this.pollMs);
          if (this.stopped) return total;
        }
      }
    } finally {
      await Promise.all(work.running);
      clearInterval(renewal);
    }
  }

  /**
   * A claimed batch on up to `lanes` lanes, each job once. Jobs are independent (any process may
   * run any of them meanwhile: handlers lock what they change and are safe to repeat), so one
   * process running several at once is what several worker processes already do. Returns when
   * every unit is through, or STRAGGLER_MS after the last one started: the units still running
   * then stay in `work.running` until they end.
   */
  private async runBatch(jobs: ClaimedJob[], lanes: number, work: BatchWork): Promise<void> {
    for (const job of jobs) work.unfinished.add(job);
    const units = this.unitsOf(jobs);
    let next = 0;
    let lastStarted!: () => void;
    const allStarted = new Promise<void>((resolve) => {
      lastStarted = resolve;
    });
    const lane = async () => {
      while (next < units.length) {
        const unit = units[next++]!;
        if (next === units.length) lastStarted();
        const finished = this.finishUnit(unit, work.unfinished);
        work.running.add(finished);
        await finished;
        work.running.delete(finished);
      }
    };
    const lanesDone = Promise.all(Array.from({ length: Math.min(lanes, units.length) }, lane));
    await Promise.race([lanesDone, allStarted.then(() => firstOf([lanesDone], STRAGGLER_MS))]);
  }

  /**
   * A unit run and its finished jobs marked done. Never throws: a job whose bookkeeping failed
   * (the database away for a moment) is claimed again once its lease runs out (at-least-once).
   */
  private async finishUnit(unit: ClaimedJob[], unfinished: Set<ClaimedJob>): Promise<void> {
    try {
      await this.markDone(await this.runUnit(unit));
    } catch (error) {
      this.log.warn({ kind: unit[0]!.kind, jobs: unit.length, err: error }, 'job bookkeeping failed');
    } finally {
      for (const job of unit) unfinished.delete(job);
    }
  }

  /** The batch as lanes take it: each grouped kind's jobs as one unit, first; every other job alone. */
  private unitsOf(jobs: ClaimedJob[]): ClaimedJob[][] {
    const grouped = new Map<string, ClaimedJob[]>();
    const single: ClaimedJob[][] = [];
    for (const job of jobs) {
      if (!this.groupHandlers.has(job.kind)) single.push([job]);
      else if (grouped.has(job.kind)) grouped.get(job.kind)!.push(job);
      else grouped.set(job.kind, [job]);
    }
    return [...grouped.values(), ...single];
  }

  /**
   * The unit's jobs that succeeded: a group all at once, or (alone, or after the group failed)
   * each, by the one rule of isolateFailures for a job's work (jobWorkLeftNothingDone).
   */
  private async runUnit(unit: ClaimedJob[]): Promise<number[]> {
    const group = unit.length > 1 ? this.groupHandlers.get(unit[0]!.kind) : undefined;
    if (!group) return this.runEachAlone(unit);
    const outcomes = await isolateFailures(unit, {
      together: async (jobs) => {
        await group(jobs);
        return jobs.map(() => true);
      },
      alone: (job) => this.run(job),
      leftNothingDone: (error) => {
        this.log.warn({ kind: unit[0]!.kind, jobs: unit.length, err: error }, 'job group failed');
        return jobWorkLeftNothingDone(error);
      },
      oneAtATime: true,
    });
    return unit
      .filter((_job, index) => {
        const outcome = outcomes[index]!;
        return 'output' in outcome && outcome.output;
      })
      .map((job) => job.id);
  }

  private async runEachAlone(unit: ClaimedJob[]): Promise<number[]> {
    const succeeded: number[] = [];
    for (const job of unit) if (await this.run(job)) succeeded.push(job.id);
    return succeeded;
  }

  /**
   * A unit's finished jobs, marked done in one statement once the unit is through: a crash
   * before that runs them again, which handlers are written to take (at-least-once).
   */
  private async markDone(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await markJobsDone(this.db, ids);
  }

  /**
   * Every third of the lease, the batch's jobs not yet finished (running, or claimed and waiting
   * for a lane) get a fresh lease, so a long job or a slow batch is not claimed a second time by
   * another process while this one is alive. A job whose lease ran out anyway and was claimed
   * again (its attempts moved on) belongs to that claim and is left alone. A failed renewal
   * (the database away for a moment) is tried again at the next tick.
   */
  private async renewLeases(jobs: ClaimedJob[]): Promise<void> {
    if (jobs.length === 0) return;
    try {
      await renewJobLeases(this.db, jobs, this.leaseSeconds);
    } catch (error) {
      this.log.warn({ err: error }, 'job lease renewal failed');
    }
  }

  private async claim(): Promise<ClaimedJob[]> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return [];
    return claimJobs(this.db, BATCH, this.leaseSeconds, kinds);
  }

  /** Runs one job; true when it succeeded (runAll marks it done), else its failure is recorded. */
  private async run(job: ClaimedJob): Promise<boolean> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job);
      return true;
    } catch (error) {
      // Anything may be thrown (a string, undefined): the failure is recorded whatever it was,
      // or the job would sit 'running' until its lease ran out and the rest of the batch with it.
      const message = String(error instanceof Error ? error.message : error).slice(0, 1000);
      const retry = job.attempts < job.max_attempts;
      this.log.warn(
        { jobId: job.id, kind: job.kind, attempt: job.attempts, retry, err: error },
        'job failed',
      );
      await recordJobFailure(this.db, job.id, retry, message);
      return false;
    }
  }
}
