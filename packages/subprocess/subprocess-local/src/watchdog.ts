/**
 * The watchdog: a tiny `sh` process per host, tied to the host's lifetime by a pipe. The host
 * tells it which cgroups and process groups it owns; when the host dies in any way (SIGKILL, OOM,
 * a crash, an exit without dispose) the pipe closes, and the watchdog ends all of them — every
 * cgroup under a registered one with `cgroup.kill` (escapees included; the host's own nursery,
 * which holds only the host's own children, is left), the groups with SIGKILL — then removes the
 * emptied cgroups. It needs nothing of the host alive, lives in its own session (a Ctrl-C or a
 * group kill meant for the host does not reach it) and ignores the usual stop signals.
 *
 * Limits: without cgroup v2 only process groups are known; a member that left its group (setsid)
 * is not found after a crash. A watchdog killed from outside is started again while the host
 * lives. Where `/bin/sh` cannot be started, there is no watchdog (`WATCHDOG.available` is false).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { withShadowedFds } from './child-fds.js';

/** The host's own cgroup inside a registered one: it holds the host's own children, which are not ended. */
const NURSERY = 'host';

/** The program: registrations come as lines (`c DIR`/`C DIR` cgroups, `g PGID`/`G PGID` groups); EOF means the host is gone. */
const SCRIPT = `trap '' INT HUP TERM PIPE QUIT
nl='
'
cgs='' pgs=''
while IFS= read -r line; do
  arg=\${line#? }
  case $line in
    'c '*) cgs="$cgs$nl$arg" ;;
    'C '*) rest=''; IFS=$nl; for d in $cgs; do [ "$d" = "$arg" ] || rest="$rest$nl$d"; done; unset IFS; cgs=$rest ;;
    'g '*) pgs="$pgs $arg" ;;
    'G '*) rest=''; for p in $pgs; do [ "$p" = "$arg" ] || rest="$rest $p"; done; pgs=$rest ;;
  esac
done
IFS=$nl
for d in $cgs; do
  for sub in "$d"/*/; do
    [ -d "$sub" ] && [ "$sub" != "$d/${NURSERY}/" ] && echo 1 > "\${sub}cgroup.kill" 2>/dev/null
  done
done
unset IFS
for p in $pgs; do [ "$p" -gt 1 ] 2>/dev/null && kill -KILL "-$p" 2>/dev/null; done
IFS=$nl
for d in $cgs; do
  for sub in "$d"/*/; do
    [ -d "$sub" ] && [ "$sub" != "$d/${NURSERY}/" ] || continue
    i=0
    while [ $i -lt 100 ] && [ -e "$sub" ] && ! grep -q '^populated 0' "\${sub}cgroup.events" 2>/dev/null; do sleep 0.02; i=$((i+1)); done
  done
  find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
done
`;

/** The shell that runs the watchdog. */
const SHELL = '/bin/sh';
/** With nothing to watch for this long, the watchdog is let go (the next registration starts one). */
export const WATCHDOG_IDLE_MS = 2_000;

/** The host's watchdog: registrations, and the process that acts on them. */
class Watchdog {
  private child: ChildProcess | null = null;
  private failed = false;
  private readonly cgroups = new Set<string>();
  private readonly groups = new Set<number>();
  private idle: NodeJS.Timeout | undefined;

  /** True while a watchdog process runs (or can be started). */
  get available(): boolean {
    return !this.failed;
  }

  /** True while a watchdog process runs: it ends what is registered when this process is gone. */
  get running(): boolean {
    return this.child !== null && !this.failed;
  }

  /** The watchdog's pid, once started (for tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Ends this cgroup (and everything below it) if the host dies. */
  watchCgroup(dir: string): void {
    if (dir.includes('\n') || this.cgroups.has(dir)) return;
    this.cgroups.add(dir);
    this.send(`c ${dir}`);
  }

  unwatchCgroup(dir: string): void {
    if (this.cgroups.delete(dir)) this.send(`C ${dir}`);
    this.idleCheck();
  }

  /** Ends this process group if the host dies (trees without a cgroup of their own). */
  watchGroup(pgid: number): void {
    if (!Number.isInteger(pgid) || pgid <= 1 || this.groups.has(pgid)) return;
    this.groups.add(pgid);
    this.send(`g ${pgid}`);
  }

  unwatchGroup(pgid: number): void {
    if (this.groups.delete(pgid)) this.send(`G ${pgid}`);
    this.idleCheck();
  }

  /** Lets the watchdog go once nothing was registered for a while: it exits on the closed pipe, ending nothing. */
  private idleCheck(): void {
    if (this.cgroups.size > 0 || this.groups.size > 0 || !this.child || this.idle) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      const child = this.child;
      if (!child || this.cgroups.size > 0 || this.groups.size > 0) return;
      this.child = null; // the next registration starts a new one
      child.stdin?.end();
    }, WATCHDOG_IDLE_MS);
    this.idle.unref();
  }

  private send(line: string): void {
    const child = this.ensure();
    child?.stdin?.write(`${line}\n`);
  }

  /** The running watchdog, started (again) when needed with every registration replayed. */
  private ensure(): ChildProcess | null {
    if (this.child || this.failed) return this.child;
    let child: ChildProcess;
    try {
      child = spawn(SHELL, ['-c', SCRIPT], { stdio: withShadowedFds(['pipe', 'ignore', 'ignore']), detached: true });
    } catch {
      this.failed = true;
      return null;
    }
    if (child.pid === undefined) {
      this.failed = true;
      child.on('error', () => undefined);
      return null;
    }
    this.child = child;
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined); // it died: 'exit' starts another
    child.on('exit', () => {
      if (this.child !== child) return;
      this.child = null;
      if (this.cgroups.size > 0 || this.groups.size > 0) this.replay();
    });
    child.unref(); // the host may exit; the closing pipe is the signal
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return child;
  }

  private replay(): void {
    const child = this.ensure();
    if (!child) return;
    for (const dir of this.cgroups) child.stdin?.write(`c ${dir}\n`);
    for (const pgid of this.groups) child.stdin?.write(`g ${pgid}\n`);
  }
}

/** The one watchdog of this host process (started on first registration). */
export const WATCHDOG = new Watchdog();
