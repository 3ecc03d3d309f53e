import { TransactionsBegunAhead } from './begun-ahead.ts';
import { refusedByDatabase } from './errors.ts';
import { isolateFailures } from './failure-isolation.ts';
import { GroupedCalls } from './grouped-writer.ts';
import { type Db, type Queryable, withTransaction } from './pool.ts';

/**
 * Commands of concurrent requests run together, in one transaction and one statement per step.
 * A command is written as if it ran alone: it takes its TransactionSteps and calls `steps.run`
 * for each database step, one input each. Alone, a step runs at once for that one input. In a
 * group, every member's command runs at the same time on one coordinator: a step call waits
 * until every member still running is waiting on a step or done, and then each step waited on
 * runs once, as one statement for all its inputs (`batched`), in the order the steps were first
 * waited on; then every waiting call gets its own output, and the members go on to their next
 * step. N requests' rows in one statement cost far less than N statements (a round trip costs
 * both processes more CPU than most statements' work), and a command keeps one write path,
 * whether grouped or not.
 *
 * Groups are formed by GroupedCalls (its maxGroup, inFlight and keysOf: no two members that
 * share a key are ever in one group or in groups running at once). A transactional group runs
 * in one transaction, begun ahead while the groups before it run (TransactionsBegunAhead); a
 * group that is not transactional runs its statements on the pool, each committing on its own,
 * which suits a command whose only write is its last statement, one step.
 *
 * The failure rule, one member's failure never being another's answer:
 * - every member succeeds: the transaction commits and each member gets its output;
 * - otherwise a transactional group rolls back whole, nothing of it kept, and then each member:
 *   - whose step was in a statement PostgreSQL refused (refusedByDatabase: nothing of it done,
 *     and any of its inputs may be the one at fault) runs again alone, and gets what it gets
 *     there. A refused statement of one input, in a group of one member or on the pool, was the
 *     member's own: its command's error is its answer;
 *   - whose command threw RunAlone runs again alone (it needs what a group cannot give it);
 *   - whose command failed by itself (an ApiError, any error not from a shared statement) gets
 *     that error, nothing of it kept;
 *   - that succeeded, or was stopped because the group's transaction could not go on, runs
 *     again with the other such members, as a new group, until each has an answer (each
 *     round leaves out at least the member that failed it);
 *   a group on the pool has nothing to roll back: its members that succeeded keep their output;
 * - when PostgreSQL refuses the COMMIT, each member runs again alone, as isolateFailures has it;
 * - when the outcome is unknown (a statement or the COMMIT without PostgreSQL's answer: the
 *   connection was lost), every member of the transaction gets that error, as a lone member
 *   would, since running it again could do twice what was done once (on the pool, every member
 *   of that statement).
 * Members run alone after their group's answer, outside its place among the groups in flight, so
 * a slow one holds up no group.
 */

/** A database step of a command: one statement for many inputs, one output per input in order. */
export interface BatchedStep<I, O> {
  readonly name: string;
  /** `grouped`: the inputs are a group's (a step may then bound its wait, see RunAlone). */
  readonly runMany: (q: Queryable, inputs: I[], grouped: boolean) => Promise<readonly O[]>;
}

export function batched<I, O>(
  name: string,
  runMany: (q: Queryable, inputs: I[], grouped: boolean) => Promise<readonly O[]>,
): BatchedStep<I, O> {
  return { name, runMany };
}

/** What a command runs its database steps through, alone or as a member of a group. */
export abstract class TransactionSteps {
  /** The transaction the command runs in, or the pool (a group that is not transactional). */
  abstract readonly q: Queryable;
  /** Whether the command runs in a group, whose members wait for each other at every step. */
  abstract readonly grouped: boolean;
  abstract run<I, O>(step: BatchedStep<I, O>, input: I): Promise<O>;

  /** Steps run at once, for the one input, on `q`. */
  static alone(q: Queryable): TransactionSteps {
    return new AloneSteps(q);
  }
}

/**
 * Thrown by a grouped command that the group cannot serve (a card processor slower than a group
 * may wait): the group rolls back and the member runs again alone.
 */
export class RunAlone extends Error {}

class AloneSteps extends TransactionSteps {
  readonly grouped = false;

  constructor(readonly q: Queryable) {
    super();
  }

  async run<I, O>(step: BatchedStep<I, O>, input: I): Promise<O> {
    const [output] = await step.runMany(this.q, [input], false);
    return output as O;
  }
}

export type Command<Input, Output> = (steps: TransactionSteps, input: Input) => Promise<Output>;

