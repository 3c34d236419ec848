import { childEnv, isScrubbedEnvName, mergeEnv, SENSITIVE_ENV_PATTERN, scrubbedParentEnv } from '@dsh/subprocess';
import { describe, expect, it } from 'vitest';

describe('environment scrub and merge', () => {
  it('matches credential-shaped names case-insensitively', () => {
    for (const name of ['API_KEY', 'aws_secret_access_key', 'DB_PASSWORD', 'passwd', 'GH_TOKEN', 'Credential_File']) {
      expect(SENSITIVE_ENV_PATTERN.test(name), name).toBe(true);
    }
    for (const name of ['PATH', 'HOME', 'LANG', 'TERM']) expect(isScrubbedEnvName(name), name).toBe(false);
    expect(isScrubbedEnvName('DSH_ANYTHING')).toBe(true);
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
