/**
 * What dsh appends to a channel's argv to start its runtime server on the far side, where Node.js
 * may be all there is. A POSIX `sh` step finds Node.js and runs a small loader with it; the
 * loader looks for the server payload (the single-file server and the node-pty it loads) in a
 * cache keyed by the payload's hash, asks for it over the channel when it is missing, checks it,
 * unpacks it atomically, says `ready` and becomes the server. The boot lines on stdout are
 * `DSH-BOOT 1 need|ready|error …`; after `ready` stdout carries frames only.
 */

import { shellQuote } from '@dsh/subprocess';

/** The first word of every boot line. */
export const BOOT_TAG = 'DSH-BOOT 1';

/** The loader, run with `node -e LOADER <hash> <server args…>` (CommonJS, Node ≥ 20). */
const LOADER = String.raw`
const fs = require('fs'), p = require('path'), os = require('os'), crypto = require('crypto'), url = require('url');
const say = (s) => fs.writeSync(1, 'DSH-BOOT 1 ' + s + '\n');
const fail = (s) => { say('error ' + s.replace(/\n/g, ' ')); process.exit(1); };
if (Number(process.versions.node.split('.')[0]) < 20) fail('Node.js ' + process.version + ' is older than 20; install Node.js 20 or newer there');
const hash = process.argv[1];
const rest = process.argv.slice(2);
const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
const roots = [];
if (process.env.XDG_CACHE_HOME) roots.push(p.join(process.env.XDG_CACHE_HOME, 'dsh'));
try { const h = os.homedir(); if (h) roots.push(p.join(h, '.cache', 'dsh')); } catch {}
roots.push(p.join(os.tmpdir(), 'dsh-' + uid));
const SERVER = 'runtime-server.mjs';
// A cache is used only when this user alone can write it: every directory from the cache root
// down is ours, not a symlink, and not group- or other-writable (a shared /tmp holds others' too).
const ours = (root, d) => {
  for (let at = d; ; at = p.dirname(at)) {
    let st;
    try { st = fs.lstatSync(at); } catch { return false; }
    if (!st.isDirectory() || (typeof uid === 'number' && st.uid !== uid) || (st.mode & 0o022) !== 0) return false;
    if (at === root || at === p.dirname(at)) return true;
  }
};
// A cached copy is used only when its files still hash to the payload's hash (manifest order).
const intact = (d) => {
  try {
    const header = fs.readFileSync(p.join(d, 'manifest.json'));
    const h = crypto.createHash('sha256').update(header).update('\n');
    for (const [name] of JSON.parse(header.toString())) h.update(fs.readFileSync(p.join(d, name)));
    return h.digest('hex').slice(0, 16) === hash;
  } catch { return false; }
};
let dir = roots.map((r) => [r, p.join(r, 'runtime', hash)]).find(([r, d]) => ours(r, d) && intact(d))?.[1];
let how = 'cached';
const sleep = new Int32Array(new SharedArrayBuffer(4));
function readExact(n) {
  const b = Buffer.alloc(n);
  let o = 0;
  while (o < n) {
    let r;
    try { r = fs.readSync(0, b, o, n - o, null); }
    catch (e) { if (e.code === 'EAGAIN') { Atomics.wait(sleep, 0, 0, 5); continue; } throw e; }
    if (r === 0) fail('the payload ended after ' + o + ' of ' + n + ' bytes');
    o += r;
  }
  return b;
}
if (!dir) {
  how = 'sent';
  say('need ' + process.platform + ' ' + process.arch);
  const size = Number(readExact(16).toString().trim());
  const payload = readExact(size);
  if (crypto.createHash('sha256').update(payload).digest('hex').slice(0, 16) !== hash) fail('the payload does not match its hash');
  const nl = payload.indexOf(10);
  const files = JSON.parse(payload.subarray(0, nl).toString());
  const unpack = (d) => {
    const t = d + '.' + process.pid + '.tmp';
    fs.rmSync(t, { recursive: true, force: true });
    let at = nl + 1;
    fs.mkdirSync(t, { recursive: true, mode: 0o700 });
    fs.writeFileSync(p.join(t, 'manifest.json'), payload.subarray(0, nl), { mode: 0o600 });
    for (const [name, bytes, mode] of files) {
      const f = p.join(t, name);
      fs.mkdirSync(p.dirname(f), { recursive: true, mode: 0o700 });
      fs.writeFileSync(f, payload.subarray(at, at + bytes), { mode });
      at += bytes;
    }
    try { fs.renameSync(t, d); } catch (e) {
      fs.rmSync(t, { recursive: true, force: true });
      if (!intact(d)) throw e; // another boot won the race with the same bytes, or a stale copy is in the way
    }
    return d;
  };
  const why = [];
  for (const r of roots) {
    try {
      fs.mkdirSync(p.join(r, 'runtime'), { recursive: true, mode: 0o700 });
      if (!ours(r, p.join(r, 'runtime'))) throw new Error('not private to this user');
      const d = p.join(r, 'runtime', hash);
      if (fs.existsSync(d) && !intact(d)) fs.rmSync(d, { recursive: true, force: true }); // a broken copy
      dir = unpack(d);
      break;
    }
    catch (e) { why.push(r + ': ' + e.message); }
  }
  if (!dir) fail('no writable place for the runtime server (' + why.join('; ') + ')');
}
say('ready ' + how + ' ' + dir);
process.argv = [process.argv[0], p.join(dir, SERVER), ...rest];
import(url.pathToFileURL(p.join(dir, SERVER)).href).catch((e) => { process.stderr.write('dsh runtime server: ' + e.message + '\n'); process.exit(1); });
`;

/** Finds Node.js (`$1` when given) and runs the loader with the payload hash and server args. */
const SH = [
  'n=$1; l=$2; shift 2',
  'if [ -z "$n" ]; then n=$(command -v node 2>/dev/null || command -v nodejs 2>/dev/null); fi',
  `if [ -z "$n" ]; then echo "${BOOT_TAG} error no Node.js on PATH there ($PATH); install Node.js 20 or newer, or give the world's node path"; exit 127; fi`,
  'exec "$n" -e "$l" "$@"',
].join('\n');

/** Does this channel join its remote argv into one shell string (ssh does)? */
export function joinsArgv(connect: readonly string[]): boolean {
  const program = connect[0]?.split('/').pop() ?? '';
  return program === 'ssh';
}

/**
 * The channel argv with the boot step appended: as separate words for `docker exec` and
 * `kubectl exec`, as one correctly quoted word for ssh (which hands its remote argv to the
 * remote user's shell as a single string).
 */
export function bootArgv(
  connect: readonly string[],
  hash: string,
  serverArgs: readonly string[],
  options: { node?: string; joined?: boolean } = {},
): string[] {
  const words = ['sh', '-c', SH, 'dsh-boot', options.node ?? '', LOADER, hash, ...serverArgs];
  const joined = options.joined ?? joinsArgv(connect);
  return joined ? [...connect, words.map(shellQuote).join(' ')] : [...connect, ...words];
}
