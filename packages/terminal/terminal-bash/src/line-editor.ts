/**
 * Whether the shell's line editor is reading a line: readline switches bracketed paste on when it
 * starts reading (CSI ?2004h) and off when it accepts the line (CSI ?2004l). Between a prompt
 * marker and the switch-on the shell still runs its prompt hook and prints job notices, with the
 * terminal in cooked mode: input written then would be echoed by the kernel among that output.
 */

/** How long input to the prompt waits for the line editor before it is typed ahead anyway (a slow prompt hook). */
export const SHELL_READ_WAIT_MS = 2000;

export class LineEditor {
  private reading = false;
  /**
   * Whether waiting can help: paste mode was switched on since the last wait that timed out. A
   * shell that never switches it (bash before 4.4, bracketed paste turned off) is not waited for.
   */
  private switches = false;
  private readonly waiters = new Set<() => void>();

  /** Paste mode switched on (`true`: a line is being read) or off (accepted). */
  set(reading: boolean): void {
    this.reading = reading;
    if (reading) {
      this.switches = true;
      this.wake();
    }
  }

  /** Resolves once the line editor reads, `ms` passed, or `wake()` (the session ended). */
  whenReading(ms: number = SHELL_READ_WAIT_MS): Promise<void> {
    if (this.reading || !this.switches) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.switches = false;
        done();
      }, ms);
      this.waiters.add(done);
    });
  }

  /** Lets every waiter go on. */
  wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
