import { LocalSubprocessRuntime } from '@dsh/subprocess-local';
import { rawSpawn, median, timed } from './lib.mjs';
const mode = process.argv[2] || 'cgroup';
const rt = new LocalSubprocessRuntime(mode === 'session' ? { containment: 'session' } : {});
const collect = { kind: 'collect', maxBytes: 1 << 20 };
const spec = { argv: ['true'], cwd: '/', env: {}, stdin: { kind: 'ignore' }, stdout: collect, stderr: collect, graceMs: 1000 };
const a = [], r = [];
for (let i = 0; i < 600; i++) { r.push(await timed(() => rawSpawn('true', []))); a.push(await timed(() => rt.spawn(spec).done)); }
console.log(mode, rt.containment, median(a.slice(100)).toFixed(3), median(r.slice(100)).toFixed(3), (median(a.slice(100)) / median(r.slice(100))).toFixed(2));
await rt.dispose();
