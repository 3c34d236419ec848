import { spawn } from 'node:child_process';
import { writeFileSync, mkdirSync, readFileSync, rmdirSync, openSync, writeSync } from 'node:fs';
const line = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n').find((l) => l.startsWith('0::')).slice(3);
const mount = readFileSync('/proc/self/mountinfo','utf8').split('\n').find(l=>l.includes(' - cgroup2 ')).split(' ')[4];
const home = mount + line;
const dir = home + '/bench-move2'; try { mkdirSync(dir) } catch {}
const homeFd = openSync(home + '/cgroup.procs', 'w'); const dirFd = openSync(dir + '/cgroup.procs', 'w');
const pid = String(process.pid);
const sp = () => new Promise((res) => { const c = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] }); c.stdout.resume(); c.stderr.resume(); c.on('close', res); });
function med(a) { a.sort((x, y) => x - y); return a[a.length >> 1]; }
async function variant(name, before, after) {
  const t = [], f = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now(); await before?.();
    const t1 = performance.now(); const c = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] }); const t2 = performance.now();
    after?.(); c.stdout.resume(); c.stderr.resume(); await new Promise((r) => c.on('close', r));
    t.push(performance.now() - t0); f.push(t2 - t1);
  }
  console.log(name.padEnd(30), 'total', med(t).toFixed(3), 'spawn() call', med(f).toFixed(3));
}
await variant('A raw');
await variant('B move-in/spawn/out', () => writeSync(dirFd, pid), () => writeSync(homeFd, pid));
writeSync(dirFd, pid); await variant('C stay inside'); writeSync(homeFd, pid);
await variant('D in, 3ms wait, spawn, out', async () => { writeSync(dirFd, pid); await new Promise((r) => setTimeout(r, 3)); }, () => writeSync(homeFd, pid));
await variant('A raw again');
rmdirSync(dir);
