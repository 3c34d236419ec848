/**
 * The host's unix path sockets, masked in every world. A read-only bind does not stop
 * `connect()` to a socket (the kernel checks only the socket file's own mode), and seccomp cannot
 * see the path: so every path socket the host's network namespace has bound when the world starts
 * (`/proc/net/unix`), wherever it lives (`/var/lib`, `/var/tmp`, `~/.cache`, the workspace), gets
 * an unreadable file bound over it. `/tmp`, `/run` and the hidden paths are fresh in the world and
 * are skipped there, except where the fence binds a host directory back in (a workspace under
 * `/tmp`). The list is read where the world starts (world-shim.ts), so remote worlds get theirs.
 */

/** Where the socket masks are filled in: `--dsh-host-sockets UNREADABLE RULES`. */
export const HOST_SOCKETS_SLOT = '--dsh-host-sockets';
/**
 * Sockets masked at most per world: each is one mount of the world's set-up (a host with more
 * keeps the rest reachable; Linux hosts bind a few dozen path sockets).
 */
export const HOST_SOCKETS_MAX = 1024;

/** Paths that are fresh in every world (their host sockets are not there). */
const FRESH_IN_WORLD: readonly string[] = ['/tmp', '/run', '/var/run', '/dev', '/proc', '/sys'];

/**
 * The slot's arguments: `skipped` paths are not the host's in the world (hidden or fresh),
 * `rebound` ones are host directories bound back in under them. The longest matching path
 * decides, as the later, narrower mount does in the world.
 */
export function hostSocketArgs(unreadable: string, skipped: readonly string[], rebound: readonly string[]): string[] {
  const rules = [...[...FRESH_IN_WORLD, ...skipped].map((p) => `-${p}`), ...rebound.map((p) => `+${p}`)];
  return [HOST_SOCKETS_SLOT, unreadable, rules.filter((r) => !r.includes('\n')).join('\n')];
}

/**
 * The awk program that lists the path sockets of /proc/net/unix a world must not reach, one per
 * line, deduplicated: the eighth field on is the path; `DSH_SOCKET_RULES` holds the rules above.
 */
const LIST_SOCKETS = [
  'BEGIN { n = split(ENVIRON["DSH_SOCKET_RULES"], r, "\\n") }',
  'NR > 1 && NF >= 8 {',
  '  p = $0; for (i = 0; i < 7; i++) sub(/^[^ ]+ +/, "", p)',
  '  if (substr(p, 1, 1) != "/" || (p in seen)) next',
  '  seen[p] = 1; best = 0; keep = 1',
  '  for (j = 1; j <= n; j++) {',
  '    x = substr(r[j], 2); l = length(x)',
  '    if (l > best && (p == x || substr(p, 1, l + 1) == x "/")) { best = l; keep = (substr(r[j], 1, 1) == "+") }',
  '  }',
  '  if (keep) print p',
  '}',
].join('\n');

/** The shim's line that defines the program (before its argument loop). */
export const HOST_SOCKETS_PROGRAM = `ls_sockets='${LIST_SOCKETS}'`;

/**
 * The shim's step for the slot (inside its argument loop: `$p` is the unreadable file, `$a` the
 * rules): a bind over each listed path that is a socket now, up to {@link HOST_SOCKETS_MAX}.
 */
export const HOST_SOCKETS_STEP: readonly string[] = [
  '  if [ "$step2" = sockets ]; then',
  '    step2=""; n=0',
  '    while IFS= read -r s; do',
  `      if [ -n "$s" ] && [ -S "$s" ] && [ $n -lt ${HOST_SOCKETS_MAX} ]; then set -- "$@" --ro-bind "$p" "$s"; n=$((n+1)); fi`,
  '    done <<DSH_SOCKETS',
  '$(DSH_SOCKET_RULES="$a" awk "$ls_sockets" /proc/net/unix 2>/dev/null)',
  'DSH_SOCKETS',
  '    continue',
  '  fi',
];
