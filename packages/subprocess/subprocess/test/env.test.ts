import {
  CREDENTIAL_URL_PATTERN,
  childEnv,
  isScrubbedEnvEntry,
  isScrubbedEnvName,
  isScrubbedEnvValue,
  mergeEnv,
  SENSITIVE_ENV_PATTERN,
  SENSITIVE_ENV_SUFFIX_PATTERN,
  scrubbedParentEnv,
} from '@dsh/subprocess';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** Names a shell and its programs need; no rule may scrub them. */
const ESSENTIAL = ['PATH', 'PWD', 'OLDPWD', 'HOME', 'LANG', 'TERM', 'SHELL', 'USER'];

describe('environment scrub and merge', () => {
  it('matches credential-shaped names case-insensitively', () => {
    for (const name of ['API_KEY', 'aws_secret_access_key', 'DB_PASSWORD', 'passwd', 'GH_TOKEN', 'Credential_File']) {
      expect(SENSITIVE_ENV_PATTERN.test(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'LANG', 'TERM']) expect(isScrubbedEnvName(name), name).toBe(false);
    expect(isScrubbedEnvName('DSH_ANYTHING')).toBe(true);
  });

  it('matches credential suffixes after an underscore, and leaves PWD, OLDPWD and friends', () => {
    for (const name of [
      'GH_PAT',
      'AZURE_DEVOPS_PAT',
      'MYSQL_PWD',
      'DB_PW',
      'DOCKER_PASS',
      'smtp_pass',
      'GPG_PASSPHRASE',
      'WIFI_PSK',
      'SENTRY_DSN',
      'SLACK_WEBHOOK',
      'SLACK_WEBHOOK_URL',
      'AWS_CREDS',
      'LOGGED_IN_SALT',
      'AZURE_STORAGE_CONNECTION_STRING',
    ]) {
      expect(SENSITIVE_ENV_SUFFIX_PATTERN.test(name), name).toBe(true);
      expect(isScrubbedEnvName(name), name).toBe(true);
    }
    for (const name of [
      ...ESSENTIAL,
      'PASS',
      'PAT',
      'NO_BYPASS',
      'COMPASS',
      'PATCH_LEVEL',
      'DSN_HOST',
      'PWD_DIR',
      'GOPATH',
      'MANPATH',
      'LOGNAME',
      'DISPLAY',
      'XDG_RUNTIME_DIR',
    ]) {
      expect(isScrubbedEnvName(name), name).toBe(false);
    }
  });

  it('matches values holding a URL with a password, whatever the name', () => {
    for (const value of [
      'postgres://u:pass@h/db',
      'redis://:pass@host:6379/0',
      'mysql://root:@localhost', // an empty password field is still a password field
      'http://user:p%40ss@proxy.example:3128',
      'postgres://u:p@ss@h/db', // an unencoded @ in the password
      'amqp://guest:guest@rabbit',
      'jdbc:postgresql://db:5432/app?x=1 and s3://AKID:SECRET@bucket', // anywhere in the value
    ]) {
      expect(CREDENTIAL_URL_PATTERN.test(value), value).toBe(true);
      expect(isScrubbedEnvValue(value), value).toBe(true);
    }
    for (const value of [
      'https://user@host/path',
      'ssh://git@github.com:22/org/repo.git',
      'https://host:8080/x@y',
      'https://host/a:b@c',
      'https://example.com/?q=a:b@c',
      'git@github.com:org/repo.git',
      'http://localhost:3000',
      '/usr/local/bin:/usr/bin:/bin',
      'user:pass@host', // no scheme: not a URL
    ]) {
      expect(isScrubbedEnvValue(value), value).toBe(false);
    }
  });

  it('matches values that are well-known token formats', () => {
    for (const value of [
      `ghp_${'a'.repeat(36)}`,
      `github_pat_${'B'.repeat(40)}`,
      `glpat-${'x'.repeat(20)}`,
      'xoxb-1234567890-abcdef',
      `npm_${'Z'.repeat(36)}`,
      'AKIAIOSFODNN7EXAMPLE',
      `sk_live_${'0'.repeat(24)}`,
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...\n-----END OPENSSH PRIVATE KEY-----\n',
    ]) {
      expect(isScrubbedEnvValue(value), value).toBe(true);
    }
    for (const value of ['ghp_short', 'see ghp_ in the docs', 'AKIA', 'en_US.UTF-8', 'xterm-256color', '/bin/bash']) {
      expect(isScrubbedEnvValue(value), value).toBe(false);
    }
  });

  it('scrubs the parent by name and by value', () => {
    const parent = {
      PATH: '/usr/bin:/bin',
      PWD: '/work',
      OLDPWD: '/',
      DATABASE_URL: 'postgres://u:pass@h/db',
      MYSQL_PWD: 'p',
      GH_PAT: 'p',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
      SENTRY_DSN: 'https://key@o1.ingest.sentry.io/1',
      DOCKER_PASS: 'p',
      REDIS_URL: 'redis://:pass@host',
      PLAIN_URL: 'https://user@host/repo',
      KEEP: 'k',
    };
    expect(scrubbedParentEnv(parent)).toEqual({
      PATH: '/usr/bin:/bin',
      PWD: '/work',
      OLDPWD: '/',
      PLAIN_URL: 'https://user@host/repo',
      KEEP: 'k',
    });
    expect(isScrubbedEnvEntry('ANYTHING', 'redis://:pass@host')).toBe(true);
    expect(isScrubbedEnvEntry('GH_PAT', 'plain')).toBe(true);
    expect(isScrubbedEnvEntry('KEEP', 'plain')).toBe(false);
  });

  it('lets explicit entries through even when they carry a credential', () => {
    const parent = { PATH: '/bin', DATABASE_URL: 'postgres://u:pass@h/db' };
    expect(childEnv({ DATABASE_URL: 'postgres://u:explicit@h/db', GH_PAT: 'x' }, parent)).toEqual({
      PATH: '/bin',
      DATABASE_URL: 'postgres://u:explicit@h/db',
      GH_PAT: 'x',
    });
  });

  it('property: no inherited value with ://x:y@ survives, and the essential names do', () => {
    const userinfo = fc.string().filter((s) => !/[/?#]/.test(s));
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/);
    fc.assert(
      fc.property(name, fc.string(), userinfo, userinfo, fc.string(), (n, before, x, y, after) => {
        const value = `${before}://${x}:${y}@${after}`;
        const parent: Record<string, string> = { [n]: value };
        for (const essential of ESSENTIAL) parent[essential] = `/${essential.toLowerCase()}`;
        const out = scrubbedParentEnv(parent);
        expect(Object.values(out)).not.toContain(value);
        for (const essential of ESSENTIAL) {
          if (essential !== n) expect(out[essential], essential).toBe(`/${essential.toLowerCase()}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('property: an ordinary value of an essential name is never scrubbed', () => {
    const ordinary = fc.string().filter((s) => !s.includes('://') && !s.includes('PRIVATE KEY'));
    fc.assert(
      fc.property(fc.constantFrom(...ESSENTIAL), ordinary, (n, value) => {
        expect(isScrubbedEnvEntry(n, value)).toBe(false);
      }),
    );
  });

  it('scrubs a long adversarial value in linear time', () => {
    const value = `x://${':'.repeat(200_000)}`;
    const started = performance.now();
    expect(isScrubbedEnvValue(value)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('scrubs the parent and merges explicit entries with tombstones', () => {
    const parent = { PATH: '/bin', HOME: '/root', NPM_TOKEN: 'x', DSH_OLD: 'y', KEEP: 'k' };
    expect(scrubbedParentEnv(parent)).toEqual({ PATH: '/bin', HOME: '/root', KEEP: 'k' });
    expect(childEnv({ DSH_NEW: '1', HOME: undefined, NPM_TOKEN: 'explicit' }, parent)).toEqual({
      PATH: '/bin',
      KEEP: 'k',
      DSH_NEW: '1',
      NPM_TOKEN: 'explicit',
    });
    const base = { A: '1' };
    expect(mergeEnv(base, { A: undefined, B: '2' })).toEqual({ B: '2' });
    expect(base).toEqual({ A: '1' });
  });
});
