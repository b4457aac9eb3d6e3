// Restarting the server from any trigger (Set API Key, a changed secret, trust granted, a
// changed setting, "Restart the server") without two servers ever racing: one restart runs at
// a time, and triggers that come while it runs coalesce into at most one more, only when they
// came after the running one read its settings and keys. No VS Code API here.

/** One restart: stop what runs, then call `reading()` just before the settings and keys are
 * read, then start. */
export type Cycle = (reading: () => void) => Promise<void>;

export class Restarts {
  private running: Promise<void> | undefined;
  private wanted = false;

  constructor(private readonly cycle: Cycle) {}

  /** Asks for a restart. Resolves once a restart that read the settings after this call has
   * finished (the one in flight, if it had not read them yet, or the next). */
  request(): Promise<void> {
    this.wanted = true;
    this.running ??= this.loop();
    return this.running;
  }

  /** Resolves when no restart is in flight. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (this.wanted) {
        let read = false;
        await this.cycle(() => {
          read = true;
          this.wanted = false;
        });
        // A cycle that failed before reading anything must not spin.
        if (!read) {
          this.wanted = false;
        }
      }
    } finally {
      this.running = undefined;
    }
  }
}
