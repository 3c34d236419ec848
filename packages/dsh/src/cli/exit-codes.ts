/**
 * Exit statuses of the `dsh` command line, in one place (listed in `--help` and the README).
 */
import { constants } from 'node:os';

/** Internal failure of dsh itself. */
export const EXIT_INTERNAL = 1;
/** Bad usage: an unknown option, a bad value, a missing workdir. */
export const EXIT_USAGE = 2;
/** `dsh run`: the sandbox mode asked for has no fence here (SANDBOX_UNAVAILABLE): nothing ran. */
export const EXIT_NO_SANDBOX = 3;
/** The command timed out, as coreutils' `timeout` reports it. */
export const EXIT_TIMEOUT = 124;
/** The command could not start (like a shell's "not found"). */
export const EXIT_START_FAILED = 127;
/** A signal ended the command (or dsh itself): 128 + its number, as shells report it. */
export const EXIT_SIGNAL_BASE = 128;

/** 128 + the number of `signal`. */
export function signalStatus(signal: string): number {
  return EXIT_SIGNAL_BASE + ((constants.signals as Record<string, number>)[signal] ?? 0);
}

/** The exit status `dsh run` reports for a bash tool result's facts. */
export function exitStatusOf(result: { isError: boolean; data: Record<string, unknown> }): number {
  const d = result.data;
  if (d.timed_out === true) return EXIT_TIMEOUT;
  if (typeof d.exit_code === 'number') return d.exit_code;
  if (typeof d.signal === 'string') return signalStatus(d.signal);
  if (d.start_error) return EXIT_START_FAILED;
  if ((d.error as { code?: string } | undefined)?.code === 'SANDBOX_UNAVAILABLE') return EXIT_NO_SANDBOX;
  return result.isError ? EXIT_USAGE : EXIT_INTERNAL;
}

/** The exit-status table, as `--help` prints it. */
export const EXIT_HELP = `
Exit status:
  dsh run   the command's own status (0-255); ${EXIT_TIMEOUT} when it timed out; ${EXIT_SIGNAL_BASE}+n when signal n
            killed it (or dsh, e.g. 130 for Ctrl-C); ${EXIT_START_FAILED} when it could not start; ${EXIT_USAGE} for bad usage;
            ${EXIT_NO_SANDBOX} when the --sandbox mode has no fence here (nothing ran)
  dsh mcp   0 when the client closed stdin; ${EXIT_SIGNAL_BASE}+n after signal n (SIGTERM 143, SIGINT 130, SIGHUP 129);
            ${EXIT_INTERNAL} when it could not start; ${EXIT_USAGE} for bad usage
  dsh web   ${EXIT_SIGNAL_BASE}+n after signal n (Ctrl-C 130); ${EXIT_INTERNAL} when it could not start (e.g. the port is taken)
  others    0 on success; ${EXIT_INTERNAL} on failure (e.g. no such session); ${EXIT_USAGE} for bad usage`;
