/**
 * Bounded resources per world. The attempts are sized to prove a bound without taking the
 * machine down when there is none: the fork bomb is a binary tree 10 deep (2,047 processes,
 * past the pids bound of 1,024), and the host itself kills an allocation or a /tmp file the
 * moment it passes its bound. The fork bombs run alone (lock '*'); what fills memory runs one at
 * a time ({@link RAM_LOCK}) beside the other rows.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Host } from '../harness/host.js';
import { killAll, nsOf, pids, status, tagged } from '../harness/proc.js';
import type { Row } from './types.js';

/** The lock of rows that take much of the machine's memory (or would be upset by others that do). */
export const RAM_LOCK = 'ram';

/** The most processes a world may hold at once (the issue: a pids limit of at most 1,024). */
export const PIDS_BOUND = 1024;
/** The fork bombs' depth: a binary tree of 2^(10+1) - 1 = 2,047 processes, past {@link PIDS_BOUND}. */
const BOMB_DEPTH = 10;
/** The most memory one world may use: half the machine. */
export const MEMORY_BOUND_BYTES = memTotal() / 2;
/** The most a world's /tmp may take: a quarter of the machine, and at most 4 GiB. */
export const TMP_BOUND_BYTES = Math.min(4 * 2 ** 30, memTotal() / 4);

function memTotal(): number {
  const kb = readFileSync('/proc/meminfo', 'utf8').match(/^MemTotal:\s+(\d+) kB/m)?.[1];
  return Number(kb) * 1024;
}

const GIB = 2 ** 30;
const gib = (n: number) => `${(n / GIB).toFixed(1)} GiB`;

/** A binary tree of processes `depth` deep; each but the root becomes `sleep` named by the tag; `hold`: the root then waits for the host. */
function bomb(host: Host, depth: number, hold: boolean): string {
  const perl = [
    'my ($rt, $tag, $depth, $hold) = @ARGV; open(my $f, ">>", "$rt/count") or die "count: $!";',
    'sub node { my ($d, $root) = @_; for (1..2) { last if $d <= 0; my $p = fork;',
    'if (!defined $p) { syswrite($f, "F") } elsif ($p == 0) { node($d - 1, 0) } else { syswrite($f, "S") } }',
    'syswrite($f, "N"); return if $root; exec { "sleep" } $tag, "60"; exit 0 }',
    'node($depth, 1);',
    // The tree is whole when every process that exists has finished forking: N == S + 1.
    'for (1..3000) { open(my $c, "<", "$rt/count") or last; local $/; my $s = <$c> // ""; close $c;',
    'my $n = () = $s =~ /N/g; my $k = () = $s =~ /S/g; last if $n == $k + 1; select(undef, undef, undef, 0.01) }',
    'if ($hold) { open(my $h, ">", "$rt/held"); close $h; for (1..1500) { last if -e "$rt/done"; select(undef, undef, undef, 0.02) } }',
  ].join(' ');
  return `${host.live()}perl -e '${perl}' "$RT" ${host.tag} ${depth} ${hold ? 1 : 0}; echo "forks: $(tr -cd S < $RT/count | wc -c) made, $(tr -cd F < $RT/count | wc -c) refused"`;
}

/** Processes in the pid namespace of the tagged ones (the whole world: the bomb and its machinery). */
function worldCount(host: Host): number {
  const [one] = tagged(host.tag);
  const ns = one === undefined ? null : nsOf(one, 'pid');
  return ns === null ? 0 : pids().filter((pid) => nsOf(pid, 'pid') === ns).length;
}

const bombAtHeld = (host: Host, then?: () => Promise<void>) => {
  host.hooks = {
    async held() {
      host.facts.peak = worldCount(host);
      await then?.();
    },
  };
};

/** Watches a tagged process's `measure`; kills it past `bound` (the host's own safety). */
function watchBound(host: Host, bound: number, measure: (pid: number) => number | null): void {
  host.facts.peak = 0;
  const look = () => {
    for (const pid of tagged(host.tag)) {
      const value = measure(pid);
      if (value === null) continue;
      host.facts.peak = Math.max(host.facts.peak as number, value);
      if (value > bound) {
        host.facts.over = true;
        killAll([pid]);
      }
    }
  };
  host.hooks = { watch: look, held: look };
}

