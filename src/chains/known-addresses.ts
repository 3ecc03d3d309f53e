/**
 * Deposit addresses already stored for an owner on every chain wired, by owner SRN. A stored
 * address never changes (derived once, its row never rewritten), so a process may keep what it
 * read; only addresses read outside a transaction are kept, so nothing a rolled-back transaction
 * wrote is remembered. Bounded: the oldest owner is forgotten first.
 */
export class KnownDepositAddresses {
  readonly #byOwner = new Map<string, Readonly<Record<string, string>>>();

  constructor(private readonly capacity = 50_000) {}

  get(owner: string): Readonly<Record<string, string>> | undefined {
    return this.#byOwner.get(owner);
  }

  remember(owner: string, addresses: Readonly<Record<string, string>>): void {
    if (this.#byOwner.size >= this.capacity) {
      const oldest = this.#byOwner.keys().next();
      if (!oldest.done) this.#byOwner.delete(oldest.value);
    }
    this.#byOwner.set(owner, addresses);
  }
}
