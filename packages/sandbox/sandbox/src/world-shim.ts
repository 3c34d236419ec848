/**
 * The shell step that starts a sandbox world where bwrap runs (this machine or a remote one):
 * limit cgroups, the world's cgroup and seccomp descriptors, the fence's conditional steps, the
 * channel moved off stdio, and (with the network on) pasta wiring the world's own namespace.
 */
import { CGROUP_SLOT } from './fence.js';
import { HOST_SOCKETS_PROGRAM, HOST_SOCKETS_SLOT, HOST_SOCKETS_STEP } from './host-sockets.js';
import { IF_EXISTS, IF_FILE } from './kernel-masks.js';

/** The name of a host's nursery cgroup (see @dsh/subprocess-local). */
const NURSERY = 'host';

/** Where the seccomp descriptor is filled in (removed when the world has no program). */
export const SECCOMP_SLOT = '--dsh-seccomp';
/** The descriptors the shim opens for bwrap: the seccomp program, and the world's cgroup directory. */
const SECCOMP_FD = 4;
const CGROUP_FD = 5;
/** The channel's descriptors inside (bubblewrap's init closes all past stdio: it holds none of the channel). */
const CHANNEL_IN_FD = 6;
const CHANNEL_OUT_FD = 7;
/**
 * The descriptors of the output directories the server writes through, one each (the shell that
 * starts a world can name only 0-9; an output directory past these is bound writable).
 */
export const OUTPUT_FDS: readonly number[] = [3, 8];
/** The fence step that opens a directory on a descriptor for the server (`--dsh-open-dir FD PATH`). */
export const OPEN_DIR = '--dsh-open-dir';
/** The descriptor bwrap waits on before it runs the server, while pasta wires the world's network. */
const NET_BLOCK_FD = 9;
/** Where the network slot is filled in (`--block-fd` when pasta wires the network). */
export const NET_SLOT = '--dsh-net';
/** The prefix of the pasta argument that has pasta run bwrap in a namespace of its own making. */
export const PASTA_WRAP = 'wrap:';
/** pasta's options: no port forwarded either way, the host's gateway not mapped to its loopback. */
const PASTA_OPTIONS = '--config-net --quiet -t none -u none -T none -U none --no-map-gw';
/** How long the shim waits for bwrap's namespaced child to appear (5 ms steps). */
const CHILD_WAIT_STEPS = 400;
/** How often pasta is tried while the child's namespace files are closed (10 ms apart). */
const PASTA_TRIES = 50;

/**
 * Starts the world: $1 is bwrap, $2 the seccomp program's file (or empty), $3 and $4 the pids
 * and memory limits (or empty), $5 the cgroup.procs files of the world's limit cgroups (colon
 * separated, or empty), the rest bwrap's arguments. In order: the shim joins the limit cgroups
 * (so the whole world is in them); waits for the host to move it out of its nursery; finds its
 * own cgroup v2 directory (none when it is the root, unreadable or not writable), writes the
 * limits there where the controllers are delegated, and opens it on a descriptor for the server
 * (the world sees the cgroup tree read-only: its commands cannot move themselves out, while
 * the server reaches the directory through the descriptor); opens the seccomp program; then
 * expands the fence's conditional steps where the world runs (`--dsh-if PATH N …`: the next N
 * arguments only where PATH exists; `--dsh-if-file`: only where it exists and is not a
 * directory), the host's sockets (host-sockets.ts) and the slots; moves the channel off stdio (onto descriptors bubblewrap's init
 * closes, so only the server holds it) and execs bwrap.
 */