export interface GroupingOptions<Input> {
  /** A group holds at most that many inputs (more wait for the next), bounding a statement. */
  maxGroup?: number;
  /** How many groups may run at once (as many transactions are begun ahead). */
  inFlight?: number;
  /** What an input touches (GroupedCalls): inputs sharing a key never run in groups together. */
  keysOf?: (input: Input) => readonly string[];
  /** One transaction per group, or statements on the pool that each commit (see above). */
  transactional: boolean;
}

/** A member's answer from its group; ALONE: run it alone. */
type Answer<Output> = { output: Output } | { error: unknown } | typeof ALONE;
/** …or AGAIN: it succeeded (or was stopped) in a group that rolled back, so it goes again. */
type End<Output> = Answer<Output> | typeof AGAIN;

const ALONE = Symbol('run alone');
const AGAIN = Symbol('run again in a group');

export class GroupedTransactions<Input, Output> {
  private readonly calls: GroupedCalls<Input, Answer<Output>>;
  private readonly transactional: boolean;
  /** The next groups' BEGIN, sent while the current ones run (transactional groups only). */
  private readonly begunAhead: TransactionsBegunAhead | undefined;

  constructor(
    private readonly db: Db,
    private readonly command: Command<Input, Output>,
    options: GroupingOptions<Input>,
  ) {
    this.transactional = options.transactional;
    this.begunAhead = options.transactional
      ? new TransactionsBegunAhead(db, options.inFlight ?? 1)
      : undefined;
    this.calls = new GroupedCalls((inputs) => this.runGroup(inputs), options);
  }

  /** The command for `input`, grouped with the inputs of concurrent calls. */
  async call(input: Input): Promise<Output> {
    const answer = await this.calls.call(input);
    if (answer === ALONE) return this.alone(input);
    if ('error' in answer) throw answer.error;
    return answer.output;
  }

  /** The command for `input` on its own: its own transaction, or the pool. */
  alone(input: Input): Promise<Output> {
    if (!this.transactional) return this.command(TransactionSteps.alone(this.db), input);
    return withTransaction(this.db, (tx) => this.command(TransactionSteps.alone(tx), input));
  }

  /** Gives back the connections of the transactions begun ahead. */
  async close(): Promise<void> {
    await this.begunAhead?.close();
  }

  /** Rounds of the group until every member has its answer (see the failure rule above). */
  private async runGroup(inputs: Input[]): Promise<Answer<Output>[]> {
    const answers: Answer<Output>[] = new Array(inputs.length);
    let positions = inputs.map((_input, index) => index);
    let round = inputs;
    while (round.length > 0) {
      const outcomes = await isolateFailures<Input, End<Output>>(round, {
        together: (members) => this.round(members),
        // Run by `call`, once the group has answered.
        alone: async () => ALONE,
        leftNothingDone: refusedByDatabase,
      });
      const again: number[] = [];
      outcomes.forEach((outcome, index) => {
        const position = positions[index]!;
        if (!('output' in outcome)) answers[position] = outcome;
        else if (outcome.output === AGAIN) again.push(position);
        else answers[position] = outcome.output;
      });
      // A round that answered nobody (a command that swallowed its own statement's failure)
      // would repeat itself: its members run alone instead.
      if (again.length === round.length) {
        for (const position of again) answers[position] = ALONE;
        break;
      }
      positions = again;
      round = again.map((position) => inputs[position]!);
    }
    return answers;
  }

  /** One round: the members' commands together; throws what leaves the round's outcome unknown. */
  private async round(inputs: Input[]): Promise<End<Output>[]> {
    if (this.begunAhead === undefined) return new GroupRun(this.db, this.command, inputs, false).ends();
    try {
      return await this.begunAhead.run(async (tx) => {
        const group = new GroupRun(tx, this.command, inputs, true);
        const ends = await group.ends();
        if (group.lost !== undefined) throw group.lost;
        if (group.broken || ends.some((end) => !succeeded(end))) throw new RolledBack(ends);
        return ends;
      });
    } catch (error) {
      if (!(error instanceof RolledBack)) throw error;
      return (error.ends as End<Output>[]).map((end) => (succeeded(end) ? AGAIN : end));
    }
  }
}

function succeeded<Output>(end: End<Output>): end is { output: Output } {
  return typeof end === 'object' && 'output' in end;
}

/** Rolls a group's transaction back (withTransaction's rollback on a throw), carrying its ends. */
class RolledBack extends Error {
  constructor(readonly ends: End<unknown>[]) {
    super('a member of the group failed: the group rolls back');
  }
}

/** Given to a step call of a group whose transaction cannot go on: its member goes again. */
const GROUP_STOPPED = new Error('the group rolled back: its members run again');

interface Parked {
  member: number;
  input: unknown;
  resolve: (output: unknown) => void;
  reject: (error: unknown) => void;
}

