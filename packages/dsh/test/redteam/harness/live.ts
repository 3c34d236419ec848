/**
 * The live protocol: a row whose evidence only exists while the attempt runs (a traced process,
 * a namespace, an open fd, a stopped server) has its probe pause twice, through files in a
 * directory of the workspace. `ready`: the probe is about to try (the host may attach a tracer),
 * and waits for `go`. `held`: the probe holds what it made (the host looks at it), and waits for
 * `done`. The host answers each at most once; a probe that never gets there simply ends.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the host does at each pause. */
export interface LiveHooks {
  /** After `ready`, before `go`. */
  ready?: () => Promise<void> | void;
  /** After `held`, before `done`. */
  held?: () => Promise<void> | void;
  /** About every {@link WATCH_EVERY_MS} while the attempt runs (a row that watches a counter). */
  watch?: () => Promise<void> | void;
}

/** How often the `watch` hook runs. */
export const WATCH_EVERY_MS = 100;

/** How long a probe waits for the host at each pause (it then goes on, or ends). */
const PROBE_WAIT_ITERATIONS = 1000; // of 20 ms

/** Bash that sets `RT` and defines `rt_ready` and `rt_held` for a command's own pauses. */
export function liveSh(rt: string): string {
  return [
    `export RT='${rt}'`,
    `rt_wait() { local i=0; while [ ! -e "$RT/$1" ] && [ $i -lt ${PROBE_WAIT_ITERATIONS} ]; do sleep 0.02; i=$((i+1)); done; }`,
    'rt_ready() { : >"$RT/ready"; rt_wait go; }',
    'rt_held() { : >"$RT/held"; rt_wait done; }',
    '',
  ].join('; ');
}

/** Hook failures, kept so that a row can report them instead of losing them. */
export interface LiveLog {
  readySeen: boolean;
  heldSeen: boolean;
  errors: string[];
}

/**
 * Answers the probe's pauses in `rt` while `running` lasts; resolves to what `running` gave.
 * Every hook error is caught into `log` (the probe is answered anyway, so it never hangs).
 */
export async function watchLive<T>(rt: string, hooks: () => LiveHooks, running: Promise<T>, log: LiveLog): Promise<T> {
  let settled = false;
  const done = running.finally(() => {
    settled = true;
  });
  const answer = async (phase: 'ready' | 'held', reply: string, hook: LiveHooks['ready']): Promise<void> => {
    try {
      await hook?.();
    } catch (error) {
      log.errors.push(`${phase}: ${(error as Error).message}`);
    }
    writeFileSync(join(rt, reply), '');
  };
  let watched = 0;
  while (!settled) {
    if (Date.now() - watched >= WATCH_EVERY_MS && hooks().watch) {
      watched = Date.now();
      try {
        await hooks().watch?.();
      } catch (error) {
        log.errors.push(`watch: ${(error as Error).message}`);
      }
    }
    if (!log.readySeen && existsSync(join(rt, 'ready'))) {
      log.readySeen = true;
      await answer('ready', 'go', hooks().ready);
    }
    if (!log.heldSeen && existsSync(join(rt, 'held'))) {
      log.heldSeen = true;
      await answer('held', 'done', hooks().held);
    }
    await Promise.race([done.catch(() => undefined), new Promise((r) => setTimeout(r, 15))]);
  }
  return done;
}