export const SHIM = [
  'bwrap=$1; seccomp=$2; pmax=$3; mmax=$4; joins=$5; pasta=$6; shift 6',
  'if [ -n "$joins" ]; then old=$IFS; IFS=:; for f in $joins; do echo $$ > "$f" || exit 125; done; IFS=$old; fi',
  // A child starts in the host's nursery (`…/host`) and is moved into its tree's cgroup as the
  // spawn returns: wait for that move before looking (bounded; uncontained hosts have no nursery).
  // Read with the shell's own builtins (no program started: each costs milliseconds of the world's start).
  `own_cg() { cg=""; while IFS= read -r l; do case $l in 0::*) cg=\${l#0::} ;; esac; done </proc/self/cgroup; } 2>/dev/null`,
  'i=0; own_cg',
  `while [ "\${cg##*/}" = "${NURSERY}" ] && [ $i -lt 200 ]; do sleep 0.005; i=$((i+1)); own_cg; done`,
  // The cgroup2 mount whose root is the hierarchy's root (mountinfo: id parent dev root point opts … - type …).
  'mnt=""; while read -r _ _ _ r m x; do case " $x " in *" - cgroup2 "*) if [ "$r" = / ]; then mnt=$m; break; fi ;; esac; done </proc/self/mountinfo 2>/dev/null',
  'dir=""',
  'if [ -n "$cg" ] && [ "$cg" != "/" ] && [ -n "$mnt" ] && [ -w "$mnt$cg/cgroup.procs" ]; then dir="$mnt$cg"; fi',
  'if [ -n "$dir" ]; then',
  '  if [ -n "$pmax" ] && [ -w "$dir/pids.max" ]; then echo "$pmax" > "$dir/pids.max"; fi',
  '  if [ -n "$mmax" ] && [ -w "$dir/memory.max" ]; then echo "$mmax" > "$dir/memory.max"; echo 0 > "$dir/memory.swap.max" 2>/dev/null; fi',
  `  exec ${CGROUP_FD}<"$dir" || dir=""`,
  'fi',
  `if [ -n "$seccomp" ]; then exec ${SECCOMP_FD}<"$seccomp" || exit 125; fi`,
  // Unprivileged: pasta makes a user and network namespace and runs bwrap in it (it keeps the
  // descriptors; bwrap's parent is pasta, and bwrap ends when pasta does).
  'wrap=""',
  `case $pasta in ${PASTA_WRAP}*) wrap=\${pasta#${PASTA_WRAP}}; pasta="" ;; esac`,
  'if [ -n "$pasta" ]; then',
  `  nd=$(mktemp -d "\${TMPDIR:-/tmp}/dsh-net.XXXXXX") || exit 125`,
  `  mkfifo "$nd/go" && exec ${NET_BLOCK_FD}<>"$nd/go" || { rm -rf "$nd"; exit 125; }`,
  'fi',
  HOST_SOCKETS_PROGRAM,
  'first=1; want=0; keep=1; step=""; step2=""',
  'for a in "$@"; do',
  '  if [ "$first" = 1 ]; then set --; first=0; fi',
  '  if [ -n "$step" ]; then',
  '    p=$a; step2=$step; step=""; continue',
  '  fi',
  ...HOST_SOCKETS_STEP,
  '  if [ "$step2" = open ]; then',
  '    case $p in *[!0-9]*|"") exit 125 ;; esac',
  '    eval "exec $p<"\\$a"" || exit 125; step2=""; continue',
  '  fi',
  '  if [ -n "$step2" ]; then',
  '    want=$a',
  '    if [ "$step2" = if ] && [ -e "$p" ]; then keep=1',
  '    elif [ "$step2" = file ] && [ -e "$p" ] && [ ! -d "$p" ]; then keep=1',
  '    else keep=0; fi',
  '    step2=""; continue',
  '  fi',
  '  if [ "$want" -gt 0 ]; then',
  '    want=$((want-1)); if [ "$keep" = 1 ]; then set -- "$@" "$a"; fi; continue',
  '  fi',
  '  case $a in',
  `    ${IF_EXISTS}) step=if ;;`,
  `    ${IF_FILE}) step=file ;;`,
  `    ${OPEN_DIR}) step=open ;;`,
  `    ${HOST_SOCKETS_SLOT}) step=sockets ;;`,
  `    ${SECCOMP_SLOT}) if [ -n "$seccomp" ]; then set -- "$@" --seccomp ${SECCOMP_FD}; fi ;;`,
  `    ${NET_SLOT}) if [ -n "$pasta" ]; then set -- "$@" --block-fd ${NET_BLOCK_FD}; fi ;;`,
  `    ${CGROUP_SLOT}) set -- "$@" --channel-fds ${CHANNEL_IN_FD},${CHANNEL_OUT_FD}; if [ -n "$dir" ]; then set -- "$@" --cgroup-fd ${CGROUP_FD}; fi ;;`,
  '    *) set -- "$@" "$a" ;;',
  '  esac',
  'done',
  `exec ${CHANNEL_IN_FD}<&0 ${CHANNEL_OUT_FD}>&1 </dev/null >/dev/null`,
  `if [ -n "$wrap" ]; then exec "$wrap" ${PASTA_OPTIONS} -f -- "$bwrap" "$@"; fi`,
  'if [ -z "$pasta" ]; then exec "$bwrap" "$@"; fi',
  // The network on, in a namespace of its own: bwrap starts blocked; pasta (a user-mode network
  // stack on the host side) is attached to the namespace; then bwrap goes on. The shim stays as
  // bwrap's parent, holding none of the channel.
  '"$bwrap" "$@" & b=$!',
  `exec ${CHANNEL_IN_FD}<&- ${CHANNEL_OUT_FD}>&-`,
  "trap 'kill -TERM $b 2>/dev/null' TERM INT HUP",
  `i=0; c=""; while [ -z "$c" ] && [ $i -lt ${CHILD_WAIT_STEPS} ]; do c=$(cat /proc/$b/task/$b/children 2>/dev/null); c=\${c%% *}; [ -n "$c" ] || sleep 0.005; i=$((i+1)); done`,
  // Until it is let go, bwrap's child waits on the block descriptor it holds itself: a stop
  // meanwhile ends it by name too.
  "trap 'kill -KILL $c $b 2>/dev/null' TERM INT HUP",
  // Never the host's namespace: the child's must differ from the shim's own. Its namespace files
  // can be closed to others for a moment while bubblewrap changes its credentials: tried again.
  'own=$(readlink /proc/self/ns/net); wired=""; i=0',
  `while [ -n "$c" ] && [ -z "$wired" ] && [ $i -lt ${PASTA_TRIES} ]; do`,
  '  ns=$(readlink "/proc/$c/ns/net" 2>/dev/null)',
  `  if [ -n "$ns" ] && [ "$ns" != "$own" ] && "$pasta" ${PASTA_OPTIONS} --runas 0 --pid "$nd/pasta.pid" --netns "/proc/$c/ns/net" >/dev/null 2>&1; then wired=1; else sleep 0.01; fi`,
  '  i=$((i+1))',
  'done',
  'pp=$(cat "$nd/pasta.pid" 2>/dev/null); rm -rf "$nd"',
  'if [ -z "$wired" ]; then',
  '  echo "dsh: the world\'s network could not be wired (pasta failed)" >&2; kill -KILL $c $b 2>/dev/null; exit 125',
  'fi',
  `echo go >&${NET_BLOCK_FD}; exec ${NET_BLOCK_FD}>&-`,
  "trap 'kill -TERM $b 2>/dev/null' TERM INT HUP",
  // pasta keeps the namespace (and itself) alive: it ends with the world.
  'wait $b; st=$?; wait $b 2>/dev/null; st2=$?; [ $st -gt 128 ] && [ $st2 -lt 128 ] && st=$st2',
  'if [ -n "$pp" ]; then kill "$pp" 2>/dev/null; fi',
  'exit $st',
].join('\n');