/** One round of a group: its members' commands, and the steps they wait on. */
class GroupRun<Input, Out> {
  /** What made the round's outcome unknown (a statement not answered by PostgreSQL). */
  lost: unknown;
  private readonly answers: End<Out>[];
  /** Members whose step was in a statement PostgreSQL refused: they run again alone. */
  private readonly inRefused: boolean[];
  /** Members stopped because the transaction could not go on: they run again. */
  private readonly stopped: boolean[];
  private parked = new Map<BatchedStep<unknown, unknown>, Parked[]>();
  /** Members running (not waiting on a step, not done). */
  private active: number;
  private unfinished: number;
  /** A statement failed in the transaction: nothing more can be done in it, nor committed. */
  broken = false;
  private done!: () => void;

  constructor(
    readonly q: Queryable,
    private readonly command: Command<Input, Out>,
    private readonly inputs: Input[],
    private readonly transactional: boolean,
  ) {
    this.answers = new Array(inputs.length);
    this.inRefused = new Array(inputs.length).fill(false);
    this.stopped = new Array(inputs.length).fill(false);
    this.active = inputs.length;
    this.unfinished = inputs.length;
  }

  /** Each member's end, once every one has ended. */
  ends(): Promise<End<Out>[]> {
    const ended = new Promise<void>((resolve) => {
      this.done = resolve;
    });
    for (let member = 0; member < this.inputs.length; member++) void this.runMember(member);
    return ended.then(() => this.answers);
  }

  park(member: number, step: BatchedStep<unknown, unknown>, input: unknown): Promise<unknown> {
    if (this.broken) {
      this.stopped[member] = true;
      return Promise.reject(GROUP_STOPPED);
    }
    return new Promise((resolve, reject) => {
      const calls = this.parked.get(step);
      if (calls) calls.push({ member, input, resolve, reject });
      else this.parked.set(step, [{ member, input, resolve, reject }]);
      this.active -= 1;
      if (this.active === 0) void this.flush();
    });
  }

  private async runMember(member: number): Promise<void> {
    try {
      const steps = new MemberSteps(this as GroupRun<unknown, unknown>, member);
      const output = await this.command(steps, this.inputs[member]!);
      // A command that went on past a failed step of its own has no output to keep.
      this.answers[member] = this.inRefused[member] ? ALONE : this.stopped[member] ? AGAIN : { output };
    } catch (error) {
      this.answers[member] = this.failure(member, error);
    }
    this.active -= 1;
    this.unfinished -= 1;
    if (this.active > 0) return;
    if (this.parked.size > 0) void this.flush();
    else if (this.unfinished === 0) this.done();
  }

  private failure(member: number, error: unknown): End<Out> {
    if (this.inRefused[member]) return ALONE;
    if (this.stopped[member]) return AGAIN;
    if (error instanceof RunAlone) return ALONE;
    return { error: error ?? new Error('a grouped command failed') };
  }

  /** Every member waits or is done: each step waited on runs once, then every call is answered. */
  private async flush(): Promise<void> {
    const batches = this.parked;
    this.parked = new Map();
    const answered: { calls: Parked[]; outputs: readonly unknown[] | undefined; error?: unknown }[] = [];
    for (const [step, calls] of batches) {
      if (this.broken) {
        for (const call of calls) this.stopped[call.member] = true;
        answered.push({ calls, outputs: undefined, error: GROUP_STOPPED });
        continue;
      }
      try {
        const outputs = await step.runMany(
          this.q,
          calls.map((call) => call.input),
          true,
        );
        answered.push({ calls, outputs });
      } catch (error) {
        this.statementFailed(calls, error);
        answered.push({ calls, outputs: undefined, error });
      }
    }
    for (const { calls, outputs, error } of answered) {
      this.active += calls.length;
      if (outputs === undefined) for (const call of calls) call.reject(error);
      else
        calls.forEach((call, index) => {
          call.resolve(outputs[index]);
        });
    }
  }

  private statementFailed(calls: Parked[], error: unknown): void {
    const refused = refusedByDatabase(error);
    if (this.transactional) {
      this.broken = true;
      if (!refused) this.lost ??= error;
    }
    // One input's statement, with no other member's writes before it, was that member's own.
    const own = calls.length === 1 && (!this.transactional || this.inputs.length === 1);
    if (refused && !own) for (const call of calls) this.inRefused[call.member] = true;
  }
}

class MemberSteps extends TransactionSteps {
  readonly grouped = true;

  constructor(
    private readonly group: GroupRun<unknown, unknown>,
    private readonly member: number,
  ) {
    super();
  }

  get q(): Queryable {
    return this.group.q;
  }

  run<I, O>(step: BatchedStep<I, O>, input: I): Promise<O> {
    return this.group.park(this.member, step as BatchedStep<unknown, unknown>, input) as Promise<O>;
  }
}
