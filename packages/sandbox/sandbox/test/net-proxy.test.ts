/**
 * Network by name in a real world (issue 24): the world reaches the hosts its policy names through
 * its proxy, with curl, Python, git, npm and pip, over plain HTTP, CONNECT (TLS) and SOCKS5; every
 * other destination is refused on the host side (the stand-in server never hears of it), and a
 * connection that ignores the proxy has no route. Loopback servers stand in for remote hosts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BubblewrapSandbox, mapResolver, SandboxPolicyService, type World } from '@dsh/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fenceRig, runIn } from './fence-support.js';
import { httpStandIn, type StandIn, tlsStandIn } from './net-support.js';

const rig = fenceRig('dsh-net-');
const { root, workspace, host } = rig;
const files = join(root, 'files');
let web: StandIn;
let tls: StandIn & { cert: string };
let world: World & {
  proxy?: { records(): readonly { host: string; allowed: boolean; sent: number; received: number }[] };
};

beforeAll(async () => {
  mkdirSync(files);
  web = await httpStandIn(files);
  tls = await tlsStandIn(root, 'secure.test');
  writeFileSync(join(workspace, 'ca.pem'), readFileSync(tls.cert));
  const sandbox = rig.keep(
    new BubblewrapSandbox({
      network: {
        resolver: mapResolver({
          'good.test': `127.0.0.1:${web.port}`,
          'registry.test': `127.0.0.1:${web.port}`,
          'pypi.test': `127.0.0.1:${web.port}`,
          'git.test': `127.0.0.1:${web.port}`,
          'raw.githubusercontent.com': `127.0.0.1:${web.port}`,
          'bad.githubusercontent.com': `127.0.0.1:${web.port}`,
          'evil-githubusercontent.com': `127.0.0.1:${web.port}`,
          'elsewhere.test': `127.0.0.1:${web.port}`,
          'secure.test': `127.0.0.1:${tls.port}`,
          // A real answer that leads into the host's loopback (DNS rebinding): checked as it is.
          'rebind.test': `!127.0.0.1:${web.port}`,
          'down.test': '127.0.0.1:1',
        }),
      },
    }),
  );
  const policy = new SandboxPolicyService({
    workspace,
    network: {
      allow: [
        'good.test',
        'registry.test',
        'pypi.test',
        'git.test',
        'secure.test:443',
        '*.githubusercontent.com',
        'rebind.test',
        'down.test',
      ],
      deny: ['bad.githubusercontent.com'],
    },
  });
  world = sandbox.world(policy.resolve(), host);
}, 60_000);
afterAll(async () => {
  await web?.close();
  await tls?.close();
  await rig.dispose();
});

async function sh(command: string): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runIn(world, command, workspace);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

describe('hosts the policy names', () => {
  it('are reached over plain HTTP, CONNECT with TLS and SOCKS5, and each connection is recorded with its bytes', async () => {
    expect((await sh('curl -sS http://good.test/plain')).out).toBe(`hello good.test /plain\n`);
    expect((await sh('curl -sS --cacert ca.pem https://secure.test/tls')).out).toBe('tls hello /tls\n');
    expect((await sh('curl -sS -x socks5h://127.0.0.1:3128 http://good.test/socks')).out).toBe(
      'hello good.test /socks\n',
    );
    expect((await sh('curl -sS http://raw.githubusercontent.com/w')).out).toMatch(
      /^hello raw\.githubusercontent\.com \/w/,
    );
    // A program that ends its side after the request still gets the whole answer.
    const half = await sh(
      `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', 3128)); s.sendall(b'GET http://good.test/half HTTP/1.0\\r\\nHost: good.test\\r\\n\\r\\n'); s.shutdown(socket.SHUT_WR); print(b''.join(iter(lambda: s.recv(65536), b'')).decode().split('\\r\\n\\r\\n')[1], end='')"`,
    );
    expect(half.out, half.err).toBe('hello good.test /half\n');
    // A plain request goes to the site decided (its Host header is the URL's), its body with it,
    // and nothing after it: a second request on the same connection never reaches the destination.
    const before = web.hits.length;
    const two = await sh(
      `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', 3128)); s.sendall(b'GET http://good.test/first HTTP/1.1\\r\\nHost: metadata.internal\\r\\n\\r\\nGET http://elsewhere.test/second HTTP/1.1\\r\\nHost: elsewhere.test\\r\\n\\r\\n'); print(b''.join(iter(lambda: s.recv(65536), b'')).decode())"`,
    );
    expect(two.out, two.err).toContain('hello good.test /first');
    expect(two.out).not.toContain('/second');
    const post = await sh("curl -sS -d 'twelve bytes' http://good.test/post");
    expect(post.out).toBe('hello good.test /post\n');
    expect(web.hits.slice(before)).toEqual(['good.test /first', 'good.test /post']);
    const records = world.proxy?.records() ?? [];
    const tlsRecord = records.find((r) => r.host === 'secure.test');
    expect(tlsRecord?.allowed).toBe(true);
    expect(tlsRecord?.sent).toBeGreaterThan(100); // the TLS handshake went through the tunnel
    expect(tlsRecord?.received).toBeGreaterThan(100);
  });

  it('serve Python, git, npm and pip through the proxy variables', async () => {
    const py = await sh(
      `python3 -c "import urllib.request as u; print(u.urlopen('http://good.test/py').read().decode())"`,
    );
    expect(py.out).toMatch(/hello good\.test \/py/);
    // git over dumb HTTP: a bare repository's files.
    const src = join(root, 'src');
    mkdirSync(src);
    const git = (args: string[], cwd: string) => execFileSync('git', args, { cwd, stdio: 'ignore' });
    git(['init', '-q'], src);
    writeFileSync(join(src, 'README'), 'cloned through the proxy\n');
    git(['add', 'README'], src);
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one'], src);
    git(['clone', '-q', '--bare', src, join(files, 'repo.git')], root);
    git(['update-server-info'], join(files, 'repo.git'));
    const clone = await sh('git clone -q http://git.test/files/repo.git cloned && cat cloned/README');
    expect(clone.out).toBe('cloned through the proxy\n');
    // npm: a registry stand-in with one packument.
    mkdirSync(join(files, 'npm'));
    writeFileSync(
      join(files, 'npm', 'left-pad'),
      JSON.stringify({
        name: 'left-pad',
        'dist-tags': { latest: '9.9.9' },
        versions: {
          '9.9.9': { name: 'left-pad', version: '9.9.9', dist: { tarball: 'http://registry.test/files/npm/x.tgz' } },
        },
      }),
    );
    const npm = await sh('npm view left-pad version --registry http://registry.test/files/npm/ 2>&1');
    expect(npm.out.trim()).toBe('9.9.9');
    // pip: a simple index with one wheel.
    mkdirSync(join(files, 'simple', 'demo-pkg'), { recursive: true });
    execFileSync('python3', ['-c', WHEEL, join(files, 'demo_pkg-1.0-py3-none-any.whl')]);
    writeFileSync(
      join(files, 'simple', 'demo-pkg', 'index.html'),
      '<html><body><a href="../../demo_pkg-1.0-py3-none-any.whl">demo_pkg-1.0-py3-none-any.whl</a></body></html>',
    );
    const pip = await sh(
      'python3 -m pip --isolated download -q --no-deps --no-cache-dir --disable-pip-version-check --trusted-host pypi.test --index-url http://pypi.test/files/simple/ demo-pkg -d dl 2>&1; ls dl',
    );
    expect(pip.out).toMatch(/demo_pkg-1\.0-py3-none-any\.whl/);
  }, 60_000);
});

/** Writes a minimal wheel (argv[1]). */
const WHEEL = [
  'import sys, zipfile',
  "z = zipfile.ZipFile(sys.argv[1], 'w')",
  "z.writestr('demo_pkg/__init__.py', '')",
  "z.writestr('demo_pkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: demo-pkg\\nVersion: 1.0\\n')",
  "z.writestr('demo_pkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
  "z.writestr('demo_pkg-1.0.dist-info/RECORD', '')",
  'z.close()',
].join('\n');

