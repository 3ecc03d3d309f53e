/**
 * Writes rows that many concurrent requests each need written before they answer (audit rows),
 * as one multi-row statement per group instead of one round trip each: a request's `add` waits
 * for the statement that carries its row, so nothing is answered before its row is written.
 * Rows added while a group is being written form the next group (group commit); an idle
 * writer flushes on the next turn of the event loop, adding no latency worth measuring.
 */
export class GroupedWriter<Row> {
  private pending: { row: Row; settle: (error?: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly writeRows: (rows: Row[]) => Promise<void>,
    private readonly maxGroup = 500,
  ) {}

  add(row: Row): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.maxGroup);
      let failure: unknown;
      try {
        await this.writeRows(group.map((entry) => entry.row));
      } catch (error) {
        failure = error ?? new Error('grouped write failed');
      }
      for (const entry of group) entry.settle(failure);
    }
    this.writing = false;
  }
}