const rss = (pid: number): number | null => {
  const kb = status(pid)?.VmRSS?.match(/^(\d+)/)?.[1];
  return kb === undefined ? null : Number(kb) * 1024;
};

export const resourceRows: Row[] = [
  {
    id: 'resources-fork-bomb-pids',
    klass: 'resources',
    title: `a fork bomb (a binary tree of 2,047 processes) is held to at most ${PIDS_BOUND} processes`,
    proof: "the host counts the world's live processes once the bomb stopped growing",
    lock: '*',
    marker: 'pids',
    arm: async (host) => {
      bombAtHeld(host);
      return null;
    },
    command: (host) => bomb(host, BOMB_DEPTH, true),
    judge(host) {
      const peak = host.facts.peak as number | undefined;
      return {
        failed: (peak ?? 0) > PIDS_BOUND,
        evidence: `the host counted ${peak ?? 'no'} live processes in the world`,
      };
    },
  },
  {
    id: 'resources-fork-bomb-next-call',
    klass: 'resources',
    kind: 'promise',
    title: 'after a fork bomb, the same agent’s next call works',
    proof: "the next call's output, as the host reads the result",
    lock: '*',
    arm: async () => null,
    command: (host) => bomb(host, BOMB_DEPTH, false),
    async attempt(host) {
      const agent = await host.mcp({ log: false });
      await agent.bash({ command: bomb(host, BOMB_DEPTH, false) });
      return agent.bash({ command: `echo next-$((6 * 7))-${host.nonce}`, timeout_ms: 30_000 });
    },
    judge(host, attempt) {
      const works = attempt.text.includes(`next-42-${host.nonce}`) && !attempt.isError;
      return {
        failed: !works,
        evidence: works ? 'the next call ran' : `the next call said: ${attempt.text.slice(0, 200)}`,
      };
    },
  },
  {
    id: 'resources-fork-bomb-other-agent',
    klass: 'resources',
    kind: 'promise',
    title: "another agent's call works while a fork bomb holds its processes",
    proof: "the other agent's output, while the host counts the bomb alive",
    lock: '*',
    arm: async (host) => {
      bombAtHeld(host, async () => {
        host.facts.other = await host.dshRun(`echo other-$((6 * 7))-${host.nonce}`, { deadlineMs: 60_000 });
      });
      return null;
    },
    command: (host) => bomb(host, BOMB_DEPTH, true),
    judge(host) {
      const other = host.facts.other as { text: string } | undefined;
      const works = other?.text.includes(`other-42-${host.nonce}`) ?? false;
      return {
        failed: !works,
        evidence: works
          ? `the other agent's call ran beside ${host.facts.peak} bomb processes`
          : `it said: ${other?.text.slice(0, 200)}`,
      };
    },
  },
  {
    id: 'resources-memory',
    klass: 'resources',
    title: "a 30 GiB allocation is killed before it passes half the machine's memory",
    proof: "the probe's resident memory, read by the host (which kills it past the bound)",
    lock: RAM_LOCK,
    marker: 'memory',
    arm: async (host) => {
      watchBound(host, MEMORY_BOUND_BYTES, rss);
      return null;
    },
    command: (host) => host.probe('allocate', '30'),
    judge(host) {
      const over = host.facts.over === true;
      const peak = gib(host.facts.peak as number);
      return { failed: over, evidence: over ? `it reached ${peak}; the host killed it` : `it peaked at ${peak}` };
    },
  },
  {
    id: 'resources-tmp-fill',
    klass: 'resources',
    title: "filling the world's /tmp stops before a quarter of the machine's memory (at most 4 GiB)",
    proof: 'the size of the file in the world’s /tmp, read by the host through /proc/PID/root',
    lock: RAM_LOCK,
    arm: async (host) => {
      watchBound(host, TMP_BOUND_BYTES, (pid) => {
        try {
          return statSync(`/proc/${pid}/root/tmp/${host.tag}`).size;
        } catch {
          return null;
        }
      });
      return null;
    },
    command: (host) => `${host.live()}${host.probe('fill', `/tmp/${host.tag}`, '30')}`,
    judge(host) {
      const over = host.facts.over === true;
      const peak = gib(host.facts.peak as number);
      return {
        failed: over,
        evidence: over ? `/tmp took ${peak}; the host killed the writer` : `/tmp stopped it at ${peak}`,
      };
    },
  },
];