describe('every other destination', () => {
  it('is refused by the proxy, plainly, and never reaches the stand-in', async () => {
    const before = web.hits.length;
    const cases: [string, RegExp][] = [
      [
        'curl -sS http://elsewhere.test/x',
        /network to elsewhere\.test:80 refused by the sandbox \(not in the allow list\)/,
      ],
      ['curl -sS http://evil-githubusercontent.com/x', /evil-githubusercontent\.com:80 refused.*not in the allow list/],
      ['curl -sS http://bad.githubusercontent.com/x', /bad\.githubusercontent\.com:80 refused.*on the deny list/],
      ['curl -sS http://93.184.215.14/x', /93\.184\.215\.14:80 refused.*not in the allow list/],
      [
        'curl -sS http://rebind.test/x',
        /rebind\.test:80 refused.*resolves to a private address \(127\.0\.0\.1\).*sandbox\.network\.allowPrivate/,
      ],
      ['curl -sS --cacert ca.pem https://secure.test:8443/x 2>&1', /CONNECT tunnel failed, response 403/],
      ['curl -sS -x socks5h://127.0.0.1:3128 http://elsewhere.test/s 2>&1', /SOCKS5.*\(2\)/],
    ];
    for (const [command, expected] of cases) {
      const r = await sh(command);
      expect(`${r.out}${r.err}`, command).toMatch(expected);
    }
    expect(web.hits.length).toBe(before);
    const refused = (world.proxy?.records() ?? []).filter((r) => !r.allowed).map((r) => r.host);
    expect(refused).toEqual(
      expect.arrayContaining([
        'elsewhere.test',
        'evil-githubusercontent.com',
        'bad.githubusercontent.com',
        '93.184.215.14',
        'rebind.test',
      ]),
    );
  });

  it('has no route at all when a program ignores the proxy: it fails at once, and the host loopback stays out of reach', async () => {
    const before = web.hits.length;
    const direct = await sh(`curl -sS --noproxy '*' --max-time 20 http://93.184.215.14/ 2>&1; echo "rc=$?"`);
    expect(direct.out).toMatch(/Couldn't connect|Network is unreachable/);
    expect(direct.out).not.toMatch(/rc=28/); // not a timeout: no route
    const raw = await sh(
      `python3 -c "import socket; socket.create_connection(('93.184.215.14', 80), timeout=20)" 2>&1`,
    );
    expect(raw.out).toMatch(/Network is unreachable/);
    const loop = await sh(`curl -sS --noproxy '*' http://127.0.0.1:${web.port}/ 2>&1; echo "rc=$?"`);
    expect(loop.out).toMatch(/rc=7/);
    expect(web.hits.length).toBe(before);
  });

  it('that the policy allows but that is down is a failure of its own, not a refusal', async () => {
    const count = world.networkRefusals?.() ?? -1;
    const r = await sh('curl -sS http://down.test/ 2>&1');
    expect(r.out).toMatch(/dsh proxy: could not connect to down\.test:80 \(ECONNREFUSED\)/);
    expect(world.networkRefusals?.()).toBe(count);
  });
});

describe('a remote world', () => {
  it('with hosts by name is refused (its proxy would have to run where the network is), never run with no network or all of it', () => {
    const far = new BubblewrapSandbox({ farSide: { node: '/usr/bin/node', entry: '/x/server.js', unavailable: null } });
    const policy = new SandboxPolicyService({ workspace, network: { allow: ['good.test'] } });
    let code: string | undefined;
    try {
      far.world(policy.resolve(), host);
    } catch (error) {
      code = (error as { code?: string }).code;
    }
    expect(code).toBe('SANDBOX_UNAVAILABLE');
  });
});
